// Average pooling with padding, as Inception's branches use it: the padding
// counted in the divisor (ATen's default), not counted, with stride 2 and
// uneven padding per axis, for the XNNPACK pooling test.
func.func @forward(%x: tensor<1x6x9x7xf32>) -> (tensor<1x6x9x7xf32>, tensor<1x6x9x7xf32>, tensor<1x6x5x3xf32>) {
  %0 = edge.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>} : (tensor<1x6x9x7xf32>) -> tensor<1x6x9x7xf32>
  %1 = edge.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x6x9x7xf32>) -> tensor<1x6x9x7xf32>
  %2 = edge.avg_pool2d %x {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0>} : (tensor<1x6x9x7xf32>) -> tensor<1x6x5x3xf32>
  return %0, %1, %2 : tensor<1x6x9x7xf32>, tensor<1x6x9x7xf32>, tensor<1x6x5x3xf32>
}
