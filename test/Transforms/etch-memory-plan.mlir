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

// A dynamic input without bounds cannot be planned.
// expected-error @+1 {{input #0 has the dynamic type 'tensor<?xf32>' but no bounds (etch.max_sizes)}}
func.func @unbounded(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = edge.relu %x : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Bounded dynamic shapes are planned at their upper bounds: every value's
// bound follows from the input's largest shape, run-time sizes included
// (the view's rows are sym_size * 2), and is recorded for the program.
// CHECK-LABEL: func @bounded
// CHECK-SAME: etch.arena_offset = 0 : i64, etch.max_sizes = array<i64: 8, 4>, etch.min_sizes = array<i64: 1, 4>, etch.planned_type = tensor<8x4xf32>
// CHECK-SAME: etch.arena_size = 392 : i64
// CHECK: edge.relu {{.*}} {etch.arena_offsets = array<i64: 128>, etch.planned_types = [tensor<8x4xf32>]}
// CHECK: edge.view {{.*}} {etch.arena_offsets = array<i64: 256>, etch.planned_types = [tensor<16x2xf32>]
func.func @bounded(%x: tensor<?x4xf32> {etch.min_sizes = array<i64: 1, 4>, etch.max_sizes = array<i64: 8, 4>}) -> tensor<?x2xf32> {
  %0 = edge.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = edge.sym_size %x {dim = 0 : i64} : (tensor<?x4xf32>) -> tensor<i64>
  %two = edge.constant dense<2> : tensor<i64>
  %rows = edge.mul %s, %two : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %1 = edge.view %0, %rows {size = array<i64: -9223372036854775808, 2>} : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}
