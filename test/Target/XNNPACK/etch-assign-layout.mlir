// RUN: et-opt %s -split-input-file -etch-partition="targets=xnnpack,portable" -etch-assign-layout | FileCheck %s

// Between two channels-last delegates a cat works on NHWC values: the first
// delegate returns NHWC views of its results, the second views its argument
// as NCHW again (border permutes: no data moves). The cats here join along H:
// XNNPACK takes channel cats between its own ops into the delegate.
// CHECK-LABEL: func @kept
// CHECK: %[[A:.*]]:2 = edge.delegate "xnnpack"(%arg0) : (tensor<1x2x4x4xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>)
// CHECK: edge.permute %{{.*}} {dims = array<i64: 0, 2, 3, 1>, etch.layout_border} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[C:.*]] = edge.cat %[[A]]#0, %[[A]]#1 {dim = 1 : i64} : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x8x4x3xf32>
// CHECK: edge.delegate "xnnpack"(%[[C]]) : (tensor<1x8x4x3xf32>) -> tensor<1x1x8x4xf32>
// CHECK-NEXT: ^bb0(%[[ARG:.*]]: tensor<1x8x4x3xf32>):
// CHECK-NEXT: edge.permute %[[ARG]] {dims = array<i64: 0, 3, 1, 2>, etch.layout_border} : (tensor<1x8x4x3xf32>) -> tensor<1x3x8x4xf32>
func.func @kept(%x: tensor<1x2x4x4xf32>) -> tensor<1x1x8x4xf32> {
  %w = edge.constant dense<0.5> : tensor<3x2x1x1xf32>
  %a = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %b = edge.relu %a : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = edge.cat %a, %b {dim = 2 : i64} : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x4xf32>
  %v = edge.constant dense<0.25> : tensor<1x3x1x1xf32>
  %d = edge.convolution %c, %v {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x4xf32>, tensor<1x3x1x1xf32>) -> tensor<1x1x8x4xf32>
  return %d : tensor<1x1x8x4xf32>
}

// -----

// A cat whose result the method returns keeps the program's layout.
// CHECK-LABEL: func @returned
// CHECK-NOT: etch.layout_border
// CHECK: edge.cat {{.*}} {dim = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x6x4x4xf32>
func.func @returned(%x: tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %w = edge.constant dense<0.5> : tensor<3x2x1x1xf32>
  %a = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %b = edge.relu %a : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = edge.cat %a, %b {dim = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x6x4x4xf32>
  return %c : tensor<1x6x4x4xf32>
}

// -----

// An input another op reads in NCHW (the sum), or one from a delegate that
// keeps the program's layout (no convolution or pooling), keeps the cat NCHW.
// CHECK-LABEL: func @nchw_reader
// CHECK-NOT: etch.layout_border
// CHECK: edge.cat {{.*}} {dim = 2 : i64}
// CHECK-LABEL: func @program_layout_producer
// CHECK-NOT: etch.layout_border
// CHECK: edge.cat {{.*}} {dim = 2 : i64}
func.func @nchw_reader(%x: tensor<1x2x4x4xf32>) -> (tensor<1x1x8x4xf32>, tensor<1x3x4x1xf32>) {
  %w = edge.constant dense<0.5> : tensor<3x2x1x1xf32>
  %a = edge.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %s = edge.sum %a {dim = array<i64: 3>, keepdim = true} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x1xf32>
  %c = edge.cat %a, %a {dim = 2 : i64} : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x4xf32>
  %v = edge.constant dense<0.25> : tensor<1x3x1x1xf32>
  %d = edge.convolution %c, %v {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x4xf32>, tensor<1x3x1x1xf32>) -> tensor<1x1x8x4xf32>
  return %d, %s : tensor<1x1x8x4xf32>, tensor<1x3x4x1xf32>
}
func.func @program_layout_producer(%x: tensor<1x3x4x4xf32>) -> tensor<1x1x8x4xf32> {
  %b = edge.relu %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = edge.cat %b, %b {dim = 2 : i64} : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x4xf32>
  %v = edge.constant dense<0.25> : tensor<1x3x1x1xf32>
  %d = edge.convolution %c, %v {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x4xf32>, tensor<1x3x1x1xf32>) -> tensor<1x1x8x4xf32>
  return %d : tensor<1x1x8x4xf32>
}
