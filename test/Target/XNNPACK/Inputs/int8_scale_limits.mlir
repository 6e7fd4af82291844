// Int8 ops whose scales XNNPACK 2022's int8 nodes refuse (or assert on):
// a linear whose input * weight / output scale is below 2^-32, an add whose
// input scale is over 2^8 times the output's, a multiply whose scale product
// over the output's is below 2^-16. Each runs in fp32 between converts.
!qin = !quant.uniform<i8:f32, 1.0e-6:0>
!qout = !quant.uniform<i8:f32, 1.0:0>
!qbig = !quant.uniform<i8:f32, 0.5:0>
!qsmall = !quant.uniform<i8:f32, 1.0e-3:0>
!fc = !quant.uniform<i8<-127:127>:f32, 1.0e-6>
func.func @forward(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %fc = edge.constant dense<[[1, 2, 3, 4], [-4, -3, -2, -1], [10, 0, -10, 5]]> : tensor<3x4xi8> as tensor<3x4x!fc>
  %xq = edge.quantize %x : tensor<2x4xf32> -> tensor<2x4x!qin>
  %xd = edge.dequantize %xq : tensor<2x4x!qin> -> tensor<2x4xf32>
  %fcd = edge.dequantize %fc : tensor<3x4x!fc> -> tensor<3x4xf32>
  %l = edge.linear %xd, %fcd : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %lq = edge.quantize %l : tensor<2x3xf32> -> tensor<2x3x!qout>
  %ld = edge.dequantize %lq : tensor<2x3x!qout> -> tensor<2x3xf32>
  %bq = edge.quantize %y : tensor<2x4xf32> -> tensor<2x4x!qbig>
  %bd = edge.dequantize %bq : tensor<2x4x!qbig> -> tensor<2x4xf32>
  %sq = edge.quantize %x : tensor<2x4xf32> -> tensor<2x4x!qsmall>
  %sd = edge.dequantize %sq : tensor<2x4x!qsmall> -> tensor<2x4xf32>
  %a = edge.add %bd, %sd : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %aq = edge.quantize %a : tensor<2x4xf32> -> tensor<2x4x!qsmall>
  %ad = edge.dequantize %aq : tensor<2x4x!qsmall> -> tensor<2x4xf32>
  %m = edge.mul %sd, %sd : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %mq = edge.quantize %m : tensor<2x4xf32> -> tensor<2x4x!qbig>
  %md = edge.dequantize %mq : tensor<2x4x!qbig> -> tensor<2x4xf32>
  return %ld, %ad, %md : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
