// RUN: et-opt %s -split-input-file -etch-partition="targets=xnnpack,portable" | FileCheck %s

// Supported ops become one delegate; constants they use are cloned inside;
// an op XNNPACK cannot run (hardtanh on int? here: log_softmax) stays outside.
// CHECK-LABEL: func @supported_and_fallback
// CHECK: %[[D:.*]] = edge.delegate "xnnpack"(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x4xf32> {
// CHECK: edge.constant {{.*}} : tensor<4x3x3x3xf32>
// CHECK: edge.convolution
// CHECK: edge.relu
// CHECK: edge.adaptive_avg_pool2d
// CHECK: edge.view
// CHECK: edge.delegate_return
// CHECK: }
// CHECK: edge.log_softmax %[[D]]
func.func @supported_and_fallback(%x: tensor<1x3x8x8xf32>) -> tensor<1x4xf32> {
  %w = edge.constant dense<0.1> : tensor<4x3x3x3xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = edge.relu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = edge.adaptive_avg_pool2d %1 {output_size = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %3 = edge.view %2 {size = array<i64: 1, 4>} : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  %4 = edge.log_softmax %3 {dim = 1 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %4 : tensor<1x4xf32>
}

// -----

// Convexity: B depends on A through an op XNNPACK cannot run (sum), so A and
// B may not share a delegate (that would make delegate -> sum -> delegate a
// cycle); a residual add whose inputs are all in one group joins it.
// CHECK-LABEL: func @convexity
// CHECK: %[[A:.*]] = edge.delegate "xnnpack"(%arg0)
// CHECK: edge.relu
// CHECK: edge.sigmoid
// CHECK: edge.add
// CHECK: edge.delegate_return
// CHECK: %[[S:.*]] = edge.sum %[[A]]
// CHECK: edge.delegate "xnnpack"(%[[A]], %[[S]])
// CHECK: edge.mul
// CHECK: return
func.func @convexity(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = edge.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %b = edge.sigmoid %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = edge.add %a, %b : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = edge.sum %r {dim = array<i64: 1>, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %m = edge.mul %r, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %m : tensor<2x8xf32>
}

// -----

// Branches from the method's inputs have no common producer: the op that
// joins them merges their groups into one delegate.
// CHECK-LABEL: func @sibling_branches
// CHECK: edge.delegate "xnnpack"(%arg0, %arg1)
// CHECK: edge.relu
// CHECK: edge.sigmoid
// CHECK: edge.add
// CHECK: edge.delegate_return
// CHECK-NOT: edge.delegate
// CHECK: return
func.func @sibling_branches(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = edge.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %b = edge.sigmoid %y : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = edge.add %a, %b : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// Groups are not merged when one reaches the other through an op outside
// (here a sum): that would be a cycle. The add joins the larger group.
// CHECK-LABEL: func @dependent_branches
// CHECK: %[[A:.*]] = edge.delegate "xnnpack"(%arg0)
// CHECK: edge.relu
// CHECK: edge.delegate_return
// CHECK: %[[S:.*]] = edge.sum %[[A]]
// CHECK: edge.delegate "xnnpack"(%[[S]], %[[A]])
// CHECK: edge.sigmoid
// CHECK: edge.neg
// CHECK: edge.add
// CHECK: return
func.func @dependent_branches(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = edge.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = edge.sum %a {dim = array<i64: 1>, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %b = edge.sigmoid %s : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = edge.neg %b : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %r = edge.add %a, %n : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// Unsupported forms stay outside: transposed convolution, a reshape of an
// NCHW tensor whose H and W are not 1 (layout-dependent), int64 arithmetic,
// elu with a scale (XNNPACK's elu has alpha only).
// CHECK-LABEL: func @unsupported
// CHECK-NOT: edge.delegate
// CHECK: return
func.func @unsupported(%x: tensor<1x4x5x5xf32>, %i: tensor<4xi64>) -> (tensor<1x3x10x10xf32>, tensor<1x100xf32>, tensor<4xi64>, tensor<1x4x5x5xf32>) {
  %w = edge.constant dense<0.1> : tensor<4x3x3x3xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
  %1 = edge.view %x {size = array<i64: 1, 100>} : (tensor<1x4x5x5xf32>) -> tensor<1x100xf32>
  %2 = edge.add %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %3 = edge.elu %x {scale = 2.0 : f64} : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  return %0, %1, %2, %3 : tensor<1x3x10x10xf32>, tensor<1x100xf32>, tensor<4xi64>, tensor<1x4x5x5xf32>
}

// -----

// An unknown target is an error naming the known ones.
// RUN: not et-opt %s -etch-partition="targets=npu" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown target 'npu'; targets are: {{.*}}xnnpack{{.*}} portable
func.func @unknown(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = edge.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A group is one op once outlined: %t reads group A, which later takes in
// a2, which reads B through %z. So %t depends on B, and %y (reading %t and
// b1) may not join B: delegate B -> %z -> delegate A -> %t -> delegate B
// would be a cycle.
// CHECK-LABEL: func @dependence_through_later_members
// CHECK: %[[B:.*]] = edge.delegate "xnnpack"(%arg1)
// CHECK: %[[Z:.*]] = edge.tanh %[[B]]
// CHECK: %[[A:.*]]:2 = edge.delegate "xnnpack"(%arg0, %[[Z]])
// CHECK: %[[T:.*]] = edge.tanh %[[A]]#0
// CHECK: edge.delegate "xnnpack"(%[[T]], %[[B]])
// CHECK: edge.mul
func.func @dependence_through_later_members(%x: tensor<2x8xf32>, %w: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %a1 = edge.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %b1 = edge.relu %w : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = edge.tanh %a1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %z = edge.tanh %b1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a2 = edge.add %a1, %z : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = edge.mul %t, %b1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %a2, %y : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// A group depends on what any of its members reads: C = {sigmoid, mul}
// reads D = {relu, sigmoid, relu} through the sum (mul's input), though
// its first member reads only %x. So the add reading both D and C's
// sigmoid may not join D, the larger group (D -> sum -> C -> D would be a
// cycle); it joins C.
// CHECK-LABEL: func @member_dependence
// CHECK: %[[D:.*]] = edge.delegate "xnnpack"(%arg0)
// CHECK-COUNT-2: edge.relu
// CHECK: edge.delegate_return
// CHECK: %[[S:.*]] = edge.sum %[[D]]
// CHECK: %[[C:.*]]:2 = edge.delegate "xnnpack"(%arg0, %[[S]], %[[D]])
// CHECK: edge.sigmoid
// CHECK: edge.mul
// CHECK: edge.add
// CHECK: edge.delegate_return
// CHECK: return %[[C]]#0, %[[C]]#1
func.func @member_dependence(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %d0 = edge.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %d1 = edge.sigmoid %d0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %d2 = edge.relu %d1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = edge.sum %d2 {dim = array<i64: 1>, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %c2 = edge.sigmoid %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %c1 = edge.mul %c2, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = edge.add %d2, %c2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %c1, %y : tensor<2x8xf32>, tensor<2x8xf32>
}
