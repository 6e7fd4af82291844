// A fuzz seed for the program loader: a method with state (a cache with
// initial contents, updated in place), weight-only int4 embedding and int8
// linear, and program metadata -- the parts of the format a decoder uses.
module attributes {etch.metadata = {eos_token_id = "2", max_context = "8"}} {
  func.func @forward(%ids: tensor<2xi64>, %pos: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<8x64xf32>) attributes {etch.buffer_mutations = ["cache"]} {
    %table = edge.constant dense<23> : tensor<4x32xui8>
    %table_scales = edge.constant dense<0.01> : tensor<4x2xf32>
    %e = edge.weight_only_embedding %table, %table_scales, %ids {bits = 4 : i64, group_size = 32 : i64} : (tensor<4x32xui8>, tensor<4x2xf32>, tensor<2xi64>) -> tensor<2x64xf32>
    %cache = edge.buffer "cache" = dense<0.5> : tensor<8x64xf32>
    %updated = edge.index_put %cache, %e, %pos {indexed_dims = array<i64: 0>} : (tensor<8x64xf32>, tensor<2x64xf32>, tensor<2xi64>) -> tensor<8x64xf32>
    %w = edge.constant dense<3> : tensor<4x64xi8>
    %scales = edge.constant dense<0.02> : tensor<4x1xf32>
    %y = edge.weight_only_linear %e, %w, %scales {bits = 8 : i64, group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<2x64xf32>, tensor<4x64xi8>, tensor<4x1xf32>) -> tensor<2x4xf32>
    return %y, %updated : tensor<2x4xf32>, tensor<8x64xf32>
  }
}
