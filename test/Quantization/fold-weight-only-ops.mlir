// RUN: et-opt %s --etch-fold-weight-only-ops --split-input-file | FileCheck %s

// int8 per output channel: linear over a dequantized constant becomes one
// weight-only op; the weight stays int8, one scale per row; the bias stays.
// CHECK-LABEL: func @int8_per_channel
// CHECK-DAG: %[[W:.*]] = edge.constant dense<{{\[\[}}1, -2, 3, -4], [5, 6, 7, 8]]> : tensor<2x4xi8>
// CHECK-DAG: %[[S:.*]] = edge.constant dense<{{\[\[}}5.000000e-01], [2.500000e-01]]> : tensor<2x1xf32>
// CHECK: edge.weight_only_linear %arg0, %[[W]], %[[S]], %{{.*}} {bits = 8 : i64, group_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>} : (tensor<3x4xf32>, tensor<2x4xi8>, tensor<2x1xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK-NOT: edge.dequantize
// CHECK-NOT: edge.linear
func.func @int8_per_channel(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %q = edge.constant dense<[[1, -2, 3, -4], [5, 6, 7, 8]]> : tensor<2x4xi8> as tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %w = edge.dequantize %q : tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>> -> tensor<2x4xf32>
  %b = edge.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %y = edge.linear %x, %w, %b : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// int4 values (-8..7) per group of 32: two per byte, each stored as value
// + 8 (1 -> 9: bytes 0x99).
// CHECK-LABEL: func @int4_groups
// CHECK-DAG: %[[W:.*]] = edge.constant dense<153> : tensor<2x32xui8>
// CHECK-DAG: %[[S:.*]] = edge.constant dense<5.000000e-01> : tensor<2x2xf32>
// CHECK: edge.weight_only_linear %arg0, %[[W]], %[[S]] {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}
// CHECK-NOT: edge.dequantize_per_channel_group
func.func @int4_groups(%x: tensor<5x64xf32>) -> tensor<5x2xf32> {
  %q = edge.constant dense<1> : tensor<2x64xi8>
  %s = edge.constant dense<0.5> : tensor<2x2xf32>
  %w = edge.dequantize_per_channel_group %q, %s {group_size = 32 : i64, quant_min = -8 : i64, quant_max = 7 : i64} : (tensor<2x64xi8>, tensor<2x2xf32>) -> tensor<2x64xf32>
  %y = edge.linear %x, %w : (tensor<5x64xf32>, tensor<2x64xf32>) -> tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}

// -----

// mm and addmm read W^T: a permute of the dequantized weight (the core-ATen
// form of linear) or a dequantize along dim 1; the bias of addmm is kept.
// One packed copy serves both ops reading the same weight. An int8 weight
// stays 8 bits though its values would fit in 4.
// CHECK-LABEL: func @transposed
// CHECK: %[[W:.*]] = edge.constant dense<153> : tensor<2x32xui8>
// CHECK: edge.weight_only_linear %arg0, %[[W]], %{{.*}} {bits = 4 : i64, group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}
// CHECK: edge.weight_only_linear %arg0, %[[W]], %{{.*}}, %{{.*}} {bits = 4 : i64, group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}
// CHECK: %[[W8:.*]] = edge.constant dense_resource<{{.*}}> : tensor<3x64xi8>
// CHECK: edge.weight_only_linear %arg0, %[[W8]], %{{.*}} {bits = 8 : i64, group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x64xf32>, tensor<3x64xi8>, tensor<3x1xf32>) -> tensor<1x3xf32>
// CHECK-NOT: edge.permute
// CHECK-NOT: edge.mm
// CHECK-NOT: edge.addmm
func.func @transposed(%x: tensor<1x64xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x3xf32>) {
  %q = edge.constant dense<1> : tensor<2x64xi8>
  %s = edge.constant dense<0.5> : tensor<2x1xf32>
  %w = edge.dequantize_per_channel_group %q, %s {group_size = 64 : i64, quant_min = -8 : i64, quant_max = 7 : i64} : (tensor<2x64xi8>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %wt = edge.permute %w {dims = array<i64: 1, 0>} : (tensor<2x64xf32>) -> tensor<64x2xf32>
  %a = edge.mm %x, %wt : (tensor<1x64xf32>, tensor<64x2xf32>) -> tensor<1x2xf32>
  %b = edge.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = edge.addmm %b, %x, %wt : (tensor<2xf32>, tensor<1x64xf32>, tensor<64x2xf32>) -> tensor<1x2xf32>
  %q8 = edge.constant dense<3> : tensor<64x3xi8> as tensor<64x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>
  %w8 = edge.dequantize %q8 : tensor<64x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>> -> tensor<64x3xf32>
  %d = edge.mm %x, %w8 : (tensor<1x64xf32>, tensor<64x3xf32>) -> tensor<1x3xf32>
  return %a, %c, %d : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x3xf32>
}

// -----

// An embedding of a dequantized table: the picked rows are dequantized.
// Unsigned storage (uint4 0..15 with zero point 8) moves down with its zero
// points: values -8..7, zero points 0, dropped.
// CHECK-LABEL: func @embedding
// CHECK: edge.weight_only_embedding %{{.*}}, %{{.*}}, %arg0 {bits = 4 : i64, group_size = 32 : i64} : (tensor<4x16xui8>, tensor<4x1xf32>, tensor<3xi64>) -> tensor<3x32xf32>
func.func @embedding(%ids: tensor<3xi64>) -> tensor<3x32xf32> {
  %q = edge.constant dense<9> : tensor<4x32xi8>
  %s = edge.constant dense<0.5> : tensor<4x1xf32>
  %z = edge.constant dense<8> : tensor<4x1xi8>
  %w = edge.dequantize_per_channel_group %q, %s, %z {group_size = 32 : i64, quant_min = 0 : i64, quant_max = 15 : i64} : (tensor<4x32xi8>, tensor<4x1xf32>, tensor<4x1xi8>) -> tensor<4x32xf32>
  %e = edge.embedding %w, %ids : (tensor<4x32xf32>, tensor<3xi64>) -> tensor<3x32xf32>
  return %e : tensor<3x32xf32>
}

// -----

// int4 values whose rows are not whole 32-column blocks stay 8 bits, with
// their groups and zero points.
// CHECK-LABEL: func @narrow_rows
// CHECK: edge.weight_only_linear %arg0, %{{.*}}, %{{.*}}, %{{.*}} {bits = 8 : i64, group_size = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<2x16xf32>, tensor<3x16xi8>, tensor<3x2xf32>, tensor<3x2xi8>) -> tensor<2x3xf32>
func.func @narrow_rows(%x: tensor<2x16xf32>) -> tensor<2x3xf32> {
  %q = edge.constant dense<-3> : tensor<3x16xi8>
  %s = edge.constant dense<0.5> : tensor<3x2xf32>
  %z = edge.constant dense<1> : tensor<3x2xi32>
  %w = edge.dequantize_per_channel_group %q, %s, %z {group_size = 8 : i64, quant_min = -8 : i64, quant_max = 7 : i64} : (tensor<3x16xi8>, tensor<3x2xf32>, tensor<3x2xi32>) -> tensor<3x16xf32>
  %y = edge.linear %x, %w : (tensor<2x16xf32>, tensor<3x16xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Weights dequantized from run-time values, and quantized activations (a
// static int8 pattern, etch-fold-quantized-ops' business), are left alone.
// CHECK-LABEL: func @left_alone
// CHECK: edge.linear %arg0
// CHECK: edge.linear %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<3x4xf32>)
func.func @left_alone(%x: tensor<2x4xf32>, %q: tensor<3x4xi8>, %s: tensor<3x1xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = edge.dequantize_per_channel_group %q, %s {group_size = 4 : i64, quant_min = -8 : i64, quant_max = 7 : i64} : (tensor<3x4xi8>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %a = edge.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %c = edge.constant dense<0.25> : tensor<3x4xf32>
  %b = edge.linear %x, %c : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}
