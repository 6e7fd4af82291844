// Three delegates, three layouts: a conv with its relu (channels-last: NHWC
// inside, rank-4 borders converted), a fully connected layer over the last dim
// of the conv's rank-4 result (the program's layout: it must not share the
// conv's delegate), and elementwise ops with a broadcast constant (no 2-D op:
// the program's layout, no conversions).
func.func @forward(%x: tensor<1x3x6x6xf32>, %y: tensor<1x4x6x5xf32>) -> (tensor<1x4x6x5xf32>, tensor<1x4x6x5xf32>) {
  %w = edge.constant dense<0.25> : tensor<4x3x3x3xf32>
  %c = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = edge.relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %fw = edge.constant dense<[[0.1, -0.2, 0.3, -0.4, 0.5, -0.6], [1.0, 0.0, -1.0, 0.5, 0.25, 0.125], [0.3, 0.3, 0.3, -0.3, -0.3, -0.3], [2.0, -1.0, 0.0, 1.0, -2.0, 0.5], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]]> : tensor<5x6xf32>
  %fb = edge.constant dense<[0.5, -0.5, 0.0, 1.0, 2.0]> : tensor<5xf32>
  %l = edge.linear %r, %fw, %fb : (tensor<1x4x6x6xf32>, tensor<5x6xf32>, tensor<5xf32>) -> tensor<1x4x6x5xf32>
  %s = edge.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %m = edge.mul %y, %s : (tensor<1x4x6x5xf32>, tensor<5xf32>) -> tensor<1x4x6x5xf32>
  %a = edge.add %m, %y : (tensor<1x4x6x5xf32>, tensor<1x4x6x5xf32>) -> tensor<1x4x6x5xf32>
  return %l, %a : tensor<1x4x6x5xf32>, tensor<1x4x6x5xf32>
}
