// A small conv block for the XNNPACK blob test.
func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x4xf32> {
  %w1 = edge.constant dense<0.05> : tensor<8x3x3x3xf32>
  %b1 = edge.constant dense<0.1> : tensor<8xf32>
  %w2 = edge.constant dense<0.2> : tensor<8x1x3x3xf32>
  %fc = edge.constant dense<0.3> : tensor<4x8xf32>
  %0 = edge.convolution %x, %w1, %b1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %1 = edge.relu %0 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %2 = edge.convolution %1, %w2 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 8} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32>
  %3 = edge.hardtanh %2 {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %4 = edge.hardswish %3 : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %5 = edge.mean %4 {dim = array<i64: 2, 3>} : (tensor<1x8x4x4xf32>) -> tensor<1x8xf32>
  %6 = edge.linear %5, %fc : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
  %7 = edge.log_softmax %6 {dim = 1 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %7 : tensor<1x4xf32>
}
