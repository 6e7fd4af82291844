// A residual conv block for the oneDNN tests: relu, relu6 and hardswish
// fuse as eltwise post-ops, the residual add as a sum post-op of the
// second convolution (its other operand is ready by then), the mean and the
// linear layer close the block. Weights vary per element so that a layout
// mistake shows in the outputs.
func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x4xf32> {
  %w1 = edge.constant dense<[[[[0.1, -0.2, 0.3], [0.05, 0.2, -0.1], [0.3, 0.1, 0.0]], [[-0.3, 0.2, 0.1], [0.1, -0.1, 0.2], [0.0, 0.3, -0.2]], [[0.2, 0.0, -0.1], [0.3, 0.2, 0.1], [-0.2, 0.1, 0.3]]], [[[0.2, 0.1, 0.0], [-0.1, 0.3, 0.2], [0.1, -0.2, 0.1]], [[0.0, 0.1, 0.2], [0.3, -0.3, 0.1], [0.2, 0.2, -0.1]], [[-0.1, 0.2, 0.3], [0.1, 0.0, -0.2], [0.3, 0.1, 0.2]]], [[[-0.2, 0.3, 0.1], [0.2, 0.1, 0.0], [0.1, -0.1, 0.3]], [[0.3, 0.0, -0.2], [0.1, 0.2, 0.1], [-0.1, 0.3, 0.0]], [[0.1, 0.1, 0.2], [-0.3, 0.2, 0.1], [0.0, 0.1, -0.1]]], [[[0.3, -0.1, 0.2], [0.0, 0.1, 0.3], [-0.2, 0.2, 0.1]], [[0.1, 0.3, 0.0], [0.2, -0.2, 0.1], [0.1, 0.0, 0.2]], [[0.2, -0.3, 0.1], [0.1, 0.2, -0.1], [0.3, 0.1, 0.0]]]]> : tensor<4x3x3x3xf32>
  %b1 = edge.constant dense<[0.1, -0.2, 0.05, 0.3]> : tensor<4xf32>
  %w2 = edge.constant dense<[[[[0.2, -0.1, 0.3], [0.1, 0.5, 0.1], [0.0, -0.2, 0.2]]], [[[0.1, 0.1, 0.1], [0.2, -0.4, 0.2], [0.1, 0.1, 0.1]]], [[[-0.3, 0.2, 0.0], [0.1, 0.3, -0.1], [0.2, 0.0, 0.1]]], [[[0.0, 0.2, -0.2], [0.3, 0.1, 0.3], [-0.1, 0.2, 0.0]]]]> : tensor<4x1x3x3xf32>
  %w3 = edge.constant dense<[[[[0.5]], [[-0.25]], [[0.125]], [[0.75]]], [[[0.25]], [[0.5]], [[-0.5]], [[0.1]]], [[[-0.1]], [[0.3]], [[0.6]], [[0.2]]], [[[0.4]], [[0.2]], [[0.1]], [[-0.3]]]]> : tensor<4x4x1x1xf32>
  %fc = edge.constant dense<[[0.1, 0.2, 0.3, 0.4], [-0.4, 0.3, -0.2, 0.1], [0.5, -0.5, 0.25, -0.25], [0.0, 0.1, 0.0, -0.1]]> : tensor<4x4xf32>
  %fcb = edge.constant dense<[0.01, 0.02, 0.03, 0.04]> : tensor<4xf32>
  %0 = edge.convolution %x, %w1, %b1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = edge.relu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = edge.convolution %1, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %3 = edge.hardtanh %2 {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %4 = edge.convolution %3, %w3 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %5 = edge.add %4, %1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %6 = edge.hardswish %5 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %7 = edge.max_pool2d %6 {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  %8 = edge.mean %7 {dim = array<i64: 2, 3>} : (tensor<1x4x5x5xf32>) -> tensor<1x4xf32>
  %9 = edge.linear %8, %fc, %fcb : (tensor<1x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %10 = edge.gelu %9 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %10 : tensor<1x4xf32>
}
