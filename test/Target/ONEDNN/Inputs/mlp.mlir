// A transformer MLP on a rank-3 value: the inner products flatten [2, 16]
// into rows, so the residual add, fused as their binary post-op, must be
// described in those [32, 64] dims too.
func.func @forward(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %w1 = edge.constant dense<0.02> : tensor<128x64xf32>
  %b1 = edge.constant dense<0.1> : tensor<128xf32>
  %w2 = edge.constant dense<-0.03> : tensor<64x128xf32>
  %b2 = edge.constant dense<0.2> : tensor<64xf32>
  %0 = edge.linear %x, %w1, %b1 : (tensor<2x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<2x16x128xf32>
  %1 = edge.gelu %0 : (tensor<2x16x128xf32>) -> tensor<2x16x128xf32>
  %2 = edge.linear %1, %w2, %b2 : (tensor<2x16x128xf32>, tensor<64x128xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %3 = edge.add %x, %2 : (tensor<2x16x64xf32>, tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %3 : tensor<2x16x64xf32>
}
