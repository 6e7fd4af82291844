// Ops the oneDNN target leaves to others, one per rule.
func.func @forward(%x: tensor<1x4x8x8xf32>, %n: tensor<2x4xf32>, %d: tensor<?x4xf32> {etch.min_sizes = array<i64: 1, 4>, etch.max_sizes = array<i64: 3, 4>}) -> (tensor<1x4x17x17xf32>, tensor<2x4xf32>, tensor<?x4xf32>, tensor<1x4x8x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = edge.constant dense<0.1> : tensor<4x4x3x3xf32>
  %c = edge.constant dense<0.5> : tensor<1x4x1x1xf32>
  %0 = edge.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x17x17xf32>
  %1 = edge.sub %c, %x : (tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = edge.softmax %n {dim = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = edge.relu %d : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // An activation kind oneDNN has no eltwise algorithm for, and an elu no
  // target computes (scale other than 1).
  %4 = edge.hardsigmoid %n : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %5 = edge.elu %n {scale = 2.0 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0, %2, %3, %1, %4, %5 : tensor<1x4x17x17xf32>, tensor<2x4xf32>, tensor<?x4xf32>, tensor<1x4x8x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
