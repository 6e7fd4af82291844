// A quantized block as PT2E writes it: per-channel conv weights with a float
// bias, relu between conv and quantize, a residual add, a depthwise conv with
// per-tensor weights, max pooling and a global pool that keep or change the
// parameters, a per-tensor fully connected layer with an int32 bias, and a
// hardswish (no int8 node in XNNPACK 2022: converts around an fp32 node).
!q0 = !quant.uniform<i8:f32, 0.02:-3>
!q1 = !quant.uniform<i8:f32, 0.03:-128>
!q2 = !quant.uniform<i8:f32, 0.05:-10>
!q3 = !quant.uniform<i8:f32, 0.04:-20>
!w = !quant.uniform<i8<-127:127>:f32:0, {0.01, 0.02, 0.015, 0.012}>
!dw = !quant.uniform<i8<-127:127>:f32, 0.02>
!fc = !quant.uniform<i8<-127:127>:f32, 0.01>
!fcb = !quant.uniform<i32:f32, 0.0004>
func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x5xf32> {
  %w = edge.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, 3], [4, -5, 6], [7, 8, -9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[9, 8, 7], [6, 5, 4], [3, 2, 1]], [[-9, 8, 7], [6, -5, 4], [3, 2, -1]], [[9, 8, 7], [6, 5, 4], [3, 2, 1]]], [[[1, 1, 1], [1, 1, 1], [1, 1, 1]], [[-1, -1, -1], [-1, -1, -1], [-1, -1, -1]], [[2, 2, 2], [2, 2, 2], [2, 2, 2]]], [[[10, 0, -10], [10, 0, -10], [10, 0, -10]], [[5, 0, -5], [5, 0, -5], [5, 0, -5]], [[3, 0, -3], [3, 0, -3], [3, 0, -3]]]]> : tensor<4x3x3x3xi8> as tensor<4x3x3x3x!w>
  %b = edge.constant dense<[0.1, -0.2, 0.05, 0.0]> : tensor<4xf32>
  %dw = edge.constant dense<[[[[1, 2, 1], [2, 4, 2], [1, 2, 1]]], [[[0, 1, 0], [1, -4, 1], [0, 1, 0]]], [[[1, 0, -1], [2, 0, -2], [1, 0, -1]]], [[[3, 3, 3], [3, 3, 3], [3, 3, 3]]]]> : tensor<4x1x3x3xi8> as tensor<4x1x3x3x!dw>
  %fc = edge.constant dense<[[1, 2, 3, 4], [-4, -3, -2, -1], [10, 0, -10, 5], [7, 7, 7, 7], [0, 1, 0, -1]]> : tensor<5x4xi8> as tensor<5x4x!fc>
  %fcb = edge.constant dense<[100, -50, 25, 0, 10]> : tensor<5xi32> as tensor<5x!fcb>
  %xq = edge.quantize %x : tensor<1x3x8x8xf32> -> tensor<1x3x8x8x!q0>
  %xd = edge.dequantize %xq : tensor<1x3x8x8x!q0> -> tensor<1x3x8x8xf32>
  %wd = edge.dequantize %w : tensor<4x3x3x3x!w> -> tensor<4x3x3x3xf32>
  %c = edge.convolution %xd, %wd, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = edge.relu %c : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %rq = edge.quantize %r : tensor<1x4x8x8xf32> -> tensor<1x4x8x8x!q1>
  %rd = edge.dequantize %rq : tensor<1x4x8x8x!q1> -> tensor<1x4x8x8xf32>
  %rd2 = edge.dequantize %rq : tensor<1x4x8x8x!q1> -> tensor<1x4x8x8xf32>
  %dwd = edge.dequantize %dw : tensor<4x1x3x3x!dw> -> tensor<4x1x3x3xf32>
  %d = edge.convolution %rd, %dwd {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %dq = edge.quantize %d : tensor<1x4x8x8xf32> -> tensor<1x4x8x8x!q2>
  %dd = edge.dequantize %dq : tensor<1x4x8x8x!q2> -> tensor<1x4x8x8xf32>
  %s = edge.add %dd, %rd2 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %sq = edge.quantize %s : tensor<1x4x8x8xf32> -> tensor<1x4x8x8x!q2>
  %sd = edge.dequantize %sq : tensor<1x4x8x8x!q2> -> tensor<1x4x8x8xf32>
  %p = edge.max_pool2d %sd {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %pq = edge.quantize %p : tensor<1x4x4x4xf32> -> tensor<1x4x4x4x!q2>
  %pd = edge.dequantize %pq : tensor<1x4x4x4x!q2> -> tensor<1x4x4x4xf32>
  %g = edge.mean %pd {dim = array<i64: 2, 3>} : (tensor<1x4x4x4xf32>) -> tensor<1x4xf32>
  %gq = edge.quantize %g : tensor<1x4xf32> -> tensor<1x4x!q3>
  %gd = edge.dequantize %gq : tensor<1x4x!q3> -> tensor<1x4xf32>
  %fcd = edge.dequantize %fc : tensor<5x4x!fc> -> tensor<5x4xf32>
  %fcbd = edge.dequantize %fcb : tensor<5x!fcb> -> tensor<5xf32>
  %l = edge.linear %gd, %fcd, %fcbd : (tensor<1x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<1x5xf32>
  %lq = edge.quantize %l : tensor<1x5xf32> -> tensor<1x5x!q3>
  %ld = edge.dequantize %lq : tensor<1x5x!q3> -> tensor<1x5xf32>
  %h = edge.hardswish %ld : (tensor<1x5xf32>) -> tensor<1x5xf32>
  return %h : tensor<1x5xf32>
}
