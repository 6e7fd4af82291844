// RUN: et-opt %s -split-input-file -etch-last-position-output -canonicalize -verify-diagnostics | FileCheck %s
// RUN: not et-opt %s -split-input-file -etch-last-position-output="result=1" 2>&1 | FileCheck %s --check-prefix=SECOND

// The training-IR form: lm_head is an edge.linear of the hidden states; it
// runs on the last position only. Other results are left alone.
// CHECK-LABEL: func @linear
// CHECK-SAME: -> (tensor<1x?x10xf32>, tensor<1x?x8xf32>)
// CHECK: %[[LAST:.*]] = edge.slice %arg0 {dim = 1 : i64, start = -1 : i64} : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
// CHECK: %[[LOGITS:.*]] = edge.linear %[[LAST]], %arg1, %arg2 : (tensor<1x?x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<1x?x10xf32>
// CHECK-NOT: edge.linear
// CHECK: return %[[LOGITS]], %arg0
// SECOND: error: etch-last-position-output: result 1 is not a projection of the hidden states (edge.linear, edge.weight_only_linear, or edge.mm / edge.addmm between views); it comes from a function argument
func.func @linear(%hidden: tensor<1x?x8xf32>, %w: tensor<10x8xf32>, %b: tensor<10xf32>) -> (tensor<1x?x10xf32>, tensor<1x?x8xf32>) {
  %0 = edge.linear %hidden, %w, %b : (tensor<1x?x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<1x?x10xf32>
  return %0, %hidden : tensor<1x?x10xf32>, tensor<1x?x8xf32>
}

// -----

// The core-ATen form: view to rows, mm, view back. Static shapes: both
// views are rebuilt for one row and the signature says so.
// SECOND: error: etch-last-position-output: the function has 1 results, no result 1
// CHECK-LABEL: func @mm_between_views
// CHECK-SAME: -> tensor<1x1x10xf32>
// CHECK: %[[LAST:.*]] = edge.slice %arg0 {dim = 1 : i64, start = -1 : i64} : (tensor<1x16x8xf32>) -> tensor<1x1x8xf32>
// CHECK: %[[ROWS:.*]] = edge.view %[[LAST]] {size = array<i64: -1, 8>} : (tensor<1x1x8xf32>) -> tensor<1x8xf32>
// CHECK: %[[MM:.*]] = edge.mm %[[ROWS]], %arg1 : (tensor<1x8xf32>, tensor<8x10xf32>) -> tensor<1x10xf32>
// CHECK: %[[LOGITS:.*]] = edge.view %[[MM]] {size = array<i64: 1, 1, 10>} : (tensor<1x10xf32>) -> tensor<1x1x10xf32>
// CHECK: return %[[LOGITS]]
func.func @mm_between_views(%hidden: tensor<1x16x8xf32>, %w: tensor<8x10xf32>) -> tensor<1x16x10xf32> {
  %0 = edge.view %hidden {size = array<i64: 16, 8>} : (tensor<1x16x8xf32>) -> tensor<16x8xf32>
  %1 = edge.mm %0, %w : (tensor<16x8xf32>, tensor<8x10xf32>) -> tensor<16x10xf32>
  %2 = edge.view %1 {size = array<i64: 1, 16, 10>} : (tensor<16x10xf32>) -> tensor<1x16x10xf32>
  return %2 : tensor<1x16x10xf32>
}

// -----

// addmm (a bias): the rows are its second operand.
// CHECK-LABEL: func @addmm_between_views
// CHECK: %[[LAST:.*]] = edge.slice %arg0 {dim = 1 : i64, start = -1 : i64}
// CHECK: %[[ROWS:.*]] = edge.view %[[LAST]] {size = array<i64: -1, 8>}
// CHECK: edge.addmm %arg2, %[[ROWS]], %arg1 {{.*}} -> tensor<?x10xf32>
// CHECK: edge.view %{{.*}} {size = array<i64: 1, 1, 10>} : (tensor<?x10xf32>) -> tensor<1x1x10xf32>
func.func @addmm_between_views(%hidden: tensor<1x?x8xf32>, %w: tensor<8x10xf32>, %b: tensor<10xf32>) -> tensor<1x?x10xf32> {
  %0 = edge.view %hidden {size = array<i64: -1, 8>} : (tensor<1x?x8xf32>) -> tensor<?x8xf32>
  %1 = edge.addmm %b, %0, %w : (tensor<10xf32>, tensor<?x8xf32>, tensor<8x10xf32>) -> tensor<?x10xf32>
  %2 = edge.view %1 {size = array<i64: 1, -1, 10>} : (tensor<?x10xf32>) -> tensor<1x?x10xf32>
  return %2 : tensor<1x?x10xf32>
}

// -----

// A weight-only projection (after etch-fold-weight-only-ops).
// CHECK-LABEL: func @weight_only
// CHECK: %[[LAST:.*]] = edge.slice %arg0 {dim = 1 : i64, start = -1 : i64}
// CHECK: edge.weight_only_linear %[[LAST]], %arg1, %arg2 {bits = 8 : i64
func.func @weight_only(%hidden: tensor<1x?x8xf32>, %w: tensor<10x8xi8>, %s: tensor<10x1xf32>) -> tensor<1x?x10xf32> {
  %0 = edge.weight_only_linear %hidden, %w, %s {bits = 8 : i64, group_size = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x?x8xf32>, tensor<10x8xi8>, tensor<10x1xf32>) -> tensor<1x?x10xf32>
  return %0 : tensor<1x?x10xf32>
}

// -----

// Anything else is an error that names what it found.
func.func @softmax_logits(%hidden: tensor<1x?x8xf32>, %w: tensor<10x8xf32>) -> tensor<1x?x10xf32> {
  %0 = edge.linear %hidden, %w : (tensor<1x?x8xf32>, tensor<10x8xf32>) -> tensor<1x?x10xf32>
  %1 = edge.softmax %0 {dim = -1 : i64} : (tensor<1x?x10xf32>) -> tensor<1x?x10xf32>
  // expected-error @+1 {{etch-last-position-output: result 0 is not a projection of the hidden states (edge.linear, edge.weight_only_linear, or edge.mm / edge.addmm between views); it comes from edge.softmax}}
  return %1 : tensor<1x?x10xf32>
}

// -----

// Logits without a sequence dim before the vocabulary.
func.func @no_sequence(%hidden: tensor<8xf32>, %w: tensor<10x8xf32>) -> tensor<10xf32> {
  %0 = edge.linear %hidden, %w : (tensor<8xf32>, tensor<10x8xf32>) -> tensor<10xf32>
  // expected-error @+1 {{etch-last-position-output: result 0 of type 'tensor<10xf32>' has no sequence dim 1 before its last (vocabulary) dim}}
  return %0 : tensor<10xf32>
}

// -----

// A view of an mm whose rows are not flattened hidden states.
func.func @mm_of_argument(%rows: tensor<16x8xf32>, %w: tensor<8x10xf32>) -> tensor<1x16x10xf32> {
  %0 = edge.mm %rows, %w : (tensor<16x8xf32>, tensor<8x10xf32>) -> tensor<16x10xf32>
  %1 = edge.view %0 {size = array<i64: 1, 16, 10>} : (tensor<16x10xf32>) -> tensor<1x16x10xf32>
  // expected-error @+1 {{etch-last-position-output: result 0 is a view of edge.mm whose rows are not the hidden states flattened to [rows, features]}}
  return %1 : tensor<1x16x10xf32>
}
