// One convolution large enough that the kernel pool splits it across its
// threads (8 tiles of 128 pixels), for et-run --trace's thread tracks.
func.func @forward(%x: tensor<1x16x32x32xf32>) -> tensor<1x32x32x32xf32> {
  %w = edge.constant dense<0.01> : tensor<32x16x3x3xf32>
  %b = edge.constant dense<0.5> : tensor<32xf32>
  %0 = edge.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x16x32x32xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x32x32xf32>
  %1 = edge.relu %0 : (tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %1 : tensor<1x32x32x32xf32>
}
