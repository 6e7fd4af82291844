// Depthwise filters of 49 taps (ConvNeXt's 7x7) and 25 taps (5x5): XNNPACK
// 2022 has depthwise kernels for 3, 4, 9 and 25 taps only.
func.func @forward(%x: tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32> {
  %w7 = edge.constant dense<0.02> : tensor<8x1x7x7xf32>
  %b7 = edge.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]> : tensor<8xf32>
  %w5 = edge.constant dense<-0.04> : tensor<8x1x5x5xf32>
  %a = edge.convolution %x, %w7, %b7 {padding = array<i64: 3, 3>, groups = 8 : i64} : (tensor<1x8x12x12xf32>, tensor<8x1x7x7xf32>, tensor<8xf32>) -> tensor<1x8x12x12xf32>
  %b = edge.convolution %a, %w5 {padding = array<i64: 2, 2>, groups = 8 : i64} : (tensor<1x8x12x12xf32>, tensor<8x1x5x5xf32>) -> tensor<1x8x12x12xf32>
  return %b : tensor<1x8x12x12xf32>
}
