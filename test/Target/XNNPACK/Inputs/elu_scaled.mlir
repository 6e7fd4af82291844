// elu with a scale: XNNPACK's elu has alpha only, so it stays on portable.
func.func @forward(%x: tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %0 = edge.elu %x {scale = 2.0 : f64} : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}
