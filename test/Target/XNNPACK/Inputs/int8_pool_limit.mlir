// A quantized global average pool over 2^24 + 4096 pixels: more than
// XNNPACK's int8 pooling sums in int32, so it pools in fp32 between converts.
!q = !quant.uniform<i8:f32, 0.05:-10>
func.func @forward(%x: tensor<1x1x4097x4096xf32>) -> tensor<1x1xf32> {
  %xq = edge.quantize %x : tensor<1x1x4097x4096xf32> -> tensor<1x1x4097x4096x!q>
  %xd = edge.dequantize %xq : tensor<1x1x4097x4096x!q> -> tensor<1x1x4097x4096xf32>
  %g = edge.mean %xd {dim = array<i64: 2, 3>} : (tensor<1x1x4097x4096xf32>) -> tensor<1x1xf32>
  %gq = edge.quantize %g : tensor<1x1xf32> -> tensor<1x1x!q>
  %gd = edge.dequantize %gq : tensor<1x1x!q> -> tensor<1x1xf32>
  return %gd : tensor<1x1xf32>
}
