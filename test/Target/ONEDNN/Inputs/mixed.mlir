// A linear layer oneDNN takes and a softmax only XNNPACK takes: one method
// calling both targets' delegates.
func.func @forward(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %w = edge.constant dense<0.05> : tensor<8x16xf32>
  %0 = edge.linear %x, %w : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  %1 = edge.softmax %0 {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = edge.relu %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
