// Every convolution form the Vulkan target lowers, weights as arguments
// (random per seed): a dense strided 3x3 with its relu (implicit GEMM with
// the epilogue fused), a dilated grouped one with few channels per group and a
// depthwise one with hardswish (direct), a 1x1 with relu6 (GEMM per image),
// and a grouped one with more channels per group than a block.
func.func @forward(%x: tensor<2x8x9x9xf32>, %w0: tensor<16x8x3x3xf32>, %b0: tensor<16xf32>,
                   %w1: tensor<8x4x3x3xf32>, %w2: tensor<8x1x3x3xf32>, %w3: tensor<12x8x1x1xf32>,
                   %b3: tensor<12xf32>, %w4: tensor<32x4x3x3xf32>)
    -> (tensor<2x16x5x5xf32>, tensor<2x8x9x9xf32>, tensor<2x8x9x9xf32>, tensor<2x12x9x9xf32>,
        tensor<2x32x7x7xf32>) {
  %c0 = edge.convolution %x, %w0, %b0 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<2x8x9x9xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  %r0 = edge.relu %c0 : (tensor<2x16x5x5xf32>) -> tensor<2x16x5x5xf32>
  %c1 = edge.convolution %x, %w1 {stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, groups = 2} : (tensor<2x8x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x9x9xf32>
  %c2 = edge.convolution %x, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 8} : (tensor<2x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x9x9xf32>
  %h2 = edge.hardswish %c2 : (tensor<2x8x9x9xf32>) -> tensor<2x8x9x9xf32>
  %c3 = edge.convolution %x, %w3, %b3 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<2x8x9x9xf32>, tensor<12x8x1x1xf32>, tensor<12xf32>) -> tensor<2x12x9x9xf32>
  %r3 = edge.hardtanh %c3 {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<2x12x9x9xf32>) -> tensor<2x12x9x9xf32>
  %c4 = edge.convolution %x, %w4 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2} : (tensor<2x8x9x9xf32>, tensor<32x4x3x3xf32>) -> tensor<2x32x7x7xf32>
  return %r0, %c1, %h2, %r3, %c4 : tensor<2x16x5x5xf32>, tensor<2x8x9x9xf32>, tensor<2x8x9x9xf32>, tensor<2x12x9x9xf32>, tensor<2x32x7x7xf32>
}
