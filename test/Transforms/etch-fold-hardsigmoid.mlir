// RUN: et-opt %s -split-input-file -etch-fold-hardsigmoid | FileCheck %s

// hardsigmoid after a constant conv: W' = W / 6, b' = b / 6 + 0.5, and a
// [0, 1] hardtanh remains (max_val 1 is hardtanh's default, not printed).
// CHECK-LABEL: func @fold
// CHECK-DAG: %[[W:.*]] = edge.constant dense<{{\[}}[{{\[}}[1.000000e+00]]], {{\[}}[{{\[}}-2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = edge.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK: %[[C:.*]] = edge.convolution %arg0, %[[W]], %[[B]]
// CHECK: %[[H:.*]] = edge.hardtanh %[[C]] {min_val = 0.000000e+00 : f64} :
// CHECK-NOT: edge.hardsigmoid
// CHECK: return %[[H]]
func.func @fold(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = edge.constant dense<[[[[6.0]]], [[[-12.0]]]]> : tensor<2x1x1x1xf32>
  %b = edge.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = edge.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.hardsigmoid %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Without a conv bias the new bias is 0.5.
// CHECK-LABEL: func @no_bias
// CHECK-DAG: edge.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK: edge.hardtanh
// CHECK-NOT: edge.hardsigmoid
func.func @no_bias(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = edge.constant dense<[[[[6.0]]], [[[-12.0]]]]> : tensor<2x1x1x1xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.hardsigmoid %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Not folded: the conv has another user, or its weight is not a constant.
// CHECK-LABEL: func @keep
// CHECK-COUNT-2: edge.hardsigmoid
func.func @keep(%x: tensor<1x1x4x4xf32>, %w2: tensor<2x1x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = edge.constant dense<[[[[6.0]]], [[[-12.0]]]]> : tensor<2x1x1x1xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.hardsigmoid %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = edge.convolution %x, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %3 = edge.hardsigmoid %2 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %0, %1, %3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
