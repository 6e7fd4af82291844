// RUN: et-opt %s -etch-codegen -verify-diagnostics

// The oneDNN compiler reads border permutes (etch.layout_border) as views
// only in a channels-last delegate (one with a convolution or pooling).
func.func @not_channels_last(%x: tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32> {
  %0 = edge.delegate "onednn"(%x) : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32> {
  ^bb0(%arg: tensor<1x4x4x3xf32>):
    // expected-error @+1 {{'edge.permute' op onednn: a layout border permute must view a channels-last delegate's argument as NCHW (dims 0, 3, 1, 2; its only readers) or a value it returns as NHWC (dims 0, 2, 3, 1)}}
    %v = edge.permute %arg {dims = array<i64: 0, 3, 1, 2>, etch.layout_border} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
    %r = edge.relu %v : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    edge.delegate_return %r : tensor<1x3x4x4xf32>
  }
  return %0 : tensor<1x3x4x4xf32>
}
