// The optimized convolution kernels against the portable ones: depthwise
// planes over strides (along W in stride phases), padding and dilation; the
// rest on the GEMM (pointwise on the input, windows packed per panel, 2-D
// and 3-D) over several threads; the 8-bit quantized convolution bytewise.
#include "OptimizedTestSupport.h"

#include <array>
#include <cstring>

namespace etch::runtime::testing {
namespace {

/// A convolution's extents and the tensors and attributes of its call.
struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias;
};
struct ConvCall {
  explicit ConvCall(const ConvCase &c)
      : x(randomFloat({c.n, c.c, c.h, c.w})),
        weight(randomFloat({c.oc, c.c / c.groups, c.kh, c.kw})),
        bias(randomFloat({c.oc})) {
    attributes.ints("stride", {c.sh, c.sw})
        .ints("padding", {c.ph, c.pw})
        .ints("dilation", {c.dh, c.dw})
        .i("groups", c.groups);
    inputs = {&x.view, &weight.view};
    if (c.bias)
      inputs.push_back(&bias.view);
    outShape = {c.n, c.oc, (c.h + 2 * c.ph - c.dh * (c.kh - 1) - 1) / c.sh + 1,
                (c.w + 2 * c.pw - c.dw * (c.kw - 1) - 1) / c.sw + 1};
  }
  ConvCall(const ConvCall &) = delete;
  OwnedTensor x, weight, bias;
  Attributes attributes;
  std::vector<TensorView *> inputs;
  std::vector<int64_t> outShape;
};

TEST(OptimizedKernels, DepthwiseConvolutionMatchesPortable) {
  // ConvNeXt's 7x7 (padding 3), strides and dilation that leave ragged
  // edges, rows strides skip, a 1-wide map, no bias; then a grouped and an
  // ordinary one; then strides along W of 2, 3 and 4 (with dilation, a
  // stride past the window, a 3x3 map).
  for (const ConvCase &c : std::vector<ConvCase>{
           {1, 8, 14, 14, 8, 7, 7, 1, 1, 3, 3, 1, 1, 8, true},
           {2, 5, 9, 11, 5, 3, 3, 2, 2, 1, 1, 1, 1, 5, true},
           {1, 3, 10, 13, 3, 5, 3, 1, 3, 2, 0, 1, 1, 3, false},
           {1, 4, 12, 12, 4, 3, 3, 1, 1, 2, 2, 2, 2, 4, true},
           {2, 3, 11, 9, 3, 3, 3, 2, 1, 1, 1, 1, 1, 3, true}, // rows skipped
           {1, 2, 10, 8, 2, 1, 3, 3, 1, 0, 1, 1, 1, 2, true}, // stride > window
           {1, 2, 5, 1, 2, 3, 1, 1, 1, 1, 0, 1, 1, 2, true},
           {1, 6, 8, 8, 6, 1, 1, 1, 1, 0, 0, 1, 1, 6, false},
           {1, 4, 6, 6, 4, 3, 3, 1, 1, 0, 0, 1, 1, 2, false},
           {1, 4, 6, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, false},
           // Strides along W: the padded rows in stride phases.
           {1, 3, 13, 17, 3, 7, 7, 2, 2, 3, 3, 1, 1, 3, true},
           {1, 2, 9, 21, 2, 3, 3, 1, 2, 1, 2, 1, 2, 2, false},
           {2, 2, 7, 19, 2, 3, 5, 2, 3, 1, 0, 1, 3, 2, true},
           {1, 2, 5, 30, 2, 3, 3, 1, 4, 1, 1, 1, 1, 2, true},
           {1, 1, 3, 3, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, true}}) {
    ConvCall call(c);
    checkAgainstPortable("edge.convolution", call.inputs, call.outShape,
                         call.attributes);
  }
}

TEST(OptimizedKernels, DenseConvolutionOnTheGemmMatchesPortable) {
  // Tiles of 48 output channels and up to 256 pixels (narrower for small
  // maps) on the GEMM over 3 threads: the input itself as B for 1x1 windows
  // of stride 1 without padding, its windows packed a panel at a time
  // otherwise. Ragged tiles both ways,
  // batches, groups, strides, dilation, padding wider than the window's
  // reach, no bias, a reduction over 3 channels (one thread).
  PoolThreads threads(3);
  for (const ConvCase &c : std::vector<ConvCase>{
           {1, 16, 14, 14, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
           {3, 4, 9, 11, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},
           {2, 6, 10, 13, 9, 5, 3, 1, 3, 2, 0, 2, 1, 3, false},
           {1, 3, 4, 4, 2, 3, 3, 1, 1, 4, 4, 1, 1, 1, true},
           {1, 3, 23, 29, 100, 7, 7, 2, 2, 3, 3, 1, 1, 1, true},
           {1, 5, 12, 15, 6, 3, 3, 1, 2, 2, 1, 2, 3, 1, true},
           {1, 8, 7, 7, 5, 1, 1, 2, 2, 0, 0, 1, 1, 1, true}, // 1x1, strided
           {1, 8, 7, 7, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, true}, // 1x1, padded
           {2, 24, 7, 9, 100, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},
           {1, 16, 20, 20, 24, 1, 1, 1, 1, 0, 0, 1, 1, 2, false},
           {3, 12, 17, 19, 18, 1, 1, 1, 1, 0, 0, 2, 2, 3, true},
           {1, 3, 5, 5, 8, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},
           {1, 64, 1, 1, 49, 1, 1, 1, 1, 0, 0, 1, 1, 1, false}}) {
    ConvCall call(c);
    checkAgainstPortable("edge.convolution", call.inputs, call.outShape,
                         call.attributes);
  }
}

TEST(OptimizedKernels, Convolution3dOnTheGemmMatchesPortable) {
  // Windows over depth too (strides, padding, dilation per axis), groups,
  // depthwise (not the 2-D planes kernel), 1x1x1 on the input itself,
  // batches, no bias; 3 threads.
  PoolThreads threads(3);
  struct Case {
    int64_t n, c, d, h, w, oc, groups;
    std::array<int64_t, 3> kernel, stride, padding, dilation;
    bool bias;
  };
  for (const Case &c : std::vector<Case>{{1,
                                          3,
                                          5,
                                          6,
                                          7,
                                          8,
                                          1,
                                          {3, 3, 3},
                                          {1, 1, 1},
                                          {1, 1, 1},
                                          {1, 1, 1},
                                          true},
                                         {2,
                                          4,
                                          7,
                                          5,
                                          9,
                                          6,
                                          2,
                                          {2, 3, 1},
                                          {2, 1, 2},
                                          {1, 0, 1},
                                          {2, 1, 1},
                                          false},
                                         {1,
                                          5,
                                          4,
                                          6,
                                          6,
                                          5,
                                          5,
                                          {3, 3, 3},
                                          {1, 2, 1},
                                          {1, 1, 1},
                                          {1, 1, 2},
                                          true},
                                         {2,
                                          6,
                                          3,
                                          4,
                                          5,
                                          20,
                                          1,
                                          {1, 1, 1},
                                          {1, 1, 1},
                                          {0, 0, 0},
                                          {1, 1, 1},
                                          true}}) {
    OwnedTensor x = randomFloat({c.n, c.c, c.d, c.h, c.w});
    OwnedTensor weight = randomFloat(
        {c.oc, c.c / c.groups, c.kernel[0], c.kernel[1], c.kernel[2]});
    OwnedTensor bias = randomFloat({c.oc});
    std::vector<int64_t> out = {c.n, c.oc};
    int64_t extents[3] = {c.d, c.h, c.w};
    for (int a = 0; a < 3; ++a)
      out.push_back((extents[a] + 2 * c.padding[a] -
                     c.dilation[a] * (c.kernel[a] - 1) - 1) /
                        c.stride[a] +
                    1);
    Attributes attributes;
    attributes.ints("stride", {c.stride[0], c.stride[1], c.stride[2]})
        .ints("padding", {c.padding[0], c.padding[1], c.padding[2]})
        .ints("dilation", {c.dilation[0], c.dilation[1], c.dilation[2]})
        .i("groups", c.groups);
    std::vector<TensorView *> inputs = {&x.view, &weight.view};
    if (c.bias)
      inputs.push_back(&bias.view);
    checkAgainstPortable("edge.convolution3d", inputs, out, attributes);
  }
}

/// An 8-bit quantized convolution's operands: storage types, zero points
/// and whether the weight is quantized per output channel.
struct QuantizedConvCase {
  ConvCase shape;
  ScalarType input, weight;
  int64_t weightZero;
  bool perChannel;
  double low, high; // the folded activation's bounds
};

TEST(OptimizedKernels, QuantizedConvolutionMatchesPortableBytewise) {
  // Integer sums are exact, and the requantization is the portable
  // kernel's own, so every byte equals it: int8 and uint8 inputs and
  // weights, weight zero points, per-channel scales, strides, padding,
  // dilation, groups, depthwise, no bias, a clamp; a reduction past the
  // window buffer (9000 values) runs the portable kernel.
  PoolThreads threads(3);
  const double inf = INFINITY;
  for (const QuantizedConvCase &c : std::vector<QuantizedConvCase>{
           {{2, 3, 9, 11, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},
            ScalarType::Int8,
            ScalarType::Int8,
            0,
            true,
            0,
            inf},
           {{1, 6, 10, 10, 6, 3, 3, 1, 1, 2, 2, 2, 2, 6, false},
            ScalarType::UInt8,
            ScalarType::UInt8,
            131,
            false,
            -inf,
            inf},
           {{1, 8, 7, 7, 4, 1, 1, 1, 1, 0, 0, 1, 1, 2, true},
            ScalarType::Int8,
            ScalarType::UInt8,
            3,
            true,
            -1.5,
            6.0},
           {{1, 5, 12, 15, 6, 3, 3, 1, 2, 2, 1, 2, 3, 1, true},
            ScalarType::UInt8,
            ScalarType::Int8,
            -9,
            true,
            -inf,
            inf},
           {{1, 3, 4, 4, 2, 3, 3, 1, 1, 4, 4, 1, 1, 1, true},
            ScalarType::Int8,
            ScalarType::Int8,
            0,
            false,
            -inf,
            inf},
           {{1, 1000, 3, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
            ScalarType::Int8,
            ScalarType::Int8,
            0,
            true,
            -inf,
            inf}}) {
    const ConvCase &k = c.shape;
    bool unsignedInput = c.input == ScalarType::UInt8;
    bool unsignedWeight = c.weight == ScalarType::UInt8;
    QuantTensor x(c.input, {k.n, k.c, k.h, k.w}, {0.02},
                  {unsignedInput ? 120 : -7}, -1, unsignedInput ? 0 : -128,
                  unsignedInput ? 255 : 127);
    std::vector<double> scales;
    for (int64_t o = 0; o < (c.perChannel ? k.oc : 1); ++o)
      scales.push_back(0.004 + 0.001 * o);
    QuantTensor w(c.weight, {k.oc, k.c / k.groups, k.kh, k.kw}, scales,
                  std::vector<int64_t>(scales.size(), c.weightZero),
                  c.perChannel ? 0 : -1, unsignedWeight ? 0 : -128,
                  unsignedWeight ? 255 : 127);
    for (QuantTensor *q : {&x, &w})
      for (int64_t i = 0; i < q->tensor.numel(); ++i) {
        int64_t value = randomInt(q->params.qmin, q->params.qmax);
        if (q->tensor.view.scalarType() == ScalarType::Int8)
          q->tensor.view.data<int8_t>()[i] = static_cast<int8_t>(value);
        else
          q->tensor.view.data<uint8_t>()[i] = static_cast<uint8_t>(value);
      }
    OwnedTensor bias = randomFloat({k.oc}, -0.5f, 0.5f);
    ConvCall shapes(k); // the output extents and the window attributes
    shapes.attributes.d("min", c.low).d("max", c.high);
    std::vector<TensorView *> inputs = {&x.tensor.view, &w.tensor.view};
    if (k.bias)
      inputs.push_back(&bias.view);
    QuantTensor fast(ScalarType::Int8, shapes.outShape, {0.05}, {-20}, -1, -128,
                     127);
    QuantTensor reference(ScalarType::Int8, shapes.outShape, {0.05}, {-20}, -1,
                          -128, 127);
    ASSERT_EQ(runRegisteredKernel("edge.quantized_convolution", inputs,
                                  {&fast.tensor.view}, shapes.attributes),
              Error::Ok);
    ASSERT_EQ(runKernel("edge.quantized_convolution", inputs,
                        {&reference.tensor.view}, shapes.attributes),
              Error::Ok);
    EXPECT_EQ(std::memcmp(fast.tensor.view.data(), reference.tensor.view.data(),
                          fast.tensor.view.nbytes()),
              0)
        << "case with " << k.c << " input channels, groups " << k.groups;
  }
}

} // namespace
} // namespace etch::runtime::testing
