// Pooling, normalization and reductions: max pooling with dilation and
// ceil_mode, average pooling with and without counted padding and with a
// divisor override, adaptive average pooling to sizes that do not divide
// the input, softmax and log_softmax along middle and last dims, layer_norm
// over two dims with and without affine parameters, mean/sum/amax/amin.
func.func @forward(%x: tensor<2x3x9x10xf32>, %t: tensor<2x5x6xf32>, %g: tensor<5x6xf32>, %h: tensor<5x6xf32>)
    -> (tensor<2x3x4x6xf32>, tensor<2x3x5x6xf32>, tensor<2x3x5x5xf32>, tensor<2x3x4x4xf32>,
        tensor<2x3x4x3xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>,
        tensor<2x3xf32>, tensor<2x1x6xf32>, tensor<5xf32>, tensor<2x6xf32>, tensor<2x3x1x1xf32>) {
  %0 = edge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 1>, ceil_mode = true} : (tensor<2x3x9x10xf32>) -> tensor<2x3x4x6xf32>
  %1 = edge.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<2x3x9x10xf32>) -> tensor<2x3x5x6xf32>
  %2 = edge.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false} : (tensor<2x3x9x10xf32>) -> tensor<2x3x5x5xf32>
  %3 = edge.avg_pool2d %x {kernel_size = array<i64: 2, 2>, divisor_override = 3 : i64} : (tensor<2x3x9x10xf32>) -> tensor<2x3x4x5xf32>
  %s3 = edge.slice %3 {dim = 3 : i64, start = 1 : i64, end = 5 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x4xf32>
  %4 = edge.adaptive_avg_pool2d %x {output_size = array<i64: 4, 3>} : (tensor<2x3x9x10xf32>) -> tensor<2x3x4x3xf32>
  %5 = edge.softmax %t {dim = 1 : i64} : (tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  %6 = edge.log_softmax %t {dim = -1 : i64} : (tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  %7 = edge.layer_norm %t weight %g bias %h {normalized_shape = array<i64: 5, 6>, eps = 1.0e-3 : f64} : (tensor<2x5x6xf32>, tensor<5x6xf32>, tensor<5x6xf32>) -> tensor<2x5x6xf32>
  %8 = edge.layer_norm %t {normalized_shape = array<i64: 6>} : (tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  %9 = edge.mean %x {dim = array<i64: -1, 2>} : (tensor<2x3x9x10xf32>) -> tensor<2x3xf32>
  %10 = edge.sum %t {dim = array<i64: 1>, keepdim = true} : (tensor<2x5x6xf32>) -> tensor<2x1x6xf32>
  %11 = edge.amax %t {dim = array<i64: 0, 2>} : (tensor<2x5x6xf32>) -> tensor<5xf32>
  %12 = edge.amin %t {dim = array<i64: 1>} : (tensor<2x5x6xf32>) -> tensor<2x6xf32>
  %13 = edge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<2x3x9x10xf32>) -> tensor<2x3x1x1xf32>
  return %0, %1, %2, %s3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<2x3x4x6xf32>, tensor<2x3x5x6xf32>, tensor<2x3x5x5xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x3xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x3xf32>, tensor<2x1x6xf32>, tensor<5xf32>, tensor<2x6xf32>, tensor<2x3x1x1xf32>
}
