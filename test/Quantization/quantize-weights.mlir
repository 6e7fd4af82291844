// RUN: et-opt %s --split-input-file --etch-quantize-weights | FileCheck %s --check-prefix=INT8
// RUN: et-opt %s --split-input-file --etch-quantize-weights="bits=4 group-size=32" | FileCheck %s --check-prefix=INT4
// RUN: et-opt %s --split-input-file --etch-quantize-weights="bits=4 group-size=32" --etch-fold-weight-only-ops | FileCheck %s --check-prefix=PACKED
// RUN: not et-opt %s --split-input-file --etch-quantize-weights="bits=4 group-size=48" 2>&1 | FileCheck %s --check-prefix=BAD-GROUP

// A linear's constant weight: int8 per output channel, scale max|w| / 127
// (row 0: max 1.27 -> 0.01, 100 * 0.01 = 1.0 -> 100), symmetric range.
// int4 per group of 32 columns: the value of largest magnitude maps to -8
// (row 0: 1.27 -> scale -0.15875; 1.0 -> -6), then packed as value + 8.
// INT8-LABEL: func @linear
// INT8: %[[Q:.*]] = edge.constant dense<{{\[\[}}127, 100, {{.*}} : tensor<2x32xi8> as tensor<2x32x!quant.uniform<i8<-127:127>:f32:0, {0.0099999{{[0-9]+}},0.0499999{{[0-9]+}}}>>
// INT8: %[[W:.*]] = edge.dequantize %[[Q]]
// INT8: edge.linear %arg0, %[[W]]
// INT4-LABEL: func @linear
// INT4: %[[Q:.*]] = edge.constant dense<{{\[\[}}-8, -6, -6, {{.*}}], [-8, -1, -1, {{.*}} : tensor<2x32xi8>
// INT4: %[[S:.*]] = edge.constant dense<{{\[\[}}-1.587500e-01], [-0.793749988]]> : tensor<2x1xf32>
// INT4: %[[W:.*]] = edge.dequantize_per_channel_group %[[Q]], %[[S]] {group_size = 32 : i64, quant_max = 7 : i64, quant_min = -8 : i64}
// INT4: edge.linear %arg0, %[[W]]
// PACKED-LABEL: func @linear
// PACKED: edge.weight_only_linear %arg0, %{{.*}}, %{{.*}} {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<3x32xf32>, tensor<2x16xui8>, tensor<2x1xf32>) -> tensor<3x2xf32>
func.func @linear(%x: tensor<3x32xf32>) -> tensor<3x2xf32> {
  %w = edge.constant dense<[[1.27, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                             1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                            [6.35, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                             1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<2x32xf32>
  %y = edge.linear %x, %w : (tensor<3x32xf32>, tensor<2x32xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// mm and addmm read W^T: the weight is quantized along its rows of W (dim
// 1 of the operand) and given back transposed; an embedding's table too.
// One quantized copy per weight and use.
// INT8-LABEL: func @transposed_and_embedding
// INT8: edge.constant {{.*}} : tensor<3x32xi8> as tensor<3x32x!quant.uniform<i8<-127:127>:f32:0
// INT8: edge.dequantize
// INT8: %[[T:.*]] = edge.permute %{{.*}} {dims = array<i64: 1, 0>} : (tensor<3x32xf32>) -> tensor<32x3xf32>
// INT8: edge.mm %arg0, %[[T]]
// INT8: edge.addmm %{{.*}}, %arg0, %[[T]]
// INT8: edge.embedding
// INT4-LABEL: func @transposed_and_embedding
// INT4-COUNT-2: edge.dequantize_per_channel_group
// INT4-NOT: edge.dequantize_per_channel_group
func.func @transposed_and_embedding(%x: tensor<1x32xf32>, %ids: tensor<2xi64>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<2x32xf32>) {
  %w = edge.constant dense<0.5> : tensor<32x3xf32>
  %b = edge.constant dense<1.0> : tensor<3xf32>
  %m = edge.mm %x, %w : (tensor<1x32xf32>, tensor<32x3xf32>) -> tensor<1x3xf32>
  %a = edge.addmm %b, %x, %w : (tensor<3xf32>, tensor<1x32xf32>, tensor<32x3xf32>) -> tensor<1x3xf32>
  %table = edge.constant dense<0.25> : tensor<10x32xf32>
  %e = edge.embedding %table, %ids : (tensor<10x32xf32>, tensor<2xi64>) -> tensor<2x32xf32>
  return %m, %a, %e : tensor<1x3xf32>, tensor<1x3xf32>, tensor<2x32xf32>
}

// -----

// Rows that group-size does not divide stay float under int4; weights that
// are not constants are left alone.
// INT4-LABEL: func @left_float
// INT4-NOT: edge.dequantize_per_channel_group
// INT4: edge.linear %arg0, %{{.*}} : (tensor<2x40xf32>, tensor<4x40xf32>)
// INT4: edge.linear %arg0, %arg1
func.func @left_float(%x: tensor<2x40xf32>, %w2: tensor<4x40xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = edge.constant dense<0.5> : tensor<4x40xf32>
  %a = edge.linear %x, %w : (tensor<2x40xf32>, tensor<4x40xf32>) -> tensor<2x4xf32>
  %b = edge.linear %x, %w2 : (tensor<2x40xf32>, tensor<4x40xf32>) -> tensor<2x4xf32>
  return %a, %b : tensor<2x4xf32>, tensor<2x4xf32>
}

// BAD-GROUP: error: etch-quantize-weights: int4 group-size must be a positive multiple of 32, got 48
