// RUN: et-opt %s -split-input-file -etch-memory-plan -verify-diagnostics | FileCheck %s

// A chain: each intermediate dies when the next is made, so two slots are
// reused alternately; the input stays alive for the whole method.
// CHECK-LABEL: func @chain
// CHECK-SAME: etch.arena_offset = 0 : i64
// CHECK-SAME: etch.arena_lower_bound = 192 : i64, etch.arena_size = 192 : i64
// CHECK: edge.relu %arg0 {etch.arena_offsets = array<i64: 64>}
// CHECK: edge.sigmoid %{{.*}} {etch.arena_offsets = array<i64: 128>}
// CHECK: edge.tanh %{{.*}} {etch.arena_offsets = array<i64: 64>}
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = edge.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = edge.sigmoid %0 : (tensor<16xf32>) -> tensor<16xf32>
  %2 = edge.tanh %1 : (tensor<16xf32>) -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// Values alive at the same time never overlap; constants are not planned;
// a value used by the return lives to the end.
// CHECK-LABEL: func @diamond
// CHECK-SAME: etch.arena_lower_bound = 512 : i64, etch.arena_size = 512 : i64
// CHECK: edge.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NOT: etch.arena_offsets
// CHECK: %[[A:.*]] = edge.relu %arg0 {etch.arena_offsets = array<i64: [[OA:[0-9]+]]>}
// CHECK: %[[B:.*]] = edge.sigmoid %arg0 {etch.arena_offsets = array<i64: [[OB:[0-9]+]]>}
// CHECK: edge.add %[[A]], %[[B]] {etch.arena_offsets = array<i64: [[OC:[0-9]+]]>}
func.func @diamond(%x: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %c = edge.constant dense<1.0> : tensor<4xf32>
  %a = edge.relu %x : (tensor<32xf32>) -> tensor<32xf32>
  %b = edge.sigmoid %x : (tensor<32xf32>) -> tensor<32xf32>
  %s = edge.add %a, %b : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  return %s, %a : tensor<32xf32>, tensor<32xf32>
}

// -----

// Dynamic shapes cannot be placed (reported at the first such value).
// expected-error @+1 {{cannot plan memory for 'tensor<?xf32>': static shapes of int/float tensors are required}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = edge.relu %x : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
