// RUN: et-opt %s --etch-fold-quantized-ops --split-input-file | FileCheck %s

!qx = !quant.uniform<i8:f32, 0.05:-3>
!qy = !quant.uniform<i8:f32, 0.1:-128>
!qw = !quant.uniform<i8<-127:127>:f32:0, {0.01, 0.02}>

// dequantize -> convolution -> relu -> quantize: one integer convolution
// with the relu as min = 0, the float bias kept; the dequantizes go.
// CHECK-LABEL: func @conv_relu
// CHECK: %[[W:.*]] = edge.constant {{.*}} as tensor<2x3x3x3x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-02,2.000000e-02}>>
// CHECK: %[[B:.*]] = edge.constant dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>
// CHECK: %[[Q:.*]] = edge.quantize %arg0
// CHECK: %[[C:.*]] = edge.quantized_convolution %[[Q]], %[[W]], %[[B]] {min = 0.000000e+00 : f64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : {{.*}} -> tensor<1x2x2x2x!quant.uniform<i8:f32, 1.000000e-01:-128>>
// CHECK: %[[Y:.*]] = edge.dequantize %[[C]]
// CHECK-NOT: edge.convolution
// CHECK-NOT: edge.relu
// CHECK: return %[[Y]]
func.func @conv_relu(%x: tensor<1x3x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = edge.constant dense<1> : tensor<2x3x3x3xi8> as tensor<2x3x3x3x!qw>
  %b = edge.constant dense<[0.5, -0.25]> : tensor<2xf32>
  %q = edge.quantize %x : tensor<1x3x4x4xf32> -> tensor<1x3x4x4x!qx>
  %xd = edge.dequantize %q : tensor<1x3x4x4x!qx> -> tensor<1x3x4x4xf32>
  %wd = edge.dequantize %w : tensor<2x3x3x3x!qw> -> tensor<2x3x3x3xf32>
  %c = edge.convolution %xd, %wd, %b {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = edge.relu %c : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %yq = edge.quantize %r : tensor<1x2x2x2xf32> -> tensor<1x2x2x2x!qy>
  %y = edge.dequantize %yq : tensor<1x2x2x2x!qy> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// addmm(bias, x, W^T) with per-channel weights on dim 1: a linear op whose
// weights are re-laid out as [out, in] with the axis moved to 0; hardtanh
// becomes min/max.
// CHECK-LABEL: func @addmm_hardtanh
// CHECK: %[[WT:.*]] = edge.constant dense<{{\[\[}}1, 3, 5], [2, 4, 6]]> : tensor<2x3xi8> as tensor<2x3x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>
// CHECK: edge.quantized_linear %{{.*}}, %[[WT]], %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : (tensor<4x3x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<2x3x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>, tensor<2xf32>) -> tensor<4x2x!quant.uniform<i8:f32, 1.000000e-01:-128>>
// CHECK-NOT: edge.addmm
func.func @addmm_hardtanh(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = edge.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8> as tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
  %b = edge.constant dense<[0.5, -0.25]> : tensor<2xf32>
  %q = edge.quantize %x : tensor<4x3xf32> -> tensor<4x3x!quant.uniform<i8:f32, 0.05:-3>>
  %xd = edge.dequantize %q : tensor<4x3x!quant.uniform<i8:f32, 0.05:-3>> -> tensor<4x3xf32>
  %wd = edge.dequantize %w : tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>> -> tensor<3x2xf32>
  %m = edge.addmm %b, %xd, %wd : (tensor<2xf32>, tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %h = edge.hardtanh %m {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %yq = edge.quantize %h : tensor<4x2xf32> -> tensor<4x2x!quant.uniform<i8:f32, 0.1:-128>>
  %y = edge.dequantize %yq : tensor<4x2x!quant.uniform<i8:f32, 0.1:-128>> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Residual add and mul of two quantized activations (uint8 and int8).
// CHECK-LABEL: func @add_mul
// CHECK: %[[S:.*]] = edge.quantized_add %{{.*}}, %{{.*}} : (tensor<2x3x!quant.uniform<u8:f32, 2.000000e-02:128>>, tensor<2x3x!quant.uniform<i8:f32, 5.000000e-02:-3>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>
// CHECK: edge.quantized_mul %[[S]], %[[S]]
func.func @add_mul(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %qa = edge.quantize %a : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<u8:f32, 0.02:128>>
  %qb = edge.quantize %b : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<i8:f32, 0.05:-3>>
  %da = edge.dequantize %qa : tensor<2x3x!quant.uniform<u8:f32, 0.02:128>> -> tensor<2x3xf32>
  %db = edge.dequantize %qb : tensor<2x3x!quant.uniform<i8:f32, 0.05:-3>> -> tensor<2x3xf32>
  %s = edge.add %da, %db : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %qs = edge.quantize %s : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<i8:f32, 0.1>>
  %ds = edge.dequantize %qs : tensor<2x3x!quant.uniform<i8:f32, 0.1>> -> tensor<2x3xf32>
  %p = edge.mul %ds, %ds : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %qp = edge.quantize %p : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<i8:f32, 0.2>>
  %y = edge.dequantize %qp : tensor<2x3x!quant.uniform<i8:f32, 0.2>> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// What has no integer kernel keeps its float semantics: a transposed
// convolution, a 16-bit activation, an add with alpha, an op whose result
// other ops also read, and anything inside a target's delegate.
// CHECK-LABEL: func @not_folded
// CHECK: edge.convolution {{.*}}transposed = true
// CHECK: edge.linear
// CHECK: edge.add {{.*}}alpha = 2.0
// CHECK: edge.mul
// CHECK: edge.delegate "xnnpack"
// CHECK: edge.add
// CHECK-NOT: edge.quantized_
func.func @not_folded(%x: tensor<1x2x3x3xf32>, %v: tensor<4x2xf32>) -> (tensor<1x2x5x5xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %q = edge.quantize %x : tensor<1x2x3x3xf32> -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1>>
  %xd = edge.dequantize %q : tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1>> -> tensor<1x2x3x3xf32>
  %w = edge.constant dense<1> : tensor<2x2x3x3xi8> as tensor<2x2x3x3x!quant.uniform<i8:f32, 0.1>>
  %wd = edge.dequantize %w : tensor<2x2x3x3x!quant.uniform<i8:f32, 0.1>> -> tensor<2x2x3x3xf32>
  %t = edge.convolution %xd, %wd {transposed = true} : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  %tq = edge.quantize %t : tensor<1x2x5x5xf32> -> tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1>>
  %td = edge.dequantize %tq : tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1>> -> tensor<1x2x5x5xf32>
  %q16 = edge.quantize %v : tensor<4x2xf32> -> tensor<4x2x!quant.uniform<i16:f32, 0.1>>
  %v16 = edge.dequantize %q16 : tensor<4x2x!quant.uniform<i16:f32, 0.1>> -> tensor<4x2xf32>
  %fw = edge.constant dense<1> : tensor<2x2xi8> as tensor<2x2x!quant.uniform<i8:f32, 0.1>>
  %fwd = edge.dequantize %fw : tensor<2x2x!quant.uniform<i8:f32, 0.1>> -> tensor<2x2xf32>
  %l = edge.linear %v16, %fwd : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %lq = edge.quantize %l : tensor<4x2xf32> -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
  %ld = edge.dequantize %lq : tensor<4x2x!quant.uniform<i8:f32, 0.1>> -> tensor<4x2xf32>
  %q8 = edge.quantize %v : tensor<4x2xf32> -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
  %v8 = edge.dequantize %q8 : tensor<4x2x!quant.uniform<i8:f32, 0.1>> -> tensor<4x2xf32>
  %a = edge.add %v8, %v8 {alpha = 2.0 : f64} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %aq = edge.quantize %a : tensor<4x2xf32> -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
  %ad = edge.dequantize %aq : tensor<4x2x!quant.uniform<i8:f32, 0.1>> -> tensor<4x2xf32>
  %m = edge.mul %v8, %v8 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %mq = edge.quantize %m : tensor<4x2xf32> -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
  %md = edge.dequantize %mq : tensor<4x2x!quant.uniform<i8:f32, 0.1>> -> tensor<4x2xf32>
  %d = edge.delegate "xnnpack"(%v) : (tensor<4x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%in: tensor<4x2xf32>):
    %iq = edge.quantize %in : tensor<4x2xf32> -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
    %id = edge.dequantize %iq : tensor<4x2x!quant.uniform<i8:f32, 0.1>> -> tensor<4x2xf32>
    %s = edge.add %id, %id : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    %sq = edge.quantize %s : tensor<4x2xf32> -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
    %sd = edge.dequantize %sq : tensor<4x2x!quant.uniform<i8:f32, 0.1>> -> tensor<4x2xf32>
    edge.delegate_return %sd : tensor<4x2xf32>
  }
  return %td, %ld, %ad, %md, %m, %d : tensor<1x2x5x5xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
