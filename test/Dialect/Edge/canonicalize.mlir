// RUN: et-opt %s -split-input-file -canonicalize | FileCheck %s

// view of view collapses into one view of the original input.
// CHECK-LABEL: func @view_of_view
// CHECK-NEXT: %[[V:.*]] = edge.view %arg0 {size = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: return %[[V]]
func.func @view_of_view(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = edge.view %x {size = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = edge.view %0 {size = array<i64: 6, 4>} : (tensor<24xf32>) -> tensor<6x4xf32>
  return %1 : tensor<6x4xf32>
}

// -----

// A view to the same type is the identity.
// CHECK-LABEL: func @view_identity
// CHECK-NEXT: return %arg0
func.func @view_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = edge.view %x {size = array<i64: 2, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// squeeze/unsqueeze with static results become views, which then collapse.
// CHECK-LABEL: func @squeeze_unsqueeze_chain
// CHECK-NEXT: %[[V:.*]] = edge.view %arg0 {size = array<i64: 3, 1, 4>} : (tensor<1x3x4xf32>) -> tensor<3x1x4xf32>
// CHECK-NEXT: return %[[V]]
func.func @squeeze_unsqueeze_chain(%x: tensor<1x3x4xf32>) -> tensor<3x1x4xf32> {
  %0 = edge.squeeze %x {dim = array<i64: 0>} : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
  %1 = edge.unsqueeze %0 {dim = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
  return %1 : tensor<3x1x4xf32>
}

// -----

// Squeezing a dim that is not size 1 changes nothing.
// CHECK-LABEL: func @squeeze_identity
// CHECK-NEXT: return %arg0
func.func @squeeze_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = edge.squeeze %x {dim = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The identity permutation folds away (negative dims normalized).
// CHECK-LABEL: func @permute_identity
// CHECK-NEXT: return %arg0
func.func @permute_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = edge.permute %x {dims = array<i64: 0, 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Two permutations compose into one; NCHW->NHWC->NCHW disappears.
// CHECK-LABEL: func @permute_compose
// CHECK-NEXT: %[[P:.*]] = edge.permute %arg0 {dims = array<i64: 0, 3, 1, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
// CHECK-NEXT: return %arg0, %[[P]]
func.func @permute_compose(%x: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x4x2x3xf32>) {
  %0 = edge.permute %x {dims = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %1 = edge.permute %0 {dims = array<i64: 0, 3, 1, 2>} : (tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  %2 = edge.permute %x {dims = array<i64: 0, 3, 1, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  return %1, %2 : tensor<1x2x3x4xf32>, tensor<1x4x2x3xf32>
}

// -----

// transpose becomes a permute; transposing a dim with itself is identity.
// CHECK-LABEL: func @transpose
// CHECK-NEXT: %[[P:.*]] = edge.permute %arg0 {dims = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %arg0, %[[P]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>) {
  %0 = edge.transpose %x {dim0 = 1 : i64, dim1 = -2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = edge.transpose %x {dim0 = 0 : i64, dim1 = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<4x3x2xf32>
}

// -----

// Shape ops of constants fold: reshapes keep the data, permutes reorder it.
// CHECK-LABEL: func @constant_shape_folding
// CHECK-DAG: edge.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: edge.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG: edge.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<1x6xf32>
// CHECK-DAG: edge.constant dense<{{\[}}[2.000000e+00, 3.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: edge.view
// CHECK-NOT: edge.permute
// CHECK-NOT: edge.transpose
// CHECK-NOT: edge.unsqueeze
// CHECK-NOT: edge.slice
func.func @constant_shape_folding() -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<1x6xf32>, tensor<2x2xf32>) {
  %c = edge.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %0 = edge.view %c {size = array<i64: 2, 3>} : (tensor<6xf32>) -> tensor<2x3xf32>
  %1 = edge.transpose %0 {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = edge.unsqueeze %c {dim = 0 : i64} : (tensor<6xf32>) -> tensor<1x6xf32>
  %3 = edge.slice %0 {dim = 1 : i64, start = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<1x6xf32>, tensor<2x2xf32>
}

// -----

// Reshaping a dense_resource weight keeps the blob (no copy).
// CHECK-LABEL: func @resource_reshape
// CHECK-NEXT: %[[C:.*]] = edge.constant dense_resource<blob> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @resource_reshape() -> tensor<2x2xf32> {
  %c = edge.constant dense_resource<blob> : tensor<4xf32>
  %0 = edge.view %c {size = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// A single-tensor cat, a full slice and a same-shape expand are identities;
// expanding a splat constant stays a splat.
// CHECK-LABEL: func @identities
// CHECK-DAG: %[[S:.*]] = edge.constant dense<2.000000e+00> : tensor<3x4xf32>
// CHECK: return %arg0, %arg0, %arg0, %[[S]]
func.func @identities(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = edge.cat %x {dim = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = edge.slice %x {dim = 1 : i64, start = 0 : i64, end = 100 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = edge.expand %x {size = array<i64: 3, -1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %c = edge.constant dense<2.0> : tensor<1x4xf32>
  %3 = edge.expand %c {size = array<i64: 3, 4>} : (tensor<1x4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// Dynamic shapes are left alone.
// CHECK-LABEL: func @dynamic_squeeze_kept
// CHECK: edge.unsqueeze
func.func @dynamic_squeeze_kept(%x: tensor<?x4xf32>) -> tensor<?x1x4xf32> {
  %0 = edge.unsqueeze %x {dim = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x1x4xf32>
  return %0 : tensor<?x1x4xf32>
}

// -----

// A slice of a dynamic dim keeps its type but not its extent: only a slice
// of everything folds away.
// CHECK-LABEL: func @dynamic_slices
// CHECK: %[[LAST:.*]] = edge.slice %arg0 {dim = 1 : i64, start = -1 : i64}
// CHECK: return %[[LAST]], %arg0
func.func @dynamic_slices(%x: tensor<1x?x8xf32>) -> (tensor<1x?x8xf32>, tensor<1x?x8xf32>) {
  %0 = edge.slice %x {dim = 1 : i64, start = -1 : i64} : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  %1 = edge.slice %x {dim = 1 : i64, start = 0 : i64, end = 9223372036854775807 : i64} : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  return %0, %1 : tensor<1x?x8xf32>, tensor<1x?x8xf32>
}

// -----

// A slice with a negative dim folds on constants (dim is normalized first).
// CHECK-LABEL: func @slice_negative_dim
// CHECK-NEXT: %[[C:.*]] = edge.constant dense<{{\[}}[2.000000e+00], [4.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT: return %[[C]]
func.func @slice_negative_dim() -> tensor<2x1xf32> {
  %c = edge.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = edge.slice %c {dim = -1 : i64, start = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// Transposing a dense_resource weight (its only use) folds at compile time
// into a new blob: row 0 of the result is column 0 of the source.
// CHECK-LABEL: func @resource_transpose
// CHECK-NEXT: %[[C:.*]] = edge.constant dense<{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @resource_transpose() -> tensor<2x2xf32> {
  %c = edge.constant dense_resource<square> : tensor<2x2xf32>
  %0 = edge.transpose %c {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      square: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// A permuted dequantized constant becomes the dequantize of the permuted
// quantized constant (a per-axis type's axis follows its dim), so int8
// weights transposed by a decomposed linear stay int8 weights.
// CHECK-LABEL: func @permute_dequantized_constant
// CHECK-NEXT: %[[Q:.*]] = edge.constant dense<{{\[}}[1, 3], [2, 4]]> : tensor<2x2xi8> as tensor<2x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01}>>
// CHECK-NEXT: %[[D:.*]] = edge.dequantize %[[Q]]
// CHECK-NEXT: return %[[D]]
func.func @permute_dequantized_constant() -> tensor<2x2xf32> {
  %c = edge.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8> as tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %d = edge.dequantize %c : tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<2x2xf32>
  %0 = edge.permute %d {dims = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// DenseNet-style concatenations reuse the longest earlier concatenation of
// a prefix of their inputs (same dim); other dims, orders and later cats are
// left alone.
// CHECK-LABEL: func @cat_of_earlier_prefix
// CHECK: %[[C1:.*]] = edge.cat %arg0, %arg1 {dim = 1 : i64}
// CHECK: %[[C2:.*]] = edge.cat %[[C1]], %arg2 {dim = 1 : i64}
// CHECK: %[[C3:.*]] = edge.cat %[[C2]], %arg3 {dim = 1 : i64}
// CHECK: %[[D:.*]] = edge.cat %arg0, %arg1, %arg2 :
// CHECK: %[[R:.*]] = edge.cat %arg1, %arg0, %arg2 {dim = 1 : i64}
// CHECK: return %[[C1]], %[[C2]], %[[C3]], %[[D]], %[[R]]
func.func @cat_of_earlier_prefix(%a: tensor<1x2xf32>, %b: tensor<1x2xf32>, %c: tensor<1x2xf32>, %d: tensor<1x2xf32>) -> (tensor<1x4xf32>, tensor<1x6xf32>, tensor<1x8xf32>, tensor<3x2xf32>, tensor<1x6xf32>) {
  %0 = edge.cat %a, %b {dim = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
  %1 = edge.cat %a, %b, %c {dim = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x6xf32>
  %2 = edge.cat %a, %b, %c, %d {dim = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x8xf32>
  %3 = edge.cat %a, %b, %c {dim = 0 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %4 = edge.cat %b, %a, %c {dim = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x6xf32>
  return %0, %1, %2, %3, %4 : tensor<1x4xf32>, tensor<1x6xf32>, tensor<1x8xf32>, tensor<3x2xf32>, tensor<1x6xf32>
}

// -----

// A constant 1-D bias added to a bias-free linear (ONNX MatMul + Add) becomes
// the linear's bias, on either side of the add; a linear with another use,
// a broadcast bias of another rank and a run-time bias stay as they are.
// CHECK-LABEL: func @add_bias_into_linear
// CHECK-DAG: %[[W:.*]] = edge.constant dense<1.000000e+00> : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = edge.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK: %[[L1:.*]] = edge.linear %arg0, %[[W]], %[[B]]
// CHECK: %[[L2:.*]] = edge.linear %arg0, %[[W]], %[[B]]
// CHECK: %[[L3:.*]] = edge.linear %arg0, %[[W]] :
// CHECK: edge.add %[[L3]], %[[B]]
// CHECK: %[[L4:.*]] = edge.linear %arg0, %[[W]] :
// CHECK: edge.add %[[L4]], %arg1
// CHECK: %[[L5:.*]] = edge.linear %arg0, %[[W]] :
// CHECK: edge.add %[[L5]], {{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>)
func.func @add_bias_into_linear(%x: tensor<2x4xf32>, %r: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = edge.constant dense<1.0> : tensor<3x4xf32>
  %b = edge.constant dense<0.5> : tensor<3xf32>
  %b2 = edge.constant dense<0.5> : tensor<1x3xf32>
  %0 = edge.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %1 = edge.add %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = edge.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %3 = edge.add %b, %2 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = edge.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %5 = edge.add %4, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = edge.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %7 = edge.add %6, %r : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = edge.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %9 = edge.add %8, %b2 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %1, %3, %4, %5, %7, %9 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
