// A method keeping a state buffer "cache" of 8 floats (et-compile-methods.test).
module {
  func.func @forward(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) attributes {etch.buffer_mutations = ["cache"]} {
    %cache = edge.buffer "cache" = dense<0.0> : tensor<8xf32>
    %sum = edge.add %cache, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    return %sum, %sum : tensor<8xf32>, tensor<8xf32>
  }
}
