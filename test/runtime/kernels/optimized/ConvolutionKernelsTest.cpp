// The optimized convolution kernels against the portable ones: depthwise
// planes over strides (along W in stride phases), padding and dilation; the
// rest on the GEMM (pointwise on the input, windows packed per panel, 2-D
// and 3-D) over several threads. The 8-bit ones: QuantizedKernelsTest.cpp.
#include "OptimizedTestSupport.h"

#include <array>
#include <cstring>

namespace etch::runtime::testing {
namespace {

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

} // namespace
} // namespace etch::runtime::testing
