// A method keeping a state buffer "cache" of 4 floats (et-compile-methods.test).
module {
  func.func @forward(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {etch.buffer_mutations = ["cache"]} {
    %cache = edge.buffer "cache" = dense<0.0> : tensor<4xf32>
    %sum = edge.add %cache, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %sum, %sum : tensor<4xf32>, tensor<4xf32>
  }
}
