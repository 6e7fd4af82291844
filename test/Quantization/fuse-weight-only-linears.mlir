// RUN: et-opt %s --etch-fuse-weight-only-linears --split-input-file | FileCheck %s

// Three int4 projections of one input (q/k/v): one op over the tables
// stacked in op order (rows of 0x99, then 0x11, then 0x22), scales stacked
// alike, and a slice of the last dim per former result. A dynamic sequence
// dim stays dynamic.
// CHECK-LABEL: func @qkv
// CHECK-DAG: %[[W:.*]] = edge.constant dense_resource<[[BLOB:weight_only_packed[_0-9]*]]> : tensor<5x32xui8>
// CHECK-DAG: %[[S:.*]] = edge.constant dense<{{\[\[}}5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01], [2.500000e-01, 2.500000e-01], [1.250000e-01, 1.250000e-01], [1.250000e-01, 1.250000e-01]]> : tensor<5x2xf32>
// CHECK: %[[Y:.*]] = edge.weight_only_linear %arg0, %[[W]], %[[S]] {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x?x64xf32>, tensor<5x32xui8>, tensor<5x2xf32>) -> tensor<1x?x5xf32>
// CHECK-NEXT: %[[Q:.*]] = edge.slice %[[Y]] {dim = 2 : i64, end = 2 : i64, start = 0 : i64} : (tensor<1x?x5xf32>) -> tensor<1x?x2xf32>
// CHECK-NEXT: %[[K:.*]] = edge.slice %[[Y]] {dim = 2 : i64, end = 3 : i64, start = 2 : i64} : (tensor<1x?x5xf32>) -> tensor<1x?x1xf32>
// CHECK-NEXT: %[[V:.*]] = edge.slice %[[Y]] {dim = 2 : i64, end = 5 : i64, start = 3 : i64} : (tensor<1x?x5xf32>) -> tensor<1x?x2xf32>
// CHECK-NOT: edge.weight_only_linear
// CHECK: return %[[Q]], %[[K]], %[[V]]
// CHECK: [[BLOB]]: "0x10000000{{(99){64}(11){32}(22){63}22}}"
func.func @qkv(%x: tensor<1x?x64xf32>) -> (tensor<1x?x2xf32>, tensor<1x?x1xf32>, tensor<1x?x2xf32>) {
  %wq = edge.constant dense<153> : tensor<2x32xui8>
  %sq = edge.constant dense<0.5> : tensor<2x2xf32>
  %wk = edge.constant dense<17> : tensor<1x32xui8>
  %sk = edge.constant dense<0.25> : tensor<1x2xf32>
  %wv = edge.constant dense<34> : tensor<2x32xui8>
  %sv = edge.constant dense<0.125> : tensor<2x2xf32>
  %q = edge.weight_only_linear %x, %wq, %sq {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x?x64xf32>, tensor<2x32xui8>, tensor<2x2xf32>) -> tensor<1x?x2xf32>
  %k = edge.weight_only_linear %x, %wk, %sk {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x?x64xf32>, tensor<1x32xui8>, tensor<1x2xf32>) -> tensor<1x?x1xf32>
  %v = edge.weight_only_linear %x, %wv, %sv {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x?x64xf32>, tensor<2x32xui8>, tensor<2x2xf32>) -> tensor<1x?x2xf32>
  return %q, %k, %v : tensor<1x?x2xf32>, tensor<1x?x1xf32>, tensor<1x?x2xf32>
}

// -----

// int8 rows with zero points and biases: all four operands stacked.
// CHECK-LABEL: func @int8_zero_points_and_bias
// CHECK-DAG: %[[W:.*]] = edge.constant dense<{{\[\[}}1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
// CHECK-DAG: %[[S:.*]] = edge.constant dense<{{\[\[}}1.000000e+00], [2.000000e+00], [3.000000e+00]]> : tensor<3x1xf32>
// CHECK-DAG: %[[Z:.*]] = edge.constant dense<{{\[\[}}0], [1], [-1]]> : tensor<3x1xi8>
// CHECK-DAG: %[[B:.*]] = edge.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[Y:.*]] = edge.weight_only_linear %arg0, %[[W]], %[[S]], %[[Z]], %[[B]] {bits = 8 : i64, group_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<4x2xf32>, tensor<3x2xi8>, tensor<3x1xf32>, tensor<3x1xi8>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: edge.slice %[[Y]] {dim = 1 : i64, end = 1 : i64, start = 0 : i64}
// CHECK-NEXT: edge.slice %[[Y]] {dim = 1 : i64, end = 3 : i64, start = 1 : i64}
func.func @int8_zero_points_and_bias(%x: tensor<4x2xf32>) -> (tensor<4x1xf32>, tensor<4x2xf32>) {
  %w1 = edge.constant dense<[[1, 2]]> : tensor<1x2xi8>
  %s1 = edge.constant dense<[[1.0]]> : tensor<1x1xf32>
  %z1 = edge.constant dense<[[0]]> : tensor<1x1xi8>
  %b1 = edge.constant dense<[1.0]> : tensor<1xf32>
  %w2 = edge.constant dense<[[3, 4], [5, 6]]> : tensor<2x2xi8>
  %s2 = edge.constant dense<[[2.0], [3.0]]> : tensor<2x1xf32>
  %z2 = edge.constant dense<[[1], [-1]]> : tensor<2x1xi8>
  %b2 = edge.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %a = edge.weight_only_linear %x, %w1, %s1, %z1, %b1 {bits = 8 : i64, group_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<4x2xf32>, tensor<1x2xi8>, tensor<1x1xf32>, tensor<1x1xi8>, tensor<1xf32>) -> tensor<4x1xf32>
  %b = edge.weight_only_linear %x, %w2, %s2, %z2, %b2 {bits = 8 : i64, group_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<4x2xf32>, tensor<2x2xi8>, tensor<2x1xf32>, tensor<2x1xi8>, tensor<2xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<4x1xf32>, tensor<4x2xf32>
}

// -----

// Left alone: a table another op reads too (stacking would keep two
// copies), another group size, a bias on one side only, another input, and
// a projection with no sibling.
// CHECK-LABEL: func @not_siblings
// CHECK-COUNT-5: edge.weight_only_linear
// CHECK-NOT: edge.weight_only_linear
// CHECK-NOT: edge.slice
func.func @not_siblings(%x: tensor<1x64xf32>, %y: tensor<1x64xf32>, %i: tensor<1xi64>) -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x64xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %tied = edge.constant dense<153> : tensor<1x32xui8>
  %s0 = edge.constant dense<0.5> : tensor<1x2xf32>
  %s1 = edge.constant dense<0.5> : tensor<1x2xf32>
  %s2 = edge.constant dense<0.5> : tensor<1x1xf32>
  %s3 = edge.constant dense<0.5> : tensor<1x2xf32>
  %s4 = edge.constant dense<0.5> : tensor<1x2xf32>
  %s5 = edge.constant dense<0.5> : tensor<1x2xf32>
  %w1 = edge.constant dense<17> : tensor<1x32xui8>
  %w2 = edge.constant dense<17> : tensor<1x32xui8>
  %w3 = edge.constant dense<17> : tensor<1x32xui8>
  %w4 = edge.constant dense<17> : tensor<1x32xui8>
  %bias = edge.constant dense<1.0> : tensor<1xf32>
  %a = edge.weight_only_linear %x, %tied, %s0 {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x64xf32>, tensor<1x32xui8>, tensor<1x2xf32>) -> tensor<1x1xf32>
  %e = edge.weight_only_embedding %tied, %s1, %i {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x32xui8>, tensor<1x2xf32>, tensor<1xi64>) -> tensor<1x64xf32>
  %b = edge.weight_only_linear %x, %w1, %s2 {bits = 4 : i64, group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x64xf32>, tensor<1x32xui8>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %c = edge.weight_only_linear %x, %w2, %s3, %bias {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>} : (tensor<1x64xf32>, tensor<1x32xui8>, tensor<1x2xf32>, tensor<1xf32>) -> tensor<1x1xf32>
  %d = edge.weight_only_linear %y, %w3, %s4 {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x64xf32>, tensor<1x32xui8>, tensor<1x2xf32>) -> tensor<1x1xf32>
  %f = edge.weight_only_linear %x, %w4, %s5 {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x64xf32>, tensor<1x32xui8>, tensor<1x2xf32>) -> tensor<1x1xf32>
  return %a, %b, %e, %c, %d, %f : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x64xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}
