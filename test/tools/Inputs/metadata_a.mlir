// A planned-ready method with metadata max_context = 8 (et-compile-methods.test).
module attributes {etch.metadata = {max_context = "8"}} {
  func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = edge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
