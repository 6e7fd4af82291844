// A program for three targets: the convolutions and the softmax on Vulkan,
// the zero padding between them (no Vulkan shader) on XNNPACK, the
// rounding division on portable; values cross each delegate border once.
func.func @forward(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x3x3xf32>, %w2: tensor<3x4x3x3xf32>)
    -> (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) {
  %two = edge.constant dense<2.0> : tensor<f32>
  %0 = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = edge.relu %0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = edge.constant_pad_nd %1 {pad = array<i64: 2, 2, 2, 2>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x10x10xf32>
  %3 = edge.convolution %2, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10xf32>, tensor<3x4x3x3xf32>) -> tensor<1x3x8x8xf32>
  %4 = edge.softmax %3 {dim = 1 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %5 = edge.div %3, %two {rounding_mode = "floor"} : (tensor<1x3x8x8xf32>, tensor<f32>) -> tensor<1x3x8x8xf32>
  return %4, %5 : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
}
