// SiLUs for the load-time choice: one after a convolution whose output
// dies there (the pass writes in place), one on a value read again later
// (a residual: the pass writes elsewhere), a SiLU of a SiLU, and a
// delegate output; 8x64x65 = 33,280 elements take three chunks of the
// pass (and a tail shorter than a vector).
func.func @forward(%x: tensor<1x8x64x65xf32>) -> (tensor<1x8x64x65xf32>, tensor<1x8x64x65xf32>) {
  %w = edge.constant dense<0.05> : tensor<8x8x1x1xf32>
  %b = edge.constant dense<-0.3> : tensor<8xf32>
  %0 = edge.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x8x64x65xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>) -> tensor<1x8x64x65xf32>
  %1 = edge.silu %0 : (tensor<1x8x64x65xf32>) -> tensor<1x8x64x65xf32>
  %2 = edge.silu %1 : (tensor<1x8x64x65xf32>) -> tensor<1x8x64x65xf32>
  %3 = edge.add %2, %1 : (tensor<1x8x64x65xf32>, tensor<1x8x64x65xf32>) -> tensor<1x8x64x65xf32>
  %4 = edge.silu %3 : (tensor<1x8x64x65xf32>) -> tensor<1x8x64x65xf32>
  return %4, %3 : tensor<1x8x64x65xf32>, tensor<1x8x64x65xf32>
}
