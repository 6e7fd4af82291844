// Four products for the load-time GEMM choice: a 3x3 convolution over 8
// channels (a reduction of 72, 64 output rows), a 1x1 convolution over 32,
// a 1x1 convolution over 8 (too shallow) and a classifier on one row (too
// few rows).
func.func @forward(%x: tensor<1x8x8x8xf32>) -> tensor<1x4xf32> {
  %w1 = edge.constant dense<0.01> : tensor<32x8x3x3xf32>
  %b1 = edge.constant dense<0.1> : tensor<32xf32>
  %w2 = edge.constant dense<-0.02> : tensor<8x32x1x1xf32>
  %w3 = edge.constant dense<0.05> : tensor<32x8x1x1xf32>
  %fc = edge.constant dense<0.3> : tensor<4x32xf32>
  %0 = edge.convolution %x, %w1, %b1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x3x3xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
  %1 = edge.relu %0 : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %2 = edge.convolution %1, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>, tensor<8x32x1x1xf32>) -> tensor<1x8x8x8xf32>
  %3 = edge.convolution %2, %w3 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x8x8xf32>
  %4 = edge.mean %3 {dim = array<i64: 2, 3>} : (tensor<1x32x8x8xf32>) -> tensor<1x32xf32>
  %5 = edge.linear %4, %fc : (tensor<1x32xf32>, tensor<4x32xf32>) -> tensor<1x4xf32>
  return %5 : tensor<1x4xf32>
}
