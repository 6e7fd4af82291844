// abs, sqrt, neg, round, maximum, constant_pad_nd, minimum, floor, ceil,
// leaky_relu, elu, silu for the XNNPACK elementwise test.
func.func @forward(%x: tensor<1x3x4x5xf32>, %y: tensor<1x3x4x5xf32>) -> (tensor<1x3x7x8xf32>, tensor<1x3x4x5xf32>) {
  %0 = edge.abs %x : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %1 = edge.sqrt %0 : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %2 = edge.neg %1 : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %3 = edge.round %2 : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %4 = edge.maximum %3, %y : (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %5 = edge.constant_pad_nd %4 {pad = array<i64: 1, 2, 0, 3>, value = -1.5 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x7x8xf32>
  %6 = edge.minimum %x, %y : (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %7 = edge.floor %6 : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %8 = edge.ceil %7 : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %9 = edge.leaky_relu %8 {negative_slope = 0.2 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %10 = edge.elu %9 {alpha = 0.5 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %11 = edge.silu %10 : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  return %5, %11 : tensor<1x3x7x8xf32>, tensor<1x3x4x5xf32>
}
