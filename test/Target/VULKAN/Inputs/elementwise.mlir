// Every activation and binary op of the Vulkan target, with broadcasts
// (a row, a trailing vector, a scalar constant) and inputs kept positive
// where the function needs it. Generated once; outputs in this order:
// relu sigmoid tanh silu hardswish hardsigmoid abs exp neg erf floor ceil round sin cos trunc sign expm1 log1p sqrt rsqrt log reciprocal clamp leaky elu gelu gelut add sub mul div max min pow scaled square cube
func.func @forward(%x: tensor<3x4x5xf32>, %y: tensor<4x1xf32>, %z: tensor<5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
  %half = edge.constant dense<0.5> : tensor<f32>
  %ax = edge.abs %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %pos = edge.add %ax, %half : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
  %relu = edge.relu %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %sigmoid = edge.sigmoid %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %tanh = edge.tanh %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %silu = edge.silu %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %hardswish = edge.hardswish %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %hardsigmoid = edge.hardsigmoid %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %abs = edge.abs %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %exp = edge.exp %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %neg = edge.neg %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %erf = edge.erf %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %floor = edge.floor %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %ceil = edge.ceil %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %round = edge.round %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %sin = edge.sin %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %cos = edge.cos %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %trunc = edge.trunc %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %sign = edge.sign %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %expm1 = edge.expm1 %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %log1p = edge.log1p %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %sqrt = edge.sqrt %pos : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %rsqrt = edge.rsqrt %pos : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %log = edge.log %pos : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %reciprocal = edge.reciprocal %pos : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %clamp = edge.clamp %x {min = -0.5 : f64, max = 0.25 : f64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %leaky = edge.leaky_relu %x {negative_slope = 0.2 : f64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %elu = edge.elu %x {alpha = 0.7 : f64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %gelu = edge.gelu %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %gelut = edge.gelu %x {approximate = "tanh"} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %add = edge.add %x, %y {alpha = 2.0 : f64} : (tensor<3x4x5xf32>, tensor<4x1xf32>) -> tensor<3x4x5xf32>
  %sub = edge.sub %y, %x {alpha = 0.5 : f64} : (tensor<4x1xf32>, tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %mul = edge.mul %x, %z : (tensor<3x4x5xf32>, tensor<5xf32>) -> tensor<3x4x5xf32>
  %div = edge.div %x, %pos : (tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %max = edge.maximum %x, %y : (tensor<3x4x5xf32>, tensor<4x1xf32>) -> tensor<3x4x5xf32>
  %min = edge.minimum %y, %x : (tensor<4x1xf32>, tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %pow = edge.pow %pos, %y : (tensor<3x4x5xf32>, tensor<4x1xf32>) -> tensor<3x4x5xf32>
  %two = edge.constant dense<2.0> : tensor<f32>
  %three = edge.constant dense<3.0> : tensor<f32>
  %square = edge.pow %x, %two : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
  %cube = edge.pow %x, %three : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
  %scaled = edge.mul %x, %half : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
  return %relu, %sigmoid, %tanh, %silu, %hardswish, %hardsigmoid, %abs, %exp, %neg, %erf, %floor, %ceil, %round, %sin, %cos, %trunc, %sign, %expm1, %log1p, %sqrt, %rsqrt, %log, %reciprocal, %clamp, %leaky, %elu, %gelu, %gelut, %add, %sub, %mul, %div, %max, %min, %pow, %scaled, %square, %cube : tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>
}
