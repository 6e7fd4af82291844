// Scaled dot-product attention on the Vulkan target: grouped-query heads
// with a bool mask from outside the delegate, a float mask with an explicit
// scale, causal masking with more keys than queries, a constant bool mask
// (made additive at compile time, one row fully masked: zeros), and a
// query without a head dim.
func.func @forward(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x7x8xf32>, %v: tensor<2x2x7x6xf32>,
                   %keep: tensor<2x1x5x7xi1>, %bias: tensor<5x7xf32>, %q3: tensor<3x5x8xf32>,
                   %k3: tensor<3x4x8xf32>)
    -> (tensor<2x4x5x6xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>, tensor<3x5x8xf32>) {
  %kk = edge.cat %k, %k {dim = 1 : i64} : (tensor<2x2x7x8xf32>, tensor<2x2x7x8xf32>) -> tensor<2x4x7x8xf32>
  %0 = edge.scaled_dot_product_attention %q, %k, %v, %keep {enable_gqa = true} : (tensor<2x4x5x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x6xf32>, tensor<2x1x5x7xi1>) -> tensor<2x4x5x6xf32>
  %1 = edge.scaled_dot_product_attention %q, %kk, %kk, %bias {scale = 0.3 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x8xf32>, tensor<5x7xf32>) -> tensor<2x4x5x8xf32>
  %2 = edge.scaled_dot_product_attention %q, %kk, %kk {is_causal = true} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x8xf32>) -> tensor<2x4x5x8xf32>
  %m = edge.constant dense<[[true, false, true, true], [false, false, false, false], [true, true, true, true], [false, true, false, true], [true, false, false, false]]> : tensor<5x4xi1>
  %3 = edge.scaled_dot_product_attention %q3, %k3, %k3, %m : (tensor<3x5x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<5x4xi1>) -> tensor<3x5x8xf32>
  return %0, %1, %2, %3 : tensor<2x4x5x6xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>, tensor<3x5x8xf32>
}
