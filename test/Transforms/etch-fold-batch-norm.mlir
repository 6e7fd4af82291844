// RUN: et-opt %s -split-input-file -etch-fold-batch-norm | FileCheck %s

// batch_norm after a constant conv folds into new weights and bias:
// scale = gamma / sqrt(var + eps) = [0.5, 2], W' = W * scale, b' = (b - mean) * scale + beta.
// CHECK-LABEL: func @fold
// CHECK-DAG: %[[W:.*]] = edge.constant dense<{{\[}}[{{\[}}[1.000000e+00]]], {{\[}}[{{\[}}8.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = edge.constant dense<[0.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = edge.convolution %arg0, %[[W]], %[[B]]
// CHECK-NOT: edge.batch_norm
// CHECK: return %[[C]]
func.func @fold(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = edge.constant dense<[[[[2.0]]], [[[4.0]]]]> : tensor<2x1x1x1xf32>
  %b = edge.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %gamma = edge.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = edge.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %mean = edge.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = edge.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = edge.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.batch_norm %0 weight %gamma bias %beta mean %mean var %var {eps = 1.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Without conv bias and batch-norm affine parameters, ATen's defaults apply:
// scale = 1 / sqrt(3 + 1) = 0.5, b' = -mean * scale.
// CHECK-LABEL: func @fold_defaults
// CHECK-DAG: edge.constant dense<{{\[}}[{{\[}}[1.000000e+00]]], {{\[}}[{{\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: edge.constant dense<[-5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK-NOT: edge.batch_norm
func.func @fold_defaults(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = edge.constant dense<[[[[2.0]]], [[[4.0]]]]> : tensor<2x1x1x1xf32>
  %mean = edge.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = edge.constant dense<3.0> : tensor<2xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.batch_norm %0 mean %mean var %var {eps = 1.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// A conv whose result is also used elsewhere is not folded: the norm becomes
// a per-channel multiply and add, scale = 1 / sqrt(1 + 1e-5), shift = -scale.
// CHECK-LABEL: func @conv_has_other_use
// CHECK-DAG: %[[S:.*]] = edge.constant dense<0.99999{{[0-9]*}}> : tensor<2x1x1xf32>
// CHECK-DAG: %[[T:.*]] = edge.constant dense<-0.99999{{[0-9]*}}> : tensor<2x1x1xf32>
// CHECK: %[[C:.*]] = edge.convolution
// CHECK: %[[M:.*]] = edge.mul %[[C]], %[[S]]
// CHECK: %[[A:.*]] = edge.add %[[M]], %[[T]]
// CHECK-NOT: edge.batch_norm
// CHECK: return %[[C]], %[[A]]
func.func @conv_has_other_use(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = edge.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = edge.constant dense<1.0> : tensor<2xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.batch_norm %0 mean %p var %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %0, %1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Non-constant statistics are not folded.
// CHECK-LABEL: func @runtime_statistics
// CHECK: edge.batch_norm
func.func @runtime_statistics(%x: tensor<1x1x4x4xf32>, %mean: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = edge.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = edge.constant dense<1.0> : tensor<2xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.batch_norm %0 mean %mean var %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Weights stored as dense_resource blobs fold too; large results stay blobs.
// CHECK-LABEL: func @resource_weights
// CHECK: edge.constant dense_resource<folded_conv_weight{{.*}}> : tensor<2x8x3x3xf32>
// CHECK-NOT: edge.batch_norm
func.func @resource_weights(%x: tensor<1x8x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = edge.constant dense<0.5> : tensor<2x8x3x3xf32>
  %p = edge.constant dense<1.0> : tensor<2xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<2x8x3x3xf32>) -> tensor<1x2x2x2xf32>
  %1 = edge.batch_norm %0 mean %p var %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %1 : tensor<1x2x2x2xf32>
}
