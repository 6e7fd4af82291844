// Ops the Vulkan target leaves to others, one per rule.
func.func @forward(%x: tensor<1x4x8x8xf32>, %i: tensor<2x4xi64>, %d: tensor<?x4xf32> {etch.min_sizes = array<i64: 1, 4>, etch.max_sizes = array<i64: 3, 4>})
    -> (tensor<1x4x17x17xf32>, tensor<2x4xi64>, tensor<?x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = edge.constant dense<0.1> : tensor<4x4x3x3xf32>
  %two = edge.constant dense<2.0> : tensor<f32>
  %0 = edge.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x17x17xf32>
  %1 = edge.add %i, %i : (tensor<2x4xi64>, tensor<2x4xi64>) -> tensor<2x4xi64>
  %2 = edge.relu %d : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = edge.div %x, %two {rounding_mode = "trunc"} : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
  %4 = edge.elu %x {scale = 2.0 : f64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %0, %1, %2, %3, %4 : tensor<1x4x17x17xf32>, tensor<2x4xi64>, tensor<?x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
