// Matrix products: linear on a rank-3 value with constant weights (packed
// [K, N] at compile time) and with weights as an argument (read through
// strides), addmm with a row bias, mm, bmm, each with sizes that leave
// partial tiles.
func.func @forward(%x: tensor<2x5x6xf32>, %w: tensor<7x6xf32>, %m: tensor<19x6xf32>,
                   %n: tensor<6x21xf32>, %bias: tensor<19x1xf32>, %a: tensor<3x17x5xf32>,
                   %b: tensor<3x5x18xf32>)
    -> (tensor<2x5x3xf32>, tensor<2x5x7xf32>, tensor<19x21xf32>, tensor<19x21xf32>, tensor<3x17x18xf32>) {
  %wc = edge.constant dense<[[0.5, -0.25, 0.125, 1.0, -1.5, 0.75], [0.3, 0.2, -0.1, -0.4, 0.6, -0.9], [1.1, -0.7, 0.05, 0.2, -0.3, 0.45]]> : tensor<3x6xf32>
  %bc = edge.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %0 = edge.linear %x, %wc, %bc : (tensor<2x5x6xf32>, tensor<3x6xf32>, tensor<3xf32>) -> tensor<2x5x3xf32>
  %1 = edge.linear %x, %w : (tensor<2x5x6xf32>, tensor<7x6xf32>) -> tensor<2x5x7xf32>
  %g = edge.gelu %1 : (tensor<2x5x7xf32>) -> tensor<2x5x7xf32>
  %2 = edge.addmm %bias, %m, %n : (tensor<19x1xf32>, tensor<19x6xf32>, tensor<6x21xf32>) -> tensor<19x21xf32>
  %3 = edge.mm %m, %n : (tensor<19x6xf32>, tensor<6x21xf32>) -> tensor<19x21xf32>
  %4 = edge.bmm %a, %b : (tensor<3x17x5xf32>, tensor<3x5x18xf32>) -> tensor<3x17x18xf32>
  return %0, %g, %2, %3, %4 : tensor<2x5x3xf32>, tensor<2x5x7xf32>, tensor<19x21xf32>, tensor<19x21xf32>, tensor<3x17x18xf32>
}
