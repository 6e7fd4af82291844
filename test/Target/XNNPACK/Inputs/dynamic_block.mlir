// A block whose batch is dynamic (1..6): convolution, relu, global pooling,
// a reshape with one dynamic dim, a linear layer, softmax; and a reshape to
// two dynamic dims, which XNNPACK's rules leave to portable.
func.func @forward(%x: tensor<?x3x8x8xf32> {etch.name = "x", etch.min_sizes = array<i64: 1, 3, 8, 8>, etch.max_sizes = array<i64: 6, 3, 8, 8>}) -> (tensor<?x4xf32>, tensor<?x?xf32>) {
  %w = edge.constant dense<0.125> : tensor<8x3x3x3xf32>
  %b = edge.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]> : tensor<8xf32>
  %fw = edge.constant dense<[[1.0, 0.5, -0.5, 0.25, 0.0, 1.0, -1.0, 0.5], [0.5, -1.0, 0.25, 0.5, 1.0, -0.5, 0.0, 0.25], [-0.25, 0.5, 1.0, -1.0, 0.5, 0.0, 0.25, 1.0], [0.0, 0.25, -0.5, 1.0, -0.25, 0.5, 1.0, -1.0]]> : tensor<4x8xf32>
  %c = edge.convolution %x, %w, %b {padding = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<?x8x8x8xf32>
  %r = edge.relu %c : (tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  %p = edge.adaptive_avg_pool2d %r {output_size = array<i64: 1, 1>} : (tensor<?x8x8x8xf32>) -> tensor<?x8x1x1xf32>
  %v = edge.view %p {size = array<i64: -1, 8>} : (tensor<?x8x1x1xf32>) -> tensor<?x8xf32>
  %l = edge.linear %v, %fw : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  %s = edge.softmax %l {dim = -1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %n = edge.sym_size %x {dim = 0 : i64} : (tensor<?x3x8x8xf32>) -> tensor<i64>
  %flat = edge.view %r, %n {size = array<i64: -9223372036854775808, -1>} : (tensor<?x8x8x8xf32>, tensor<i64>) -> tensor<?x?xf32>
  return %s, %flat : tensor<?x4xf32>, tensor<?x?xf32>
}
