// Data movement: view, permute, transpose, cat along a middle dim (one
// piece a constant), slice with a step and a negative start, select with a
// negative index, expand, unsqueeze/squeeze; each result computed (a Vulkan
// delegate must hold a dispatch, so views feed an add).
func.func @forward(%x: tensor<2x3x4x5xf32>, %y: tensor<2x2x4x5xf32>, %v: tensor<3x1xf32>)
    -> (tensor<6x20xf32>, tensor<5x2x4x3xf32>, tensor<2x4x3x5xf32>, tensor<2x6x4x5xf32>,
        tensor<2x3x4x2xf32>, tensor<2x3x5xf32>, tensor<2x3x6xf32>, tensor<3x4x5xf32>) {
  %one = edge.constant dense<1.0> : tensor<f32>
  %c = edge.constant dense<[[[[0.5, 1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5, 9.5], [1.0, 2.0, 3.0, 4.0, 5.0], [-1.0, -2.0, -3.0, -4.0, -5.0]]]]> : tensor<1x1x4x5xf32>
  %v0 = edge.view %x {size = array<i64: 6, 20>} : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
  %a0 = edge.add %v0, %one : (tensor<6x20xf32>, tensor<f32>) -> tensor<6x20xf32>
  %p = edge.permute %x {dims = array<i64: 3, 0, 2, 1>} : (tensor<2x3x4x5xf32>) -> tensor<5x2x4x3xf32>
  %t = edge.transpose %x {dim0 = 1 : i64, dim1 = -2 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x4x3x5xf32>
  %ce = edge.expand %c {size = array<i64: 2, 1, 4, 5>} : (tensor<1x1x4x5xf32>) -> tensor<2x1x4x5xf32>
  %cat = edge.cat %x, %ce, %y {dim = 1 : i64} : (tensor<2x3x4x5xf32>, tensor<2x1x4x5xf32>, tensor<2x2x4x5xf32>) -> tensor<2x6x4x5xf32>
  %s = edge.slice %x {dim = 3 : i64, start = -4 : i64, end = 5 : i64, step = 2 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x2xf32>
  %sel = edge.select %x {dim = 2 : i64, index = -1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32>
  %ve = edge.expand %v {size = array<i64: 2, 3, 6>} : (tensor<3x1xf32>) -> tensor<2x3x6xf32>

  %sq = edge.select %x {dim = 0 : i64, index = 1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<3x4x5xf32>
  %m = edge.mul %sq, %sq : (tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  return %a0, %p, %t, %cat, %s, %sel, %ve, %m : tensor<6x20xf32>, tensor<5x2x4x3xf32>, tensor<2x4x3x5xf32>, tensor<2x6x4x5xf32>, tensor<2x3x4x2xf32>, tensor<2x3x5xf32>, tensor<2x3x6xf32>, tensor<3x4x5xf32>
}
