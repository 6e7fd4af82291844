// A delegate of constants alone (a composite's constant term that nothing
// folded): its partition has no inputs.
func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = edge.constant dense<[1.5, -2.0, 0.25]> : tensor<3xf32>
  %a = edge.abs %c : (tensor<3xf32>) -> tensor<3xf32>
  %m = edge.lt %x, %a : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %r = edge.where %m, %x, %a : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
