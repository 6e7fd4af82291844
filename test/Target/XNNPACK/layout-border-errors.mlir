// RUN: et-opt %s -split-input-file -etch-codegen -verify-diagnostics

// Border permutes (etch.layout_border) only rename the dims of NHWC storage:
// the XNNPACK compiler refuses one in a delegate that keeps the program's
// layout, or one that is not at a border in the NHWC <-> NCHW direction.
func.func @not_channels_last(%x: tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32> {
  %0 = edge.delegate "xnnpack"(%x) : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32> {
  ^bb0(%arg: tensor<1x4x4x3xf32>):
    // expected-error @+1 {{'edge.permute' op xnnpack: a layout border permute must view a channels-last delegate's argument as NCHW (dims 0, 3, 1, 2; its only readers) or a value it returns as NHWC (dims 0, 2, 3, 1)}}
    %v = edge.permute %arg {dims = array<i64: 0, 3, 1, 2>, etch.layout_border} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
    %r = edge.relu %v : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    edge.delegate_return %r : tensor<1x3x4x4xf32>
  }
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @wrong_direction(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x3x4xf32> {
  %0 = edge.delegate "xnnpack"(%x) : (tensor<1x3x4x4xf32>) -> tensor<1x4x3x4xf32> {
  ^bb0(%arg: tensor<1x3x4x4xf32>):
    %p = edge.max_pool2d %arg {kernel_size = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    // expected-error @+1 {{'edge.permute' op xnnpack: a layout border permute must view}}
    %v = edge.permute %p {dims = array<i64: 0, 3, 1, 2>, etch.layout_border} : (tensor<1x3x4x4xf32>) -> tensor<1x4x3x4xf32>
    edge.delegate_return %v : tensor<1x4x3x4xf32>
  }
  return %0 : tensor<1x4x3x4xf32>
}
