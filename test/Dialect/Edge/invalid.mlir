// RUN: et-opt %s -split-input-file -verify-diagnostics

// A constant's declared type must match its value's type.
func.func @constant_type_mismatch() -> tensor<3xf32> {
  // expected-error @+1 {{'edge.constant' op value type 'tensor<2xf32>' differs from result type 'tensor<3xf32>'}}
  %0 = "edge.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A quantized constant holds its storage type (i8 here, not i32).
func.func @quantized_constant_storage() {
  // expected-error @+1 {{'edge.constant' op a quantized constant must hold its storage type 'tensor<2xi8>', got 'tensor<2xi32>'}}
  %0 = edge.constant dense<[1, 2]> : tensor<2xi32> as tensor<2x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

// Per-axis parameters: one scale per index of the quantized dimension.
func.func @quantized_constant_axis_extent() {
  // expected-error @+1 {{'edge.constant' op has 2 quantization scales for dimension 0 of extent 3}}
  %0 = edge.constant dense<[1, 2, 3]> : tensor<3xi8> as tensor<3x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  return
}

// -----

// The quantized dimension lies inside the tensor.
func.func @dequantize_axis_range(%q: tensor<4x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) {
  // expected-error @+1 {{'edge.dequantize' op quantized dimension 1 is out of range for rank 1}}
  %0 = edge.dequantize %q : tensor<4x!quant.uniform<i8:f32:1, {0.5, 0.25}>> -> tensor<4xf32>
  return
}

// -----

// Scales are positive (the quant dialect's own check).
func.func @quantize_scale(%x: tensor<4xf32>) {
  // expected-error @+1 {{illegal scale: 0.000000e+00}}
  %0 = edge.quantize %x : tensor<4xf32> -> tensor<4x!quant.uniform<i8:f32, 0.0>>
  return
}

// -----

// Quantize keeps the shape.
func.func @quantize_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'edge.quantize' op operand and result shapes differ: [4] vs [2, 2]}}
  %0 = edge.quantize %x : tensor<4xf32> -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

// The quantized type expresses the float side's element type.
func.func @dequantize_expressed(%q: tensor<4x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{'edge.dequantize' op quantized type expresses 'f32', but the float side is 'f16'}}
  %0 = edge.dequantize %q : tensor<4x!quant.uniform<i8:f32, 0.5>> -> tensor<4xf16>
  return
}

// -----

// Quantize produces a quantized type.
func.func @quantize_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'edge.quantize' op result #0 must be ranked tensor of uniform quantized type values}}
  %0 = edge.quantize %x : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

// edge.custom needs the source operator's name.
func.func @custom_empty_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{'edge.custom' op needs a non-empty op_name naming the source operator}}
  %0 = edge.custom ""(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The weight's input channels times groups must equal the input channels.
func.func @convolution_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+2 {{'edge.convolution' op input channels: input dim 1 = 4 does not match weight dim 1 * groups = 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

// The bias must have one entry per output channel.
func.func @convolution_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<6x3x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{'edge.convolution' op bias size: bias dim 0 = 5 does not match output channels = 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>, tensor<5xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

// Spatial parameters are (H, W) pairs.
func.func @convolution_stride_pair(%x: tensor<1x3x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+2 {{'edge.convolution' op stride must have 2 entries (H, W), got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

// A 3-D convolution's window entries are (D, H, W) triples.
func.func @convolution3d_stride_triple(%x: tensor<1x3x4x8x8xf32>, %w: tensor<6x3x3x3x3xf32>) {
  // expected-error @+2 {{'edge.convolution3d' op stride must have 3 entries (D, H, W), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution3d %x, %w {stride = array<i64: 1, 1>} : (tensor<1x3x4x8x8xf32>, tensor<6x3x3x3x3xf32>) -> tensor<1x6x2x6x6xf32>
  return
}

// -----

// A 2-D input is edge.convolution's.
func.func @convolution3d_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+2 {{'edge.convolution3d' op input must have rank 5, got rank 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution3d %x, %w : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

// 3-D pooling needs a depth: CDHW or NCDHW.
func.func @max_pool3d_rank(%x: tensor<3x8x8xf32>) {
  // expected-error @+2 {{'edge.max_pool3d' op self must have rank 4 (CDHW) or 5 (NCDHW), got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.max_pool3d %x {kernel_size = array<i64: 2, 2, 2>} : (tensor<3x8x8xf32>) -> tensor<3x4x4xf32>
  return
}

// -----

// Average pooling pads by at most half the kernel in every dim.
func.func @avg_pool3d_padding(%x: tensor<1x3x4x8x8xf32>) {
  // expected-error @+2 {{'edge.avg_pool3d' op padding 2 must be at most half of the kernel extent 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, padding = array<i64: 2, 0, 0>} : (tensor<1x3x4x8x8xf32>) -> tensor<1x3x4x4x4xf32>
  return
}

// -----

// Scores are [batch, classes, boxes] for the same batch and boxes.
func.func @non_max_suppression_scores(%boxes: tensor<2x6x4xf32>, %scores: tensor<2x3x5xf32>) {
  // expected-error @+2 {{'edge.non_max_suppression' op scores must be [batch, classes, boxes] for boxes [2, 6, 4], got [2, 3, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.non_max_suppression %boxes, %scores {max_output_boxes_per_class = 3 : i64, iou_threshold = 0.5 : f64} : (tensor<2x6x4xf32>, tensor<2x3x5xf32>) -> tensor<?x3xi64>
  return
}

// -----

// Every region has a batch index.
func.func @roi_align_indices(%x: tensor<2x4x8x8xf32>, %rois: tensor<5x4xf32>, %batch: tensor<4xi64>) {
  // expected-error @+2 {{'edge.roi_align' op rois must be [R, 4] with one batch index each, got rois [5, 4] and 4 indices}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.roi_align %x, %rois, %batch {output_height = 2 : i64, output_width = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<5x4xf32>, tensor<4xi64>) -> tensor<5x4x2x2xf32>
  return
}

// -----

// Shifts take integers only.
func.func @bitwise_left_shift_float(%a: tensor<3xf32>) {
  // expected-error @+1 {{'edge.bitwise_left_shift' op operand #0 must be ranked tensor of signless integer or unsigned integer values}}
  %0 = edge.bitwise_left_shift %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Both operands share one element type.
func.func @bitwise_right_shift_types(%a: tensor<3xui8>, %b: tensor<3xi8>) {
  // expected-error @+2 {{'edge.bitwise_right_shift' op operands have different element types (ui8 vs i8)}}
  // expected-error @+1 {{'edge.bitwise_right_shift' op failed to infer returned types}}
  %0 = edge.bitwise_right_shift %a, %b : (tensor<3xui8>, tensor<3xi8>) -> tensor<3xui8>
  return
}

// -----

// Determinants need square matrices.
func.func @linalg_det_square(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'edge.linalg_det' op A must be [..., n, n], got tensor<2x3x4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = edge.linalg_det %a : (tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<2x3x4xf32>, tensor<2x3xi32>)
  return
}

// -----

// The window rules of max_pool2d hold with indices too.
func.func @max_pool2d_with_indices_window(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{'edge.max_pool2d_with_indices' op kernel_size must have 2 entries (H, W), got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = edge.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2, 2>} : (tensor<1x3x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>)
  return
}

// -----

// unique_dim's dim is one of the input's.
func.func @unique_dim_range(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'edge.unique_dim' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:4 = edge.unique_dim %x {dim = 2 : i64} : (tensor<2x5xf32>) -> (tensor<2x?xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>)
  return
}

// -----

// The declared result type must match the inferred one.
func.func @convolution_result(%x: tensor<1x3x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+2 {{'edge.convolution' op inferred type(s) 'tensor<1x6x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x6x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

// Output channels must split evenly into groups.
func.func @convolution_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<5x2x3x3xf32>) {
  // expected-error @+2 {{'edge.convolution' op output channels 5 are not divisible by groups 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2} : (tensor<1x4x8x8xf32>, tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32>
  return
}

// -----

// The kernel must fit the padded input.
func.func @convolution_too_small(%x: tensor<1x3x2x2xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+2 {{'edge.convolution' op kernel 3 with dilation 1 does not fit input extent 2 (padding 0) in spatial dim 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x2x2xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x1x1xf32>
  return
}

// -----

// Convolution input must be NCHW.
func.func @convolution_rank(%x: tensor<3x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+2 {{'edge.convolution' op input must have rank 4, got rank 3 (tensor<3x8x8xf32>)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

// addmm's bias must broadcast to [M, N].
func.func @addmm_bias(%b: tensor<4xf32>, %a: tensor<3x4xf32>, %m: tensor<4x5xf32>) {
  // expected-error @+1 {{'edge.addmm' op self of shape [4] does not broadcast to the product shape [3, 5]}}
  %0 = edge.addmm %b, %a, %m : (tensor<4xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

// linear's weight is [out, in].
func.func @linear_features(%x: tensor<2x4xf32>, %w: tensor<3x5xf32>) {
  // expected-error @+1 {{'edge.linear' op in features: input last dim = 4 does not match weight dim 1 = 5}}
  %0 = edge.linear %x, %w : (tensor<2x4xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  return
}

// -----

// mm contracts matching inner dims.
func.func @mm_contraction(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+2 {{'edge.mm' op contraction size: self dim 1 = 4 does not match mat2 dim 0 = 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.mm %a, %b : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----

// grouped_mm: one count per group's matrix.
func.func @grouped_mm_counts(%x: tensor<6x4xf32>, %w: tensor<3x4x5xf32>, %offs: tensor<2xi32>) {
  // expected-error @+2 {{'edge.grouped_mm' op input [S, K], weight [G, K, N] and offs [G] disagree: input tensor<6x4xf32>, weight [3, 4, 5], offs tensor<2xi32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.grouped_mm %x, %w, %offs : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<2xi32>) -> tensor<6x5xf32>
  return
}

// -----

// bmm batch sizes must agree.
func.func @bmm_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+2 {{'edge.bmm' op batch size: self dim 0 = 2 does not match mat2 dim 0 = 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.bmm %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

// Operands must broadcast.
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'edge.add' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Element types must match (no implicit promotion).
func.func @sub_element_types(%a: tensor<3xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{'edge.sub' op operands have different element types (f32 vs i64)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.sub %a, %b : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

// mul's result shape is the broadcast shape.
func.func @mul_result(%a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'edge.mul' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.mul %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// div's rounding mode is 'trunc' or 'floor'.
func.func @div_mode(%a: tensor<3xf32>) {
  // expected-error @+1 {{'edge.div' op rounding_mode must be 'trunc' or 'floor', got 'round'}}
  %0 = edge.div %a, %a {rounding_mode = "round"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Activations need floating-point tensors.
func.func @relu_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.relu' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.relu %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// Unary ops keep the operand type.
func.func @sigmoid_shape(%a: tensor<3xf32>) {
  // expected-error @+2 {{'edge.sigmoid' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.sigmoid %a : (tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tanh_type(%a: tensor<3xf32>) {
  // expected-error @+2 {{'edge.tanh' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.tanh %a : (tensor<3xf32>) -> tensor<3xf16>
  return
}

// -----

func.func @silu_int(%a: tensor<3xi8>) {
  // expected-error @+1 {{'edge.silu' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi8>'}}
  %0 = edge.silu %a : (tensor<3xi8>) -> tensor<3xi8>
  return
}

// -----

func.func @hardswish_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'edge.hardswish' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<*xf32>'}}
  %0 = edge.hardswish %a : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @hardsigmoid_shape(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.hardsigmoid' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.hardsigmoid %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// gelu's approximation is 'none' or 'tanh'.
func.func @gelu_mode(%a: tensor<3xf32>) {
  // expected-error @+1 {{'edge.gelu' op approximate must be 'none' or 'tanh', got 'erf'}}
  %0 = edge.gelu %a {approximate = "erf"} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// hardtanh bounds must be ordered.
func.func @hardtanh_bounds(%a: tensor<3xf32>) {
  // expected-error @+1 {{'edge.hardtanh' op min_val 6.000000e+00 is greater than max_val 0.000000e+00}}
  %0 = edge.hardtanh %a {min_val = 6.0 : f64, max_val = 0.0 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// clamp needs at least one bound.
func.func @clamp_no_bounds(%a: tensor<3xf32>) {
  // expected-error @+1 {{'edge.clamp' op needs at least one of min and max}}
  %0 = edge.clamp %a : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @clamp_bounds(%a: tensor<3xf32>) {
  // expected-error @+1 {{'edge.clamp' op min 2.000000e+00 is greater than max 1.000000e+00}}
  %0 = edge.clamp %a {min = 2.0 : f64, max = 1.0 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// softmax's dim must exist.
func.func @softmax_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.softmax' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.softmax %a {dim = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// half_to_float converts f16 only.
func.func @softmax_half_to_float(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.softmax' op half_to_float needs an f16 input, got tensor<2x3xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.softmax %a {dim = 1 : i64, half_to_float = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.log_softmax' op dim -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.log_softmax %a {dim = -3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A reduction lists each dim once.
func.func @mean_duplicate(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.mean' op dim -1 appears more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.mean %a {dim = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// mean needs a floating-point input.
func.func @mean_int(%a: tensor<2x3xi64>) {
  // expected-error @+1 {{'edge.mean' op self must have a floating-point element type, got tensor<2x3xi64>}}
  %0 = edge.mean %a {dim = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2xi64>
  return
}

// -----

// keepdim changes the result rank.
func.func @sum_keepdim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.sum' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.sum %a {dim = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @prod_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.prod' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.prod %a {dim = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Pooling padding is at most half the kernel.
func.func @max_pool2d_padding(%a: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{'edge.max_pool2d' op padding 2 must be at most half of the kernel extent 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.max_pool2d %a {kernel_size = array<i64: 3, 3>, padding = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Pooling needs CHW or NCHW input.
func.func @avg_pool2d_rank(%a: tensor<8x8xf32>) {
  // expected-error @+2 {{'edge.avg_pool2d' op self must have rank 3 (CHW) or 4 (NCHW), got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.avg_pool2d %a {kernel_size = array<i64: 2, 2>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @avg_pool2d_divisor(%a: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{'edge.avg_pool2d' op divisor_override must be non-zero}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.avg_pool2d %a {kernel_size = array<i64: 2, 2>, divisor_override = 0 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @adaptive_avg_pool2d_size(%a: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{'edge.adaptive_avg_pool2d' op output_size must have 2 entries (H, W), got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.adaptive_avg_pool2d %a {output_size = array<i64: 1, 1, 1>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32>
  return
}

// -----

// batch_norm statistics have one entry per channel.
func.func @batch_norm_stats(%a: tensor<1x4x8x8xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'edge.batch_norm' op running_mean has shape [3], expected [4]}}
  %0 = edge.batch_norm %a mean %p var %p : (tensor<1x4x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

// layer_norm normalizes trailing dims only.
func.func @layer_norm_shape(%a: tensor<2x3x8xf32>) {
  // expected-error @+1 {{'edge.layer_norm' op normalized_shape [3] does not match the trailing input dims [8]}}
  %0 = edge.layer_norm %a {normalized_shape = array<i64: 3>} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return
}

// -----

func.func @layer_norm_weight(%a: tensor<2x3x8xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'edge.layer_norm' op weight has shape [3], expected [8]}}
  %0 = edge.layer_norm %a weight %w {normalized_shape = array<i64: 8>} : (tensor<2x3x8xf32>, tensor<3xf32>) -> tensor<2x3x8xf32>
  return
}

// -----

// view keeps the element count.
func.func @view_count(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.view' op size [4, 2] has 8 elements but tensor<2x3xf32> has 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.view %a {size = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @view_two_inferred(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.view' op size [-1, -1] has more than one -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.view %a {size = array<i64: -1, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @view_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.view' op size entries must be >= 0 or -1, got [3, -2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.view %a {size = array<i64: 3, -2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @view_indivisible(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.view' op cannot view tensor<2x3xf32> as size [4, -1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.view %a {size = array<i64: 4, -1>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

// permute needs a permutation of all dims.
func.func @permute_repeat(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.permute' op dims [1, -1] is not a permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.permute %a {dims = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @permute_length(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.permute' op dims [0] must have 2 entries (the rank)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.permute %a {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @permute_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.permute' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.permute %a {dims = array<i64: 0, 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.transpose' op dim1 5 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.transpose %a {dim0 = 0 : i64, dim1 = 5 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// unsqueeze accepts dims in [-rank-1, rank].
func.func @unsqueeze_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.unsqueeze' op dim 4 is out of range for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.unsqueeze %a {dim = 4 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

// squeezing a dynamic dim is ambiguous.
func.func @squeeze_dynamic(%a: tensor<2x?xf32>) {
  // expected-error @+2 {{'edge.squeeze' op cannot decide whether dim 1 of dynamic size is squeezed}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.squeeze %a {dim = array<i64: 1>} : (tensor<2x?xf32>) -> tensor<2xf32>
  return
}

// -----

// cat operands agree outside the cat dim.
func.func @cat_shape(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{'edge.cat' op tensor #1 has shape [3, 3], which differs from [2, 3] outside the cat dim 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.cat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @cat_types(%a: tensor<2x3xf32>, %b: tensor<2x3xi64>) {
  // expected-error @+2 {{'edge.cat' op tensor #1 (tensor<2x3xi64>) differs in rank or element type from tensor #0 (tensor<2x3xf32>)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.cat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<4x3xf32>
  return
}

// -----

// slice steps are positive.
func.func @slice_step(%a: tensor<10xf32>) {
  // expected-error @+2 {{'edge.slice' op step must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.slice %a {dim = 0 : i64, step = 0 : i64} : (tensor<10xf32>) -> tensor<10xf32>
  return
}

// -----

// select's index must exist.
func.func @select_index(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.select' op index 3 is out of range for dim 1 of size 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.select %a {dim = 1 : i64, index = 3 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// expand only broadcasts size-1 dims.
func.func @expand_dim(%a: tensor<3x2xf32>) {
  // expected-error @+2 {{'edge.expand' op cannot expand tensor<3x2xf32> to size [3, 4]: dim 1 has size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.expand %a {size = array<i64: 3, 4>} : (tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

// embedding indices are integers.
func.func @embedding_indices(%w: tensor<10x4xf32>, %i: tensor<5xf32>) {
  // expected-error @+1 {{'edge.embedding' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<5xf32>'}}
  %0 = edge.embedding %w, %i : (tensor<10x4xf32>, tensor<5xf32>) -> tensor<5x4xf32>
  return
}

// -----

func.func @embedding_weight(%w: tensor<10xf32>, %i: tensor<5xi64>) {
  // expected-error @+2 {{'edge.embedding' op weight must have rank 2, got rank 1 (tensor<10xf32>)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.embedding %w, %i : (tensor<10xf32>, tensor<5xi64>) -> tensor<5x4xf32>
  return
}

// -----

// A delegate's body takes its inputs' types.
func.func @delegate_argument_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'edge.delegate' op body argument type 'tensor<4xi32>' differs from input type 'tensor<4xf32>'}}
  %0 = edge.delegate "xnnpack"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%in: tensor<4xi32>):
    %c = edge.constant dense<1.0> : tensor<4xf32>
    edge.delegate_return %c : tensor<4xf32>
  }
  return
}

// -----

// delegate_return only ends a delegate body.
func.func @delegate_return_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{'edge.delegate_return' op expects parent op 'edge.delegate'}}
  edge.delegate_return %x : tensor<4xf32>
}

// -----

// edge.exp takes floating-point tensors and keeps their type.
func.func @exp_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.exp' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.exp %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.log takes floating-point tensors and keeps their type.
func.func @log_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.log' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.log %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.sqrt takes floating-point tensors and keeps their type.
func.func @sqrt_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.sqrt' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.sqrt %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.rsqrt takes floating-point tensors and keeps their type.
func.func @rsqrt_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.rsqrt' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.rsqrt %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.neg takes float or integer tensors (integers stay integers) and
// keeps their type.
func.func @neg_complex(%a: tensor<3xcomplex<f32>>) {
  // expected-error @+1 {{'edge.neg' op operand #0 must be ranked tensor of floating-point or signless integer or unsigned integer values, but got 'tensor<3xcomplex<f32>>'}}
  %0 = edge.neg %a : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
  return
}

// -----

// edge.abs takes float or integer tensors (integers stay integers) and
// keeps their type.
func.func @abs_complex(%a: tensor<3xcomplex<f32>>) {
  // expected-error @+1 {{'edge.abs' op operand #0 must be ranked tensor of floating-point or signless integer or unsigned integer values, but got 'tensor<3xcomplex<f32>>'}}
  %0 = edge.abs %a : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
  return
}

// -----

// edge.erf takes floating-point tensors and keeps their type.
func.func @erf_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.erf' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.erf %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.sin takes floating-point tensors and keeps their type.
func.func @sin_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.sin' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.sin %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.cos takes floating-point tensors and keeps their type.
func.func @cos_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.cos' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.cos %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.reciprocal takes floating-point tensors and keeps their type.
func.func @reciprocal_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.reciprocal' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.reciprocal %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.floor takes floating-point tensors and keeps their type.
func.func @floor_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.floor' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.floor %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.ceil takes floating-point tensors and keeps their type.
func.func @ceil_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.ceil' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.ceil %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.round takes floating-point tensors and keeps their type.
func.func @round_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.round' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.round %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// pow takes floats and signless integers.
func.func @pow_index(%a: tensor<3xindex>) {
  // expected-error @+1 {{'edge.pow' op operand #0 must be ranked tensor of floating-point or signless integer or unsigned integer values, but got 'tensor<3xindex>'}}
  %0 = edge.pow %a, %a : (tensor<3xindex>, tensor<3xindex>) -> tensor<3xindex>
  return
}

// -----

// maximum/minimum operands must broadcast and share an element type.
func.func @maximum_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'edge.maximum' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.maximum %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @minimum_types(%a: tensor<3xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{'edge.minimum' op operands have different element types (f32 vs i64)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.minimum %a, %b : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

// edge.eq operands must broadcast.
func.func @eq_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'edge.eq' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.eq %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  return
}

// -----

// edge.ne operands must broadcast.
func.func @ne_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'edge.ne' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.ne %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  return
}

// -----

// edge.lt operands must broadcast.
func.func @lt_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'edge.lt' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.lt %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  return
}

// -----

// edge.le operands must broadcast.
func.func @le_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'edge.le' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.le %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  return
}

// -----

// edge.gt operands must broadcast.
func.func @gt_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'edge.gt' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.gt %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  return
}

// -----

// edge.ge operands must broadcast.
func.func @ge_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'edge.ge' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.ge %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  return
}

// -----

// where's condition is i1 and broadcasts with the values.
func.func @where_condition(%c: tensor<5xi1>, %a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.where' op condition of shape [5] does not broadcast with [2, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.where %c, %a, %a : (tensor<5xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// to_copy converts to an integer or float type only.
func.func @to_copy_dtype(%a: tensor<3xf32>) {
  // expected-error @+2 {{'edge.to_copy' op dtype must be an integer or float type, got index}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.to_copy %a {dtype = index} : (tensor<3xf32>) -> tensor<3xindex>
  return
}

// -----

// constant_pad_nd's pad holds (before, after) pairs for existing dims.
func.func @constant_pad_nd_pairs(%a: tensor<3xf32>) {
  // expected-error @+2 {{'edge.constant_pad_nd' op pad [1, 1, 1] must hold (before, after) pairs for at most 1 dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.constant_pad_nd %a {pad = array<i64: 1, 1, 1>} : (tensor<3xf32>) -> tensor<5xf32>
  return
}

// -----

// amax's dims must exist.
func.func @amax_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.amax' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.amax %a {dim = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @amin_duplicate(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.amin' op dim -1 appears more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.amin %a {dim = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// argmax returns i64 indices.
func.func @argmax_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'edge.argmax' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = edge.argmax %a {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @argmin_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.argmin' op dim 3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.argmin %a {dim = 3 : i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

// Upsampling takes NCHW input.
func.func @upsample_nearest2d_rank(%a: tensor<3x4x5xf32>) {
  // expected-error @+2 {{'edge.upsample_nearest2d' op self must have rank 4 (NCHW), got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.upsample_nearest2d %a {output_size = array<i64: 8, 10>} : (tensor<3x4x5xf32>) -> tensor<3x8x10xf32>
  return
}

// -----

func.func @upsample_bilinear2d_size(%a: tensor<1x3x4x5xf32>) {
  // expected-error @+2 {{'edge.upsample_bilinear2d' op output_size must have 2 entries (H, W), got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.upsample_bilinear2d %a {output_size = array<i64: 8>, align_corners = false} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @upsample_bicubic2d_size(%a: tensor<1x3x4x5xf32>) {
  // expected-error @+2 {{'edge.upsample_bicubic2d' op output_size entries must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.upsample_bicubic2d %a {output_size = array<i64: 0, 8>, align_corners = false} : (tensor<1x3x4x5xf32>) -> tensor<1x3x0x8xf32>
  return
}

// -----

// im2col: the window must fit the image (with its padding).
func.func @im2col_window(%a: tensor<1x2x3x4xf32>) {
  // expected-error @+2 {{'edge.im2col' op no window fits along H: extent 3, kernel 4, dilation 1, padding 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.im2col %a {kernel_size = array<i64: 4, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x16x3xf32>
  return
}

// -----

func.func @im2col_stride(%a: tensor<1x2x3x4xf32>) {
  // expected-error @+2 {{'edge.im2col' op stride entries must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.im2col %a {kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 0, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x8x6xf32>
  return
}

// -----

// col2im: whole channels of kh * kw rows, one column per window.
func.func @col2im_rows(%a: tensor<1x7x6xf32>) {
  // expected-error @+2 {{'edge.col2im' op self has 7 rows, not a multiple of the 4 taps of kernel_size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.col2im %a {output_size = array<i64: 3, 4>, kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x7x6xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @col2im_columns(%a: tensor<1x8x5xf32>) {
  // expected-error @+2 {{'edge.col2im' op self has 5 columns, expected one per window over output_size: 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.col2im %a {output_size = array<i64: 3, 4>, kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x5xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

// edge.leaky_relu takes floating-point tensors and keeps their type.
func.func @leaky_relu_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.leaky_relu' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.leaky_relu %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.elu's alpha is a float, not a string.
func.func @elu_alpha(%a: tensor<3xf32>) {
  // expected-error @+1 {{'edge.elu' op attribute 'alpha' failed to satisfy constraint: 64-bit float attribute}}
  %0 = edge.elu %a {alpha = "one"} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// edge.logical_and's operands must broadcast.
func.func @logical_and_shapes(%a: tensor<2x3xi1>, %b: tensor<4xi1>) {
  // expected-error @+2 {{'edge.logical_and' op operand shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.logical_and %a, %b : (tensor<2x3xi1>, tensor<4xi1>) -> tensor<2x3xi1>
  return
}

// -----

func.func @logical_or_result(%a: tensor<3xi1>) {
  // expected-error @+1 {{'edge.logical_or' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = edge.logical_or %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xf32>
  return
}

// -----

func.func @logical_xor_result(%a: tensor<3xi1>) {
  // expected-error @+1 {{'edge.logical_xor' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xi64>'}}
  %0 = edge.logical_xor %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi64>
  return
}

// -----

func.func @logical_not_shape(%a: tensor<3xf32>) {
  // expected-error @+2 {{'edge.logical_not' op inferred type(s) 'tensor<3xi1>' are incompatible with return type(s) of operation 'tensor<4xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.logical_not %a : (tensor<3xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @any_dim(%a: tensor<2x3xi1>) {
  // expected-error @+2 {{'edge.any' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.any %a {dim = array<i64: 2>} : (tensor<2x3xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @all_repeated(%a: tensor<2x3xi1>) {
  // expected-error @+2 {{'edge.all' op dim -1 appears more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.all %a {dim = array<i64: 1, -1>} : (tensor<2x3xi1>) -> tensor<2xi1>
  return
}

// -----

// edge.cumsum of integers is i64, as in ATen.
func.func @cumsum_int_type(%a: tensor<4xi32>) {
  // expected-error @+2 {{'edge.cumsum' op inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.cumsum %a {dim = 0 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @grid_sampler_grid(%x: tensor<2x3x5x7xf32>, %g: tensor<2x4x6x3xf32>) {
  // expected-error @+2 {{'edge.grid_sampler_2d' op needs input [N, C, H, W] and grid [N, Ho, Wo, 2] of one float type, got tensor<2x3x5x7xf32> and tensor<2x4x6x3xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.grid_sampler_2d %x, %g : (tensor<2x3x5x7xf32>, tensor<2x4x6x3xf32>) -> tensor<2x3x4x6xf32>
  return
}

// -----

func.func @scatter_reduce(%x: tensor<3x5xf32>, %i: tensor<2x2xi64>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{'edge.scatter' op reduce 'mean' is not one of none, add, multiply, amax, amin}}
  %0 = edge.scatter %x, %i, %s {dim = 1 : i64, reduce = "mean"} : (tensor<3x5xf32>, tensor<2x2xi64>, tensor<2x3xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @scatter_index_larger(%x: tensor<3x5xf32>, %i: tensor<4x2xi64>, %s: tensor<4x3xf32>) {
  // expected-error @+1 {{'edge.scatter' op index [4, 2] is larger than src [4, 3] or than self [3, 5] outside dim 1}}
  %0 = edge.scatter %x, %i, %s {dim = 1 : i64} : (tensor<3x5xf32>, tensor<4x2xi64>, tensor<4x3xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @unique_inverse(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.unique' op inferred type(s) 'tensor<?xf32>', 'tensor<?xi64>', 'tensor<6xi64>', 'tensor<?xi64>' are incompatible with return type(s) of operation 'tensor<?xf32>', 'tensor<?xi64>', 'tensor<5xi64>', 'tensor<?xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %v, %f, %i, %c = edge.unique %a : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>)
  return
}

// -----

func.func @nonzero_columns(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.nonzero' op inferred type(s) 'tensor<?x2xi64>' are incompatible with return type(s) of operation 'tensor<?x3xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.nonzero %a : (tensor<2x3xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @topk_too_many(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'edge.topk' op k = 4 is outside [0, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %v, %i = edge.topk %a {k = 4 : i64} : (tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return
}

// -----

func.func @sort_dim(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'edge.sort' op dim 2 is out of range for rank 2}}
  %v, %i = edge.sort %a {dim = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return
}

// -----

func.func @gather_rank(%a: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'edge.gather' op index must have self's rank 2, got tensor<3xi64>}}
  %0 = edge.gather %a, %i {dim = 1 : i64} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @index_select_rank(%a: tensor<3x4xf32>, %i: tensor<2x2xi64>) {
  // expected-error @+2 {{'edge.index_select' op index must be 0-D or 1-D, got tensor<2x2xi64>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.index_select %a, %i {dim = 0 : i64} : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @index_dims(%a: tensor<3x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'edge.index' op indexed_dims [1, 0] must ascend within rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.index %a, %i, %i {indexed_dims = array<i64: 1, 0>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @triu_rank(%a: tensor<4xf32>) {
  // expected-error @+2 {{'edge.triu' op self must have rank >= 2, got tensor<4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.triu %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tril_rank(%a: tensor<f32>) {
  // expected-error @+2 {{'edge.tril' op self must have rank >= 2, got tensor<f32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.tril %a : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// Grouped-query heads need enable_gqa.
func.func @attention_heads(%q: tensor<1x8x5x16xf32>, %k: tensor<1x2x5x16xf32>) {
  // expected-error @+2 {{'edge.scaled_dot_product_attention' op batch/head dims of query [1, 8, 5, 16] and key/value [1, 2, 5, 16] differ (grouped-query heads need enable_gqa)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.scaled_dot_product_attention %q, %k, %k : (tensor<1x8x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32>
  return
}

// -----

func.func @attention_mask(%q: tensor<1x2x5x16xf32>, %m: tensor<5x4xi1>) {
  // expected-error @+2 {{'edge.scaled_dot_product_attention' op attn_mask [5, 4] does not broadcast to the scores [1, 2, 5, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.scaled_dot_product_attention %q, %q, %q, %m : (tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>, tensor<5x4xi1>) -> tensor<1x2x5x16xf32>
  return
}

// -----

func.func @attention_dropout(%q: tensor<1x2x5x16xf32>) {
  // expected-error @+2 {{'edge.scaled_dot_product_attention' op dropout_p must be 0 (inference), got 0.100000}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.scaled_dot_product_attention %q, %q, %q {dropout_p = 0.1 : f64} : (tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x2x5x16xf32>
  return
}

// -----

func.func @sym_size_dim(%x: tensor<?x8xf32>) {
  // expected-error @+2 {{'edge.sym_size' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.sym_size %x {dim = 2 : i64} : (tensor<?x8xf32>) -> tensor<i64>
  return
}

// -----

// A dynamic size entry needs its operand.
func.func @view_dynamic_count(%x: tensor<?x8xf32>) {
  // expected-error @+2 {{'edge.view' op needs one dynamic_size operand per dynamic entry of [?, 4], got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.view %x {size = array<i64: -9223372036854775808, 4>} : (tensor<?x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @full_size(%s: tensor<i64>) {
  // expected-error @+2 {{'edge.full' op size entries must be >= 0, got [-2, ?]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.full %s {size = array<i64: -2, -9223372036854775808>, fill_value = 0.0 : f64, dtype = f32} : (tensor<i64>) -> tensor<2x?xf32>
  return
}

// -----

func.func @arange_step() {
  // expected-error @+2 {{'edge.arange' op step must not be 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.arange {end = 4.0 : f64, step = 0.0 : f64, dtype = i64} : () -> tensor<4xi64>
  return
}

// -----

func.func @remainder_types(%a: tensor<3xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{'edge.remainder' op operands have different element types (f32 vs i64)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.remainder %a, %b : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @fmod_types(%a: tensor<3xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{'edge.fmod' op operands have different element types (f32 vs i64)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.fmod %a, %b : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @slice_scatter_src_shape(%x: tensor<4x6xf32>, %src: tensor<4x3xf32>) {
  // expected-error @+1 {{'edge.slice_scatter' op src tensor<4x3xf32> is not the slice's shape [4, 2] of tensor<4x6xf32>}}
  %0 = edge.slice_scatter %x, %src {dim = 1 : i64, start = 1 : i64, end = 5 : i64, step = 2 : i64} : (tensor<4x6xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  return
}

// -----

// edge.tan takes floating-point tensors and keeps their type.
func.func @tan_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.tan' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.tan %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.asin takes floating-point tensors and keeps their type.
func.func @asin_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.asin' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.asin %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.acos takes floating-point tensors and keeps their type.
func.func @acos_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.acos' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.acos %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.atan takes floating-point tensors and keeps their type.
func.func @atan_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.atan' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.atan %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.sinh takes floating-point tensors and keeps their type.
func.func @sinh_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.sinh' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.sinh %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.cosh takes floating-point tensors and keeps their type.
func.func @cosh_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.cosh' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.cosh %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.asinh takes floating-point tensors and keeps their type.
func.func @asinh_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.asinh' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.asinh %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.acosh takes floating-point tensors and keeps their type.
func.func @acosh_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.acosh' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.acosh %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.atanh takes floating-point tensors and keeps their type.
func.func @atanh_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.atanh' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.atanh %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.expm1 takes floating-point tensors and keeps their type.
func.func @expm1_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.expm1' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.expm1 %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.log1p takes floating-point tensors and keeps their type.
func.func @log1p_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.log1p' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.log1p %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.log2 takes floating-point tensors and keeps their type.
func.func @log2_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.log2' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.log2 %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.log10 takes floating-point tensors and keeps their type.
func.func @log10_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.log10' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.log10 %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.trunc takes floating-point tensors and keeps their type.
func.func @trunc_int(%a: tensor<3xi32>) {
  // expected-error @+1 {{'edge.trunc' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = edge.trunc %a : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// edge.sign takes float or integer tensors (integers stay integers) and
// keeps their type.
func.func @sign_complex(%a: tensor<3xcomplex<f32>>) {
  // expected-error @+1 {{'edge.sign' op operand #0 must be ranked tensor of floating-point or signless integer or unsigned integer values, but got 'tensor<3xcomplex<f32>>'}}
  %0 = edge.sign %a : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
  return
}

// -----

func.func @index_put_values(%cache: tensor<1x2x8x4xf32>, %row: tensor<1x2x3x4xf32>, %at: tensor<1xi64>) {
  // expected-error @+1 {{'edge.index_put' op values tensor<1x2x3x4xf32> do not broadcast to the indexed shape [1, 2, 1, 4] of tensor<1x2x8x4xf32>}}
  %0 = edge.index_put %cache, %row, %at {indexed_dims = array<i64: 2>} : (tensor<1x2x8x4xf32>, tensor<1x2x3x4xf32>, tensor<1xi64>) -> tensor<1x2x8x4xf32>
  return
}

// -----

// Integer convolution: activations per tensor, 8-bit.
func.func @quantized_convolution_per_axis_input(%x: tensor<1x2x3x3x!quant.uniform<i8:f32:1, {0.1, 0.2}>>, %w: tensor<2x2x1x1x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'edge.quantized_convolution' op input must be quantized per tensor with 8-bit storage, got 'tensor<1x2x3x3x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01}>>'}}
  %0 = edge.quantized_convolution %x, %w : (tensor<1x2x3x3x!quant.uniform<i8:f32:1, {0.1, 0.2}>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// The result shape follows the window arithmetic of edge.convolution.
func.func @quantized_convolution_shape(%x: tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1>>, %w: tensor<4x2x3x3x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'edge.quantized_convolution' op result shape [1, 4, 5, 5] differs from the expected [1, 4, 3, 3]}}
  %0 = edge.quantized_convolution %x, %w : (tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1>>, tensor<4x2x3x3x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x5x5x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// Weights per output channel only (axis 0).
func.func @quantized_linear_weight_axis(%x: tensor<3x2x!quant.uniform<i8:f32, 0.1>>, %w: tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>) {
  // expected-error @+1 {{'edge.quantized_linear' op weight must have 8-bit storage, quantized per tensor or per output channel (axis 0), got 'tensor<4x2x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01}>>'}}
  %0 = edge.quantized_linear %x, %w : (tensor<3x2x!quant.uniform<i8:f32, 0.1>>, tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>) -> tensor<3x4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// A float bias of one value per output.
func.func @quantized_linear_flat_weight(%x: tensor<3x2x!quant.uniform<i8:f32, 0.1>>, %w: tensor<8x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'edge.quantized_linear' op weight must have rank 2, got rank 1 (tensor<8x!quant.uniform<i8:f32, 1.000000e-01>>)}}
  %0 = edge.quantized_linear %x, %w : (tensor<3x2x!quant.uniform<i8:f32, 0.1>>, tensor<8x!quant.uniform<i8:f32, 0.1>>) -> tensor<3x4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @quantized_linear_bias(%x: tensor<3x2x!quant.uniform<i8:f32, 0.1>>, %w: tensor<4x2x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'edge.quantized_linear' op bias must be f32 of shape [4], got 'tensor<3xf32>'}}
  %0 = edge.quantized_linear %x, %w, %b : (tensor<3x2x!quant.uniform<i8:f32, 0.1>>, tensor<4x2x!quant.uniform<i8:f32, 0.1>>, tensor<3xf32>) -> tensor<3x4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @quantized_add_broadcast(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'edge.quantized_add' op other of shape [4] does not broadcast to the result shape [2, 3]}}
  %0 = edge.quantized_add %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @quantized_mul_range(%a: tensor<3x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'edge.quantized_mul' op min 6.000000e+00 exceeds max 0.000000e+00}}
  %0 = edge.quantized_mul %a, %a {min = 6.0 : f64, max = 0.0 : f64} : (tensor<3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i8:f32, 0.1>>) -> tensor<3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// A mutable buffer is named: the name ties it to its new contents.
func.func @buffer_dynamic() {
  // expected-error @+1 {{'edge.buffer' op needs the buffer's name}}
  %0 = edge.buffer "" = dense<0.0> : tensor<2xf32>
  return
}

// -----

// Scales come one per row and group of columns.
func.func @dequantize_per_channel_group_scales(%q: tensor<2x64xi8>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{'edge.dequantize_per_channel_group' op scales must be [2, 2] (one per row and group), got 'tensor<2x3xf32>'}}
  %0 = edge.dequantize_per_channel_group %q, %s {group_size = 32 : i64, quant_min = -8 : i64, quant_max = 7 : i64} : (tensor<2x64xi8>, tensor<2x3xf32>) -> tensor<2x64xf32>
  return
}

// -----

// The group divides the columns.
func.func @dequantize_per_channel_group_divides(%q: tensor<2x48xi8>, %s: tensor<2x1xf32>) {
  // expected-error @+1 {{'edge.dequantize_per_channel_group' op group_size 32 does not divide the 48 columns}}
  %0 = edge.dequantize_per_channel_group %q, %s {group_size = 32 : i64, quant_min = -8 : i64, quant_max = 7 : i64} : (tensor<2x48xi8>, tensor<2x1xf32>) -> tensor<2x48xf32>
  return
}

// -----

// Packed 4-bit weights are ui8 bytes of two values each.
func.func @weight_only_linear_storage(%x: tensor<3x64xf32>, %w: tensor<2x64xi8>, %s: tensor<2x2xf32>) {
  // expected-error @+1 {{'edge.weight_only_linear' op a 4-bit weight is stored as 'ui8' [rows, columns / 2], got 'tensor<2x64xi8>'}}
  %0 = edge.weight_only_linear %x, %w, %s {bits = 4 : i64, group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<3x64xf32>, tensor<2x64xi8>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return
}

// -----

// 4-bit groups are whole 32-column blocks.
func.func @weight_only_linear_block(%x: tensor<3x64xf32>, %w: tensor<2x32xui8>, %s: tensor<2x4xf32>) {
  // expected-error @+1 {{'edge.weight_only_linear' op 4-bit weights pack columns in blocks of 32: the 64 columns and group_size 16 must be multiples}}
  %0 = edge.weight_only_linear %x, %w, %s {bits = 4 : i64, group_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<3x64xf32>, tensor<2x32xui8>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

// The input's last dim is the weight's columns.
func.func @weight_only_linear_columns(%x: tensor<3x32xf32>, %w: tensor<2x64xi8>, %s: tensor<2x1xf32>) {
  // expected-error @+1 {{'edge.weight_only_linear' op input 'tensor<3x32xf32>' must end in the weight's 64 columns}}
  %0 = edge.weight_only_linear %x, %w, %s {bits = 8 : i64, group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<3x32xf32>, tensor<2x64xi8>, tensor<2x1xf32>) -> tensor<3x2xf32>
  return
}

// -----

// Only 4 and 8 bits.
func.func @weight_only_embedding_bits(%w: tensor<2x64xi8>, %s: tensor<2x1xf32>, %ids: tensor<3xi64>) {
  // expected-error @+1 {{'edge.weight_only_embedding' op bits must be 4 or 8, got 2}}
  %0 = edge.weight_only_embedding %w, %s, %ids {bits = 2 : i64, group_size = 64 : i64} : (tensor<2x64xi8>, tensor<2x1xf32>, tensor<3xi64>) -> tensor<3x64xf32>
  return
}

// -----

func.func @cat_extent_overflow(%a: tensor<4611686018427387904xi8>) {
  // expected-error @+2 {{'edge.cat' op the cat dim's extent does not fit int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.cat %a, %a, %a : (tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>) -> tensor<?xi8>
  return
}

// -----

// permute names every dim once: as many entries as the rank.
func.func @permute_count(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'edge.permute' op dims [1, 0] must have 3 entries (the rank)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.permute %a {dims = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

// transpose: both dims in range (a scalar takes 0 and -1 only).
func.func @transpose_scalar_dim(%a: tensor<f32>) {
  // expected-error @+2 {{'edge.transpose' op dim1 1 is out of range for rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.transpose %a {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// select drops a dim: a scalar has none.
func.func @select_scalar(%a: tensor<f32>) {
  // expected-error @+2 {{'edge.select' op dim 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.select %a {dim = 0 : i64, index = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// A scalar is its own top 1.
func.func @topk_scalar(%a: tensor<f32>) {
  // expected-error @+2 {{'edge.topk' op k = 2 of a scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %v, %i = edge.topk %a {dim = 0 : i64, k = 2 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

// expand keeps every dim of self: size has at least as many entries.
func.func @expand_fewer(%a: tensor<3x2xf32>) {
  // expected-error @+2 {{'edge.expand' op size [2] has fewer entries than tensor<3x2xf32> has dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.expand %a {size = array<i64: 2>} : (tensor<3x2xf32>) -> tensor<2xf32>
  return
}

// -----

// A new leading dim has a size of its own (-1 keeps only existing dims).
func.func @expand_leading(%a: tensor<2xf32>) {
  // expected-error @+2 {{'edge.expand' op new leading dim 0 must have a size >= 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = edge.expand %a {size = array<i64: -1, 2>} : (tensor<2xf32>) -> tensor<1x2xf32>
  return
}
