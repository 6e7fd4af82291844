// RUN: et-opt %s | et-opt | FileCheck %s
// RUN: et-opt %s --mlir-print-op-generic | et-opt | FileCheck %s

// Constants: inline dense values and dense_resource blobs.
// CHECK-LABEL: func @constant
// CHECK: edge.constant dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
// CHECK: edge.constant dense_resource<weights> : tensor<2xf32>
func.func @constant() -> (tensor<1x2xf32>, tensor<2xf32>) {
  %0 = edge.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %1 = edge.constant dense_resource<weights> : tensor<2xf32>
  return %0, %1 : tensor<1x2xf32>, tensor<2xf32>
}

// An unknown operator keeps its name, operands and attributes.
// CHECK-LABEL: func @custom
// CHECK: edge.custom "aten::frobnicate"(%{{.*}}) {alpha = 2.000000e+00 : f64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<i64>)
func.func @custom(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = edge.custom "aten::frobnicate"(%x) {alpha = 2.0 : f64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<i64>)
  return %0#0 : tensor<4xf32>
}

// Convolution with bias, strides, padding, dilation and groups.
// CHECK-LABEL: func @convolution
// CHECK: edge.convolution %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 2>, stride = array<i64: 2, 1>} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x9xf32>
func.func @convolution(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x4x9xf32> {
  %0 = edge.convolution %x, %w, %b {stride = array<i64: 2, 1>, padding = array<i64: 1, 2>, dilation = array<i64: 2, 2>, groups = 2} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x9xf32>
  return %0 : tensor<1x6x4x9xf32>
}

// 3-D convolution: one window entry per spatial dim (D, H, W).
// CHECK-LABEL: func @convolution3d
// CHECK: edge.convolution3d %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1, 2>, stride = array<i64: 1, 2, 1>} : (tensor<1x4x6x9x9xf32>, tensor<6x2x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x6x4x9xf32>
func.func @convolution3d(%x: tensor<1x4x6x9x9xf32>, %w: tensor<6x2x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x6x4x9xf32> {
  %0 = edge.convolution3d %x, %w, %b {stride = array<i64: 1, 2, 1>, padding = array<i64: 1, 1, 2>, dilation = array<i64: 1, 2, 2>, groups = 2} : (tensor<1x4x6x9x9xf32>, tensor<6x2x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x6x4x9xf32>
  return %0 : tensor<1x6x6x4x9xf32>
}

// Transposed 3-D convolution: weight is [C_in, C_out/groups, kD, kH, kW].
// CHECK-LABEL: func @convolution3d_transposed
// CHECK: edge.convolution3d {{.*}} {output_padding = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>, transposed = true} : (tensor<1x4x3x5x5xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x3x6x10x10xf32>
func.func @convolution3d_transposed(%x: tensor<1x4x3x5x5xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x3x6x10x10xf32> {
  %0 = edge.convolution3d %x, %w {stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>, transposed = true, output_padding = array<i64: 1, 1, 1>} : (tensor<1x4x3x5x5xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x3x6x10x10xf32>
  return %0 : tensor<1x3x6x10x10xf32>
}

// 3-D pooling: ceil mode over NCDHW; an empty stride is the kernel over CDHW.
// CHECK-LABEL: func @pool3d
// CHECK: edge.max_pool3d %{{.*}} {ceil_mode = true, kernel_size = array<i64: 2, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 2, 2>} : (tensor<2x3x5x8x8xf32>) -> tensor<2x3x6x5x5xf32>
// CHECK: edge.avg_pool3d %{{.*}} {kernel_size = array<i64: 2, 2, 2>} : (tensor<3x4x6x6xf32>) -> tensor<3x2x3x3xf32>
func.func @pool3d(%x: tensor<2x3x5x8x8xf32>, %y: tensor<3x4x6x6xf32>) -> (tensor<2x3x6x5x5xf32>, tensor<3x2x3x3xf32>) {
  %0 = edge.max_pool3d %x {kernel_size = array<i64: 2, 3, 3>, stride = array<i64: 1, 2, 2>, padding = array<i64: 1, 1, 1>, ceil_mode = true} : (tensor<2x3x5x8x8xf32>) -> tensor<2x3x6x5x5xf32>
  %1 = edge.avg_pool3d %y {kernel_size = array<i64: 2, 2, 2>} : (tensor<3x4x6x6xf32>) -> tensor<3x2x3x3xf32>
  return %0, %1 : tensor<2x3x6x5x5xf32>, tensor<3x2x3x3xf32>
}

// Non-maximum suppression: as many rows as the data keeps.
// CHECK-LABEL: func @non_max_suppression
// CHECK: edge.non_max_suppression %{{.*}}, %{{.*}} {iou_threshold = 5.000000e-01 : f64, max_output_boxes_per_class = 3 : i64, score_threshold = 0.000000e+00 : f64} : (tensor<2x6x4xf32>, tensor<2x3x6xf32>) -> tensor<?x3xi64>
func.func @non_max_suppression(%boxes: tensor<2x6x4xf32>, %scores: tensor<2x3x6xf32>) -> tensor<?x3xi64> {
  %0 = edge.non_max_suppression %boxes, %scores {max_output_boxes_per_class = 3 : i64, iou_threshold = 0.5 : f64, score_threshold = 0.0 : f64} : (tensor<2x6x4xf32>, tensor<2x3x6xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// RoiAlign: one [C, bins] block per region.
// CHECK-LABEL: func @roi_align
// CHECK: edge.roi_align %{{.*}}, %{{.*}}, %{{.*}} {max = true, output_height = 2 : i64, output_width = 3 : i64, sampling_ratio = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x2x3xf32>
func.func @roi_align(%x: tensor<2x4x8x8xf32>, %rois: tensor<5x4xf32>, %batch: tensor<5xi64>) -> tensor<5x4x2x3xf32> {
  %0 = edge.roi_align %x, %rois, %batch {output_height = 2 : i64, output_width = 3 : i64, sampling_ratio = 2 : i64, max = true} : (tensor<2x4x8x8xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x2x3xf32>
  return %0 : tensor<5x4x2x3xf32>
}

// Shifts over unsigned and signless integers, broadcasting.
// CHECK-LABEL: func @bitwise_shifts
// CHECK: edge.bitwise_left_shift %{{.*}}, %{{.*}} : (tensor<3xui16>, tensor<1xui16>) -> tensor<3xui16>
// CHECK: edge.bitwise_right_shift %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
func.func @bitwise_shifts(%a: tensor<3xui16>, %b: tensor<1xui16>, %c: tensor<2x3xi32>, %d: tensor<3xi32>) -> (tensor<3xui16>, tensor<2x3xi32>) {
  %0 = edge.bitwise_left_shift %a, %b : (tensor<3xui16>, tensor<1xui16>) -> tensor<3xui16>
  %1 = edge.bitwise_right_shift %c, %d : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %0, %1 : tensor<3xui16>, tensor<2x3xi32>
}

// Determinants with their LU factors and pivots.
// CHECK-LABEL: func @linalg_det
// CHECK: edge.linalg_det %{{.*}} : (tensor<2x3x3xf32>) -> (tensor<2xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>)
func.func @linalg_det(%a: tensor<2x3x3xf32>) -> tensor<2xf32> {
  %0:3 = edge.linalg_det %a : (tensor<2x3x3xf32>) -> (tensor<2xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>)
  return %0#0 : tensor<2xf32>
}

// Max pooling with where each maximum came from.
// CHECK-LABEL: func @max_pool2d_with_indices
// CHECK: edge.max_pool2d_with_indices %{{.*}} {kernel_size = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>)
func.func @max_pool2d_with_indices(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xi64> {
  %0:2 = edge.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>)
  return %0#1 : tensor<1x3x2x2xi64>
}

// Distinct slices along a dim.
// CHECK-LABEL: func @unique_dim
// CHECK: edge.unique_dim %{{.*}} {dim = 1 : i64, sorted = false} : (tensor<2x5x3xf32>) -> (tensor<2x?x3xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>)
func.func @unique_dim(%x: tensor<2x5x3xf32>) -> tensor<5xi64> {
  %0:4 = edge.unique_dim %x {dim = 1 : i64, sorted = false} : (tensor<2x5x3xf32>) -> (tensor<2x?x3xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>)
  return %0#2 : tensor<5xi64>
}

// Depthwise convolution without bias, dynamic batch.
// CHECK-LABEL: func @convolution_depthwise
// CHECK: edge.convolution %{{.*}}, %{{.*}} {groups = 8 : i64, padding = array<i64: 1, 1>} : (tensor<?x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x5x5xf32>
func.func @convolution_depthwise(%x: tensor<?x8x5x5xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<?x8x5x5xf32> {
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 8} : (tensor<?x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x5x5xf32>
  return %0 : tensor<?x8x5x5xf32>
}

// Transposed convolution: weight is [C_in, C_out/groups, kH, kW].
// CHECK-LABEL: func @convolution_transposed
// CHECK: edge.convolution {{.*}} {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
func.func @convolution_transposed(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32> {
  %0 = edge.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
  return %0 : tensor<1x3x10x10xf32>
}

// addmm with a broadcast bias and scaled terms.
// CHECK-LABEL: func @addmm
// CHECK: edge.addmm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64} : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
func.func @addmm(%b: tensor<5xf32>, %a: tensor<3x4xf32>, %m: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = edge.addmm %b, %a, %m {alpha = 2.0 : f64, beta = 0.5 : f64} : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// linear over a batched input, with and without bias.
// CHECK-LABEL: func @linear
// CHECK: edge.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x7x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x7x3xf32>
// CHECK: edge.linear %{{.*}}, %{{.*}} : (tensor<2x7x4xf32>, tensor<3x4xf32>) -> tensor<2x7x3xf32>
func.func @linear(%x: tensor<2x7x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x7x3xf32> {
  %0 = edge.linear %x, %w, %b : (tensor<2x7x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x7x3xf32>
  %1 = edge.linear %x, %w : (tensor<2x7x4xf32>, tensor<3x4xf32>) -> tensor<2x7x3xf32>
  return %1 : tensor<2x7x3xf32>
}

// mm and bmm.
// CHECK-LABEL: func @matmul
// CHECK: edge.mm %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK: edge.bmm %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
func.func @matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<2x3x4xf32>, %d: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = edge.mm %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %1 = edge.bmm %c, %d : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %1 : tensor<2x3x5xf32>
}

// grouped_mm: rows by group times each group's matrix (MoE experts).
// CHECK-LABEL: func @grouped_mm
// CHECK: edge.grouped_mm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> tensor<6x5xf32>
func.func @grouped_mm(%x: tensor<6x4xf32>, %w: tensor<3x4x5xf32>, %offs: tensor<3xi32>) -> tensor<6x5xf32> {
  %0 = edge.grouped_mm %x, %w, %offs : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// Broadcasting binary ops; add/sub carry alpha, div a rounding mode.
// CHECK-LABEL: func @binary
// CHECK: edge.add %{{.*}}, %{{.*}} {alpha = 2.000000e+00 : f64} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: edge.sub %{{.*}}, %{{.*}} : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xf32>
// CHECK: edge.mul %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK: edge.div %{{.*}}, %{{.*}} {rounding_mode = "floor"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
func.func @binary(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>, %s: tensor<f32>, %i: tensor<4xi64>) -> tensor<4xi64> {
  %0 = edge.add %a, %b {alpha = 2.0 : f64} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = edge.sub %a, %s : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xf32>
  %2 = edge.mul %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %3 = edge.div %2, %i {rounding_mode = "floor"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %3 : tensor<4xi64>
}

// Unary activations keep the operand type.
// CHECK-LABEL: func @activations
// CHECK: edge.relu
// CHECK: edge.sigmoid
// CHECK: edge.tanh
// CHECK: edge.silu
// CHECK: edge.hardswish
// CHECK: edge.hardsigmoid
// CHECK: edge.gelu %{{.*}} {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.gelu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.hardtanh %{{.*}} {max_val = 6.000000e+00 : f64, min_val = 0.000000e+00 : f64}
// CHECK: edge.clamp %{{.*}} {min = -2.000000e+00 : f64}
// CHECK: edge.clamp %{{.*}} {max = 3.000000e+00 : f64, min = 1.000000e+00 : f64} : (tensor<4xi32>) -> tensor<4xi32>
// CHECK: edge.leaky_relu %{{.*}} {negative_slope = 2.000000e-01 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.leaky_relu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.elu %{{.*}} {alpha = 5.000000e-01 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @activations(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> tensor<2x3xf32> {
  %0 = edge.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = edge.sigmoid %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = edge.tanh %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = edge.silu %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = edge.hardswish %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = edge.hardsigmoid %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = edge.gelu %5 {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = edge.gelu %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = edge.hardtanh %7 {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = edge.clamp %8 {min = -2.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = edge.clamp %i {min = 1.0 : f64, max = 3.0 : f64} : (tensor<4xi32>) -> tensor<4xi32>
  %11 = edge.leaky_relu %9 {negative_slope = 0.2 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = edge.leaky_relu %11 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = edge.elu %12 {alpha = 0.5 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %13 : tensor<2x3xf32>
}

// Elementwise math keeps the operand type.
// CHECK-LABEL: func @math
// CHECK: edge.exp %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.log %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.sqrt %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.rsqrt %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.neg %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.abs %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.erf %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.sin %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.cos %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.reciprocal %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.floor %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.ceil %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.round %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.tan %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.asin %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.acos %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.atan %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.sinh %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.cosh %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.asinh %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.acosh %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.atanh %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.expm1 %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.log1p %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.log2 %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.log10 %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.trunc %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: edge.sign %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @math(%x: tensor<2x3xf32>) {
  %0 = edge.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = edge.log %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = edge.sqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = edge.rsqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = edge.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = edge.abs %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = edge.erf %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = edge.sin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = edge.cos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = edge.reciprocal %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = edge.floor %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = edge.ceil %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = edge.round %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = edge.tan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = edge.asin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = edge.acos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %16 = edge.atan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %17 = edge.sinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %18 = edge.cosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %19 = edge.asinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %20 = edge.acosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %21 = edge.atanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %22 = edge.expm1 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %23 = edge.log1p %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %24 = edge.log2 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %25 = edge.log10 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %26 = edge.trunc %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %27 = edge.sign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// pow, maximum and minimum broadcast like the arithmetic ops.
// CHECK-LABEL: func @pow_max_min
// CHECK: edge.pow %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: edge.maximum %{{.*}}, %{{.*}} : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
// CHECK: edge.minimum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @pow_max_min(%x: tensor<2x3xf32>, %e: tensor<f32>, %a: tensor<2x1xi64>, %b: tensor<3xi64>) {
  %0 = edge.pow %x, %e : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = edge.maximum %a, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %2 = edge.minimum %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// Comparisons give i1; where picks between broadcast operands; to_copy
// converts the element type; constant_pad_nd pads (before, after) pairs from
// the last dim.
// CHECK-LABEL: func @masks_casts_pads
// CHECK: edge.eq %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
// CHECK: edge.ne
// CHECK: edge.lt
// CHECK: edge.le
// CHECK: edge.gt
// CHECK: edge.ge %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
// CHECK: edge.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: edge.to_copy %{{.*}} {dtype = i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
// CHECK: edge.constant_pad_nd %{{.*}} {pad = array<i64: 1, 2, 0, 1>, value = -1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<3x6xf32>
func.func @masks_casts_pads(%x: tensor<2x3xf32>, %s: tensor<f32>, %i: tensor<4xi64>) {
  %0 = edge.eq %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %1 = edge.ne %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %2 = edge.lt %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %3 = edge.le %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %4 = edge.gt %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %5 = edge.ge %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %6 = edge.where %0, %x, %s : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %7 = edge.to_copy %x {dtype = i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %8 = edge.constant_pad_nd %x {pad = array<i64: 1, 2, 0, 1>, value = -1.0 : f64} : (tensor<2x3xf32>) -> tensor<3x6xf32>
  return
}

// softmax and log_softmax along a (negative) dim.
// CHECK-LABEL: func @softmax
// CHECK: edge.softmax %{{.*}} {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: edge.log_softmax %{{.*}} {dim = 0 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: edge.softmax %{{.*}} {dim = 1 : i64, half_to_float = true} : (tensor<2x5xf16>) -> tensor<2x5xf32>
func.func @softmax(%x: tensor<2x5xf32>, %h: tensor<2x5xf16>) -> tensor<2x5xf32> {
  %0 = edge.softmax %x {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = edge.log_softmax %0 {dim = 0 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %2 = edge.softmax %h {dim = 1 : i64, half_to_float = true} : (tensor<2x5xf16>) -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}

// Reductions over listed dims, with keepdim, and over everything.
// CHECK-LABEL: func @reductions
// CHECK: edge.mean %{{.*}} {dim = array<i64: -1, -2>, keepdim = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
// CHECK: edge.sum %{{.*}} {dim = array<i64: 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x7x7xf32>
// CHECK: edge.sum %{{.*}} : (tensor<1x8x7x7xf32>) -> tensor<f32>
// CHECK: edge.prod %{{.*}} {dim = array<i64: 0, 2>} : (tensor<1x8x7x7xf32>) -> tensor<8x7xf32>
func.func @reductions(%x: tensor<1x8x7x7xf32>) -> tensor<f32> {
  %0 = edge.mean %x {dim = array<i64: -1, -2>, keepdim = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  %1 = edge.sum %x {dim = array<i64: 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x7x7xf32>
  %2 = edge.sum %x : (tensor<1x8x7x7xf32>) -> tensor<f32>
  %3 = edge.prod %x {dim = array<i64: 0, 2>} : (tensor<1x8x7x7xf32>) -> tensor<8x7xf32>
  return %2 : tensor<f32>
}

// amax/amin reduce like sum; argmax/argmin give i64 indices over one dim
// (or the flattened tensor).
// CHECK-LABEL: func @extremes
// CHECK: edge.amax %{{.*}} {dim = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2xf32>
// CHECK: edge.amin %{{.*}} {dim = array<i64: 0>, keepdim = true} : (tensor<2x5xf32>) -> tensor<1x5xf32>
// CHECK: edge.argmax %{{.*}} {dim = -1 : i64, keepdim = true} : (tensor<2x5xf32>) -> tensor<2x1xi64>
// CHECK: edge.argmin %{{.*}} : (tensor<2x5xf32>) -> tensor<i64>
func.func @extremes(%x: tensor<2x5xf32>) {
  %0 = edge.amax %x {dim = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2xf32>
  %1 = edge.amin %x {dim = array<i64: 0>, keepdim = true} : (tensor<2x5xf32>) -> tensor<1x5xf32>
  %2 = edge.argmax %x {dim = -1 : i64, keepdim = true} : (tensor<2x5xf32>) -> tensor<2x1xi64>
  %3 = edge.argmin %x : (tensor<2x5xf32>) -> tensor<i64>
  return
}

// Pooling: ceil_mode, default stride (= kernel), adaptive output size.
// CHECK-LABEL: func @pooling
// CHECK: edge.max_pool2d %{{.*}} {ceil_mode = true, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
// CHECK: edge.avg_pool2d %{{.*}} {count_include_pad = false, divisor_override = 3 : i64, kernel_size = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK: edge.adaptive_avg_pool2d %{{.*}} {output_size = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
func.func @pooling(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32> {
  %0 = edge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  %1 = edge.avg_pool2d %x {kernel_size = array<i64: 2, 2>, count_include_pad = false, divisor_override = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %2 = edge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return %2 : tensor<1x4x1x1xf32>
}

// Upsampling to an output size, with optional recorded scales.
// CHECK-LABEL: func @upsample
// CHECK: edge.upsample_nearest2d %{{.*}} {output_size = array<i64: 8, 10>, scales_h = 2.000000e+00 : f64, scales_w = 2.000000e+00 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32>
// CHECK: edge.upsample_bilinear2d %{{.*}} {align_corners = true, output_size = array<i64: 7, 9>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x7x9xf32>
func.func @upsample(%x: tensor<1x3x4x5xf32>) {
  %0 = edge.upsample_nearest2d %x {output_size = array<i64: 8, 10>, scales_h = 2.0 : f64, scales_w = 2.0 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32>
  %1 = edge.upsample_bilinear2d %x {output_size = array<i64: 7, 9>, align_corners = true} : (tensor<1x3x4x5xf32>) -> tensor<1x3x7x9xf32>
  %2 = edge.upsample_bicubic2d %x {output_size = array<i64: 6, 10>, align_corners = false, scales_h = 1.5 : f64, scales_w = 2.0 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x6x10xf32>
  return
}

// Sliding blocks as columns and back (F.unfold / F.fold): C * kh * kw rows,
// one column per window; batched or not; dynamic batch and image extents.
// CHECK-LABEL: func @patches
// CHECK: edge.im2col %{{.*}} {dilation = array<i64: 2, 1>, kernel_size = array<i64: 2, 3>, padding = array<i64: 1, 0>, stride = array<i64: 1, 2>} : (tensor<2x3x5x7xf32>) -> tensor<2x18x15xf32>
// CHECK: edge.im2col {{.*}} : (tensor<3x4x4xf64>) -> tensor<12x9xf64>
// CHECK: edge.im2col {{.*}} : (tensor<?x3x?x7xf32>) -> tensor<?x18x?xf32>
// CHECK: edge.col2im %{{.*}} {dilation = array<i64: 2, 1>, kernel_size = array<i64: 2, 3>, output_size = array<i64: 5, 7>, padding = array<i64: 1, 0>, stride = array<i64: 1, 2>} : (tensor<2x18x15xf32>) -> tensor<2x3x5x7xf32>
// CHECK: edge.col2im {{.*}} : (tensor<12x?xf64>) -> tensor<3x3x3xf64>
func.func @patches(%x: tensor<2x3x5x7xf32>, %u: tensor<3x4x4xf64>, %d: tensor<?x3x?x7xf32>, %c: tensor<12x?xf64>) {
  %0 = edge.im2col %x {kernel_size = array<i64: 2, 3>, dilation = array<i64: 2, 1>, padding = array<i64: 1, 0>, stride = array<i64: 1, 2>} : (tensor<2x3x5x7xf32>) -> tensor<2x18x15xf32>
  %1 = edge.im2col %u {kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<3x4x4xf64>) -> tensor<12x9xf64>
  %2 = edge.im2col %d {kernel_size = array<i64: 2, 3>, dilation = array<i64: 2, 1>, padding = array<i64: 1, 0>, stride = array<i64: 1, 2>} : (tensor<?x3x?x7xf32>) -> tensor<?x18x?xf32>
  %3 = edge.col2im %0 {output_size = array<i64: 5, 7>, kernel_size = array<i64: 2, 3>, dilation = array<i64: 2, 1>, padding = array<i64: 1, 0>, stride = array<i64: 1, 2>} : (tensor<2x18x15xf32>) -> tensor<2x3x5x7xf32>
  %4 = edge.col2im %c {output_size = array<i64: 3, 3>, kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<12x?xf64>) -> tensor<3x3x3xf64>
  return
}

// batch_norm with and without affine parameters.
// CHECK-LABEL: func @batch_norm
// CHECK: edge.batch_norm %{{.*}} weight %{{.*}} bias %{{.*}} mean %{{.*}} var %{{.*}} {eps = 1.000000e-03 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
// CHECK: edge.batch_norm %{{.*}} mean %{{.*}} var %{{.*}} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
func.func @batch_norm(%x: tensor<2x4x3x3xf32>, %p: tensor<4xf32>) -> tensor<2x4x3x3xf32> {
  %0 = edge.batch_norm %x weight %p bias %p mean %p var %p {eps = 1.0e-3 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %1 = edge.batch_norm %0 mean %p var %p : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  return %1 : tensor<2x4x3x3xf32>
}

// layer_norm over the last two dims, affine and plain.
// CHECK-LABEL: func @layer_norm
// CHECK: edge.layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} {normalized_shape = array<i64: 3, 8>} : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
// CHECK: edge.layer_norm %{{.*}} {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 8>} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
func.func @layer_norm(%x: tensor<2x3x8xf32>, %p: tensor<3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = edge.layer_norm %x weight %p bias %p {normalized_shape = array<i64: 3, 8>} : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  %1 = edge.layer_norm %0 {normalized_shape = array<i64: 8>, eps = 1.0e-6 : f64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %1 : tensor<2x3x8xf32>
}

// view with an inferred (-1) extent, also on a dynamic input.
// CHECK-LABEL: func @view
// CHECK: edge.view %{{.*}} {size = array<i64: 4, -1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK: edge.view %{{.*}} {size = array<i64: -1, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
func.func @view(%x: tensor<2x3x4xf32>, %d: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = edge.view %x {size = array<i64: 4, -1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %1 = edge.view %d {size = array<i64: -1, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  return %1 : tensor<?x12xf32>
}

// permute and transpose (negative dims allowed).
// CHECK-LABEL: func @permute
// CHECK: edge.permute %{{.*}} {dims = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
// CHECK: edge.transpose %{{.*}} {dim0 = 1 : i64, dim1 = -1 : i64} : (tensor<1x3x4x5xf32>) -> tensor<1x5x4x3xf32>
func.func @permute(%x: tensor<1x3x4x5xf32>) -> tensor<1x5x4x3xf32> {
  %0 = edge.permute %x {dims = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %1 = edge.transpose %x {dim0 = 1 : i64, dim1 = -1 : i64} : (tensor<1x3x4x5xf32>) -> tensor<1x5x4x3xf32>
  return %1 : tensor<1x5x4x3xf32>
}

// unsqueeze at the end; squeeze listed dims and all size-1 dims.
// CHECK-LABEL: func @squeeze
// CHECK: edge.unsqueeze %{{.*}} {dim = -1 : i64} : (tensor<2x1x3xf32>) -> tensor<2x1x3x1xf32>
// CHECK: edge.squeeze %{{.*}} {dim = array<i64: 1>} : (tensor<2x1x3x1xf32>) -> tensor<2x3x1xf32>
// CHECK: edge.squeeze %{{.*}} : (tensor<2x1x3x1xf32>) -> tensor<2x3xf32>
func.func @squeeze(%x: tensor<2x1x3xf32>) -> tensor<2x3xf32> {
  %0 = edge.unsqueeze %x {dim = -1 : i64} : (tensor<2x1x3xf32>) -> tensor<2x1x3x1xf32>
  %1 = edge.squeeze %0 {dim = array<i64: 1>} : (tensor<2x1x3x1xf32>) -> tensor<2x3x1xf32>
  %2 = edge.squeeze %0 : (tensor<2x1x3x1xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// cat along dim 1 of three tensors.
// CHECK-LABEL: func @cat
// CHECK: edge.cat %{{.*}}, %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
func.func @cat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x7xf32> {
  %0 = edge.cat %a, %b, %a {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// slice with step, negative start and an open end; select drops the dim.
// CHECK-LABEL: func @slice
// CHECK: edge.slice %{{.*}} {dim = 1 : i64, start = -7 : i64, step = 2 : i64} : (tensor<2x10xf32>) -> tensor<2x4xf32>
// CHECK: edge.select %{{.*}} {dim = 0 : i64, index = -1 : i64} : (tensor<2x10xf32>) -> tensor<10xf32>
func.func @slice(%x: tensor<2x10xf32>) -> tensor<10xf32> {
  %0 = edge.slice %x {dim = 1 : i64, start = -7 : i64, step = 2 : i64} : (tensor<2x10xf32>) -> tensor<2x4xf32>
  %1 = edge.select %x {dim = 0 : i64, index = -1 : i64} : (tensor<2x10xf32>) -> tensor<10xf32>
  return %1 : tensor<10xf32>
}

// A step past the extent takes one element (int64's largest step once
// overflowed the length's arithmetic: undefined behaviour).
// CHECK-LABEL: func @slice_huge_step
// CHECK: edge.slice %{{.*}} {start = 1 : i64, step = 9223372036854775807 : i64} : (tensor<8xf32>) -> tensor<1xf32>
func.func @slice_huge_step(%x: tensor<8xf32>) -> tensor<1xf32> {
  %0 = edge.slice %x {dim = 0 : i64, start = 1 : i64, step = 9223372036854775807 : i64} : (tensor<8xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// expand keeps (-1) or broadcasts size-1 dims and adds leading dims.
// CHECK-LABEL: func @expand
// CHECK: edge.expand %{{.*}} {size = array<i64: 2, -1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = edge.expand %x {size = array<i64: 2, -1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// embedding: indices of any rank pick rows of the weight.
// CHECK-LABEL: func @embedding
// CHECK: edge.embedding %{{.*}}, %{{.*}} {padding_idx = 0 : i64} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
func.func @embedding(%w: tensor<10x4xf32>, %i: tensor<2x5xi64>) -> tensor<2x5x4xf32> {
  %0 = edge.embedding %w, %i {padding_idx = 0 : i64} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// Logical ops read any element type as truth values and give i1.
// CHECK-LABEL: func @logical
// CHECK: edge.logical_and %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK: edge.logical_or %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK: edge.logical_xor %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK: edge.logical_not %{{.*}} : (tensor<2x3xi64>) -> tensor<2x3xi1>
func.func @logical(%a: tensor<2x3xi1>, %b: tensor<3xf32>, %c: tensor<2x3xi64>) -> tensor<2x3xi1> {
  %0 = edge.logical_and %a, %b : (tensor<2x3xi1>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = edge.logical_or %0, %a : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %2 = edge.logical_xor %1, %a : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %3 = edge.logical_not %c : (tensor<2x3xi64>) -> tensor<2x3xi1>
  return %3 : tensor<2x3xi1>
}

// any/all reduce truth values; cumsum sums integers in i64.
// CHECK-LABEL: func @truth_and_cumsum
// CHECK: edge.any %{{.*}} {dim = array<i64: 1>} : (tensor<2x3xi1>) -> tensor<2xi1>
// CHECK: edge.all %{{.*}} {keepdim = true} : (tensor<2x3xf32>) -> tensor<1x1xi1>
// CHECK: edge.cumsum %{{.*}} {dim = 1 : i64} : (tensor<2x3xi1>) -> tensor<2x3xi64>
// CHECK: edge.cumsum %{{.*}} {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @truth_and_cumsum(%m: tensor<2x3xi1>, %x: tensor<2x3xf32>) {
  %0 = edge.any %m {dim = array<i64: 1>} : (tensor<2x3xi1>) -> tensor<2xi1>
  %1 = edge.all %x {keepdim = true} : (tensor<2x3xf32>) -> tensor<1x1xi1>
  %2 = edge.cumsum %m {dim = 1 : i64} : (tensor<2x3xi1>) -> tensor<2x3xi64>
  %3 = edge.cumsum %x {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// grid_sampler_2d: [N, C, Ho, Wo] from input [N, C, H, W], grid [N, Ho, Wo, 2].
// CHECK-LABEL: func @grid_sampler
// CHECK: edge.grid_sampler_2d %{{.*}}, %{{.*}} {align_corners = true, interpolation_mode = 2 : i64} : (tensor<2x3x5x7xf32>, tensor<2x4x6x2xf32>) -> tensor<2x3x4x6xf32>
func.func @grid_sampler(%x: tensor<2x3x5x7xf32>, %g: tensor<2x4x6x2xf32>) {
  %0 = edge.grid_sampler_2d %x, %g {align_corners = true, interpolation_mode = 2 : i64} : (tensor<2x3x5x7xf32>, tensor<2x4x6x2xf32>) -> tensor<2x3x4x6xf32>
  return
}

// scatter: self's type; index no larger than src, nor than self off dim.
// CHECK-LABEL: func @scatter
// CHECK: edge.scatter %{{.*}}, %{{.*}}, %{{.*}} {dim = 1 : i64, reduce = "add"} : (tensor<3x5xf32>, tensor<2x2xi64>, tensor<2x3xf32>) -> tensor<3x5xf32>
func.func @scatter(%x: tensor<3x5xf32>, %i: tensor<2x2xi64>, %s: tensor<2x3xf32>) {
  %0 = edge.scatter %x, %i, %s {dim = 1 : i64, reduce = "add"} : (tensor<3x5xf32>, tensor<2x2xi64>, tensor<2x3xf32>) -> tensor<3x5xf32>
  return
}

// unique: values, first positions, counts of a count the data decides; one
// inverse entry per element.
// CHECK-LABEL: func @unique
// CHECK: edge.unique %{{.*}} {sorted = false} : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
func.func @unique(%x: tensor<2x3xf32>) {
  %v, %f, %i, %c = edge.unique %x {sorted = false} : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  return
}

// nonzero: one i64 row per nonzero element, a count the data decides.
// CHECK-LABEL: func @nonzero
// CHECK: edge.nonzero %{{.*}} : (tensor<2x3xi1>) -> tensor<?x2xi64>
func.func @nonzero(%m: tensor<2x3xi1>) {
  %0 = edge.nonzero %m : (tensor<2x3xi1>) -> tensor<?x2xi64>
  return
}

// topk keeps k of a dim (dynamic extents stay dynamic); sort keeps the shape;
// both give i64 indices as a second result.
// CHECK-LABEL: func @topk_and_sort
// CHECK: edge.topk %{{.*}} {dim = 1 : i64, k = 2 : i64} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
// CHECK: edge.topk %{{.*}} {dim = 0 : i64, k = 1 : i64, largest = false} : (tensor<?x4xi32>) -> (tensor<1x4xi32>, tensor<1x4xi64>)
// CHECK: edge.sort %{{.*}} {descending = true} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
func.func @topk_and_sort(%x: tensor<2x5xf32>, %n: tensor<?x4xi32>) {
  %v, %i = edge.topk %x {dim = 1 : i64, k = 2 : i64} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  %w, %j = edge.topk %n {dim = 0 : i64, k = 1 : i64, largest = false} : (tensor<?x4xi32>) -> (tensor<1x4xi32>, tensor<1x4xi64>)
  %s, %k = edge.sort %x {descending = true} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  return
}

// Data-dependent reads: gather, index_select, advanced index; triangles.
// CHECK-LABEL: func @indexing
// CHECK: edge.gather %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
// CHECK: edge.index_select %{{.*}}, %{{.*}} {dim = 0 : i64} : (tensor<3x4xf32>, tensor<5xi64>) -> tensor<5x4xf32>
// CHECK: edge.index %{{.*}}, %{{.*}}, %{{.*}} {indexed_dims = array<i64: 0, 2>} : (tensor<3x4x5xf32>, tensor<2xi64>, tensor<6x1xi64>) -> tensor<6x2x4xf32>
// CHECK: edge.index %{{.*}}, %{{.*}} {indexed_dims = array<i64: 1>} : (tensor<3x4x5xf32>, tensor<2x2xi32>) -> tensor<3x2x2x5xf32>
// CHECK: edge.triu %{{.*}} {diagonal = 1 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK: edge.tril %{{.*}} : (tensor<4x4xi1>) -> tensor<4x4xi1>
func.func @indexing(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %j: tensor<5xi64>, %y: tensor<3x4x5xf32>, %k: tensor<2xi64>, %l: tensor<6x1xi64>, %m: tensor<2x2xi32>, %s: tensor<2x4x4xf32>, %b: tensor<4x4xi1>) {
  %0 = edge.gather %x, %i {dim = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  %1 = edge.index_select %x, %j {dim = 0 : i64} : (tensor<3x4xf32>, tensor<5xi64>) -> tensor<5x4xf32>
  %2 = edge.index %y, %k, %l {indexed_dims = array<i64: 0, 2>} : (tensor<3x4x5xf32>, tensor<2xi64>, tensor<6x1xi64>) -> tensor<6x2x4xf32>
  %3 = edge.index %y, %m {indexed_dims = array<i64: 1>} : (tensor<3x4x5xf32>, tensor<2x2xi32>) -> tensor<3x2x2x5xf32>
  %4 = edge.triu %s {diagonal = 1 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %5 = edge.tril %b : (tensor<4x4xi1>) -> tensor<4x4xi1>
  return
}

// Attention: a bool mask, causal with a scale, grouped-query heads.
// CHECK-LABEL: func @attention
// CHECK: edge.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4x8x16xf32>, tensor<2x4x6x16xf32>, tensor<2x4x6x32xf32>, tensor<1x1x8x6xi1>) -> tensor<2x4x8x32xf32>
// CHECK: edge.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} {is_causal = true, scale = 1.250000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
// CHECK: edge.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} {enable_gqa = true} : (tensor<1x8x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32>
func.func @attention(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<2x4x6x32xf32>, %m: tensor<1x1x8x6xi1>, %g: tensor<1x8x5x16xf32>, %h: tensor<1x2x5x16xf32>) {
  %0 = edge.scaled_dot_product_attention %q, %k, %v, %m : (tensor<2x4x8x16xf32>, tensor<2x4x6x16xf32>, tensor<2x4x6x32xf32>, tensor<1x1x8x6xi1>) -> tensor<2x4x8x32xf32>
  %1 = edge.scaled_dot_product_attention %q, %q, %q {is_causal = true, scale = 0.125 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %2 = edge.scaled_dot_product_attention %g, %h, %h {enable_gqa = true} : (tensor<1x8x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32>
  return
}

// Dynamic shapes: sizes are 0-d i64 values (sym_size and arithmetic on
// them) that view/expand/slice/full/arange take as operands; the dynamic
// marker (int64 min) in a size list says which entries they fill.
// CHECK-LABEL: func @dynamic_sizes
// CHECK: %[[S:.*]] = edge.sym_size %arg0 {dim = 0 : i64} : (tensor<?x8xf32>) -> tensor<i64>
// CHECK: edge.mul %[[S]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: edge.view %arg0, %{{.*}} {size = array<i64: -9223372036854775808, 4>} : (tensor<?x8xf32>, tensor<i64>) -> tensor<?x4xf32>
// CHECK: edge.expand %{{.*}}, %[[S]] {size = array<i64: -9223372036854775808, 8>} : (tensor<1x8xf32>, tensor<i64>) -> tensor<?x8xf32>
// CHECK: edge.slice %{{.*}}, %[[S]] {dim = 1 : i64} : (tensor<4x16xf32>, tensor<i64>) -> tensor<4x?xf32>
// CHECK: edge.full %[[S]] {dtype = i1, fill_value = 1.000000e+00 : f64, size = array<i64: 1, -9223372036854775808>} : (tensor<i64>) -> tensor<1x?xi1>
// CHECK: edge.arange %[[S]] {dtype = i64} : (tensor<i64>) -> tensor<?xi64>
// CHECK: edge.remainder %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
func.func @dynamic_sizes(%x: tensor<?x8xf32>, %row: tensor<1x8xf32>, %t: tensor<4x16xf32>) {
  %s = edge.sym_size %x {dim = 0 : i64} : (tensor<?x8xf32>) -> tensor<i64>
  %two = edge.constant dense<2> : tensor<i64>
  %rows = edge.mul %s, %two : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %v = edge.view %x, %rows {size = array<i64: -9223372036854775808, 4>} : (tensor<?x8xf32>, tensor<i64>) -> tensor<?x4xf32>
  %e = edge.expand %row, %s {size = array<i64: -9223372036854775808, 8>} : (tensor<1x8xf32>, tensor<i64>) -> tensor<?x8xf32>
  %c = edge.slice %t, %s {dim = 1 : i64} : (tensor<4x16xf32>, tensor<i64>) -> tensor<4x?xf32>
  %f = edge.full %s {size = array<i64: 1, -9223372036854775808>, fill_value = 1.0 : f64, dtype = i1} : (tensor<i64>) -> tensor<1x?xi1>
  %a = edge.arange %s {dtype = i64} : (tensor<i64>) -> tensor<?xi64>
  %r = edge.remainder %rows, %two : (tensor<i64>, tensor<i64>) -> tensor<i64>
  return
}

// fmod keeps the dividend's sign; slice_scatter writes a slice (the
// functional form of an in-place write through a slice view).
// CHECK-LABEL: func @scatter_and_fmod
// CHECK: edge.fmod %arg0, %arg1 : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK: edge.slice_scatter %arg0, %arg2 {dim = 1 : i64, end = 5 : i64, start = 1 : i64, step = 2 : i64} : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
func.func @scatter_and_fmod(%x: tensor<4x6xf32>, %d: tensor<f32>, %src: tensor<4x2xf32>) {
  %m = edge.fmod %x, %d : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  %s = edge.slice_scatter %x, %src {dim = 1 : i64, start = 1 : i64, end = 5 : i64, step = 2 : i64} : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
  return
}

// index_put writes (or adds) values at advanced-index positions.
// CHECK-LABEL: func @index_put
// CHECK: edge.index_put %arg0, %arg1, %arg2 {indexed_dims = array<i64: 2>} : (tensor<1x2x8x4xf32>, tensor<1x2x1x4xf32>, tensor<1xi64>) -> tensor<1x2x8x4xf32>
// CHECK: edge.index_put %arg0, %arg3, %arg2, %arg2 {accumulate = true, indexed_dims = array<i64: 0, 2>} : (tensor<1x2x8x4xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x8x4xf32>
func.func @index_put(%cache: tensor<1x2x8x4xf32>, %row: tensor<1x2x1x4xf32>, %at: tensor<1xi64>, %one: tensor<f32>) {
  %0 = edge.index_put %cache, %row, %at {indexed_dims = array<i64: 2>} : (tensor<1x2x8x4xf32>, tensor<1x2x1x4xf32>, tensor<1xi64>) -> tensor<1x2x8x4xf32>
  %1 = edge.index_put %cache, %one, %at, %at {indexed_dims = array<i64: 0, 2>, accumulate = true} : (tensor<1x2x8x4xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x8x4xf32>
  return
}

// Quantization: per-tensor activations, per-axis symmetric weights held as
// int8 storage, u8 activations, int32 biases.
// CHECK-LABEL: func @quantization
// CHECK: edge.quantize %arg0 : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// CHECK: edge.constant dense<[1, -2]> : tensor<2xi8> as tensor<2x!quant.uniform<i8<-127:127>:f32:0, {5.000000e-01,2.500000e-01}>>
// CHECK: edge.dequantize %{{.*}} : tensor<2x!quant.uniform<i8<-127:127>:f32:0, {5.000000e-01,2.500000e-01}>> -> tensor<2xf32>
// CHECK: edge.quantize %arg0 : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: edge.constant dense<[100, -7]> : tensor<2xi32> as tensor<2x!quant.uniform<i32:f32, 1.250000e-02>>
func.func @quantization(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %q = edge.quantize %x : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<i8:f32, 0.05:-3>>
  %dq = edge.dequantize %q : tensor<2x3x!quant.uniform<i8:f32, 0.05:-3>> -> tensor<2x3xf32>
  %w = edge.constant dense<[1, -2]> : tensor<2xi8> as tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %wf = edge.dequantize %w : tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>> -> tensor<2xf32>
  %u = edge.quantize %x : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<u8:f32, 0.1:128>>
  %b = edge.constant dense<[100, -7]> : tensor<2xi32> as tensor<2x!quant.uniform<i32:f32, 0.0125>>
  return %dq : tensor<2x3xf32>
}

// Integer ops (etch-fold-quantized-ops): parameters in the types, the
// folded activation's range as min/max.
// CHECK-LABEL: func @quantized_compute
// CHECK: edge.quantized_convolution %{{.*}}, %{{.*}}, %{{.*}} {groups = 2 : i64, min = 0.000000e+00 : f64, padding = array<i64: 1, 1>} : (tensor<1x4x5x5x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<2x2x3x3x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-02,2.000000e-02}>>, tensor<2xf32>) -> tensor<1x2x5x5x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: edge.quantized_linear %{{.*}}, %{{.*}} {max = 6.000000e+00 : f64} : (tensor<3x4x!quant.uniform<u8:f32, 2.000000e-02:128>>, tensor<2x4x!quant.uniform<i8:f32, 1.000000e-02>>) -> tensor<3x2x!quant.uniform<i8:f32, 1.000000e-01>>
// CHECK: edge.quantized_add %{{.*}}, %{{.*}} : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<3x!quant.uniform<i8:f32, 5.000000e-02:-3>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>
// CHECK: edge.quantized_mul
func.func @quantized_compute(%x: tensor<1x4x5x5x!quant.uniform<i8:f32, 0.05:-3>>,
                             %m: tensor<3x4x!quant.uniform<u8:f32, 0.02:128>>,
                             %a: tensor<2x3x!quant.uniform<i8:f32, 0.05:-3>>,
                             %b: tensor<3x!quant.uniform<i8:f32, 0.05:-3>>) {
  %w = edge.constant dense<1> : tensor<2x2x3x3xi8> as tensor<2x2x3x3x!quant.uniform<i8<-127:127>:f32:0, {0.01, 0.02}>>
  %bias = edge.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %c = edge.quantized_convolution %x, %w, %bias {groups = 2 : i64, padding = array<i64: 1, 1>, min = 0.0 : f64} : (tensor<1x4x5x5x!quant.uniform<i8:f32, 0.05:-3>>, tensor<2x2x3x3x!quant.uniform<i8<-127:127>:f32:0, {0.01, 0.02}>>, tensor<2xf32>) -> tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:128>>
  %fw = edge.constant dense<2> : tensor<2x4xi8> as tensor<2x4x!quant.uniform<i8:f32, 0.01>>
  %l = edge.quantized_linear %m, %fw {max = 6.0 : f64} : (tensor<3x4x!quant.uniform<u8:f32, 0.02:128>>, tensor<2x4x!quant.uniform<i8:f32, 0.01>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.1>>
  %s = edge.quantized_add %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 0.05:-3>>, tensor<3x!quant.uniform<i8:f32, 0.05:-3>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1>>
  %p = edge.quantized_mul %a, %b {min = 0.0 : f64} : (tensor<2x3x!quant.uniform<i8:f32, 0.05:-3>>, tensor<3x!quant.uniform<i8:f32, 0.05:-3>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// A mutable buffer: its initial contents; its new value is a trailing
// result named by etch.buffer_mutations.
// CHECK-LABEL: func @buffer
// CHECK: %[[C:.*]] = edge.buffer "cache" = dense<0.000000e+00> : tensor<2x4xf32>
// CHECK: edge.slice_scatter %[[C]], %arg0
func.func @buffer(%x: tensor<1x4xf32>) -> tensor<2x4xf32> attributes {etch.buffer_mutations = ["cache"]} {
  %c = edge.buffer "cache" = dense<0.0> : tensor<2x4xf32>
  %u = edge.slice_scatter %c, %x {dim = 0 : i64, start = 1 : i64} : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %u : tensor<2x4xf32>
}

// Weight-only quantization: groupwise dequantize as torch writes it, and
// the packed forms the kernels read (int4 as two nibbles per byte).
// CHECK-LABEL: func @weight_only
// CHECK: edge.dequantize_per_channel_group %{{.*}}, %{{.*}}, %{{.*}} {group_size = 32 : i64, quant_max = 7 : i64, quant_min = -8 : i64} : (tensor<2x64xi8>, tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x64xf32>
// CHECK: edge.weight_only_linear %arg0, %{{.*}}, %{{.*}} {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<3x64xf32>, tensor<2x32xui8>, tensor<2x2xf32>) -> tensor<3x2xf32>
// CHECK: edge.weight_only_linear %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {bits = 8 : i64, group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<3x64xf32>, tensor<2x64xi8>, tensor<2x1xf32>, tensor<2x1xi8>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK: edge.weight_only_embedding %{{.*}}, %{{.*}}, %arg1 {bits = 4 : i64, group_size = 32 : i64} : (tensor<2x32xui8>, tensor<2x2xf32>, tensor<5xi64>) -> tensor<5x64xf32>
func.func @weight_only(%x: tensor<3x64xf32>, %ids: tensor<5xi64>) {
  %q = edge.constant dense<3> : tensor<2x64xi8>
  %s = edge.constant dense<0.5> : tensor<2x2xf32>
  %z = edge.constant dense<0> : tensor<2x2xi64>
  %w = edge.dequantize_per_channel_group %q, %s, %z {group_size = 32 : i64, quant_min = -8 : i64, quant_max = 7 : i64} : (tensor<2x64xi8>, tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x64xf32>
  %p4 = edge.constant dense<136> : tensor<2x32xui8>
  %l4 = edge.weight_only_linear %x, %p4, %s {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<3x64xf32>, tensor<2x32xui8>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %p8 = edge.constant dense<-5> : tensor<2x64xi8>
  %s8 = edge.constant dense<0.25> : tensor<2x1xf32>
  %z8 = edge.constant dense<1> : tensor<2x1xi8>
  %b = edge.constant dense<1.0> : tensor<2xf32>
  %l8 = edge.weight_only_linear %x, %p8, %s8, %z8, %b {bits = 8 : i64, group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<3x64xf32>, tensor<2x64xi8>, tensor<2x1xf32>, tensor<2x1xi8>, tensor<2xf32>) -> tensor<3x2xf32>
  %e = edge.weight_only_embedding %p4, %s, %ids {bits = 4 : i64, group_size = 32 : i64} : (tensor<2x32xui8>, tensor<2x2xf32>, tensor<5xi64>) -> tensor<5x64xf32>
  return
}

// A delegate region: isolated from above, constants inside, one result.
// CHECK-LABEL: func @delegate
// CHECK: %[[R:.*]] = edge.delegate "xnnpack"(%arg0) {blob = dense<[1, 2]> : tensor<2xi8>} : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK: ^bb0(%[[IN:.*]]: tensor<4xf32>):
// CHECK: edge.relu %[[IN]]
// CHECK: edge.delegate_return %{{.*}} : tensor<4xf32>
func.func @delegate(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = edge.delegate "xnnpack"(%x) {blob = dense<[1, 2]> : tensor<2xi8>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%in: tensor<4xf32>):
    %c = edge.constant dense<1.0> : tensor<4xf32>
    %r = edge.relu %in : (tensor<4xf32>) -> tensor<4xf32>
    %s = edge.add %r, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    edge.delegate_return %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00000040"
    }
  }
#-}


// Rank-0 tensors: transpose, topk and index_select take dim 0 (or -1) of a
// scalar and keep its shape.
// CHECK-LABEL: func @scalar_dims
// CHECK: edge.transpose %{{.*}} {dim0 = 0 : i64, dim1 = -1 : i64} : (tensor<f32>) -> tensor<f32>
// CHECK: edge.topk %{{.*}} {dim = 0 : i64, k = 1 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
// CHECK: edge.index_select %{{.*}}, %{{.*}} {dim = 0 : i64} : (tensor<f32>, tensor<i64>) -> tensor<f32>
func.func @scalar_dims(%x: tensor<f32>, %i: tensor<i64>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %0 = edge.transpose %x {dim0 = 0 : i64, dim1 = -1 : i64} : (tensor<f32>) -> tensor<f32>
  %v, %j = edge.topk %x {dim = 0 : i64, k = 1 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  %1 = edge.index_select %x, %i {dim = 0 : i64} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return %0, %v, %1 : tensor<f32>, tensor<f32>, tensor<f32>
}
