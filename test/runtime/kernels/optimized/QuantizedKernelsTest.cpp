// The optimized 8-bit quantized convolution and linear against the portable
// kernels, byte for byte: their integer sums are exact and their
// requantization is the portable kernels' own code.
#include "OptimizedTestSupport.h"

#include <cstring>

namespace etch::runtime::testing {
namespace {

constexpr ScalarType kI8 = ScalarType::Int8, kU8 = ScalarType::UInt8;
constexpr double kInf = INFINITY;

/// How a case quantizes its operands: storage types, the weight's zero
/// point, per-channel scales, and the folded activation's bounds.
struct Quantization {
  ScalarType input, weight;
  int64_t weightZero;
  bool perChannel;
  double low, high;
};

/// An input and a weight of random storage values over their whole ranges.
struct Operands {
  Operands(const Quantization &q, std::vector<int64_t> inputShape,
           std::vector<int64_t> weightShape)
      : x(q.input, std::move(inputShape), {0.02}, {q.input == kU8 ? 120 : -7},
          -1, q.input == kU8 ? 0 : -128, q.input == kU8 ? 255 : 127),
        w(q.weight, weightShape, scalesFor(q, weightShape[0]),
          std::vector<int64_t>(q.perChannel ? weightShape[0] : 1, q.weightZero),
          q.perChannel ? 0 : -1, q.weight == kU8 ? 0 : -128,
          q.weight == kU8 ? 255 : 127),
        bias(randomFloat({weightShape[0]}, -0.5f, 0.5f)) {
    for (QuantTensor *t : {&x, &w})
      for (int64_t i = 0; i < t->tensor.numel(); ++i) {
        int64_t value = randomInt(t->params.qmin, t->params.qmax);
        if (t->tensor.view.scalarType() == kI8)
          t->tensor.view.data<int8_t>()[i] = static_cast<int8_t>(value);
        else
          t->tensor.view.data<uint8_t>()[i] = static_cast<uint8_t>(value);
      }
  }
  static std::vector<double> scalesFor(const Quantization &q, int64_t rows) {
    std::vector<double> scales;
    for (int64_t o = 0; o < (q.perChannel ? rows : 1); ++o)
      scales.push_back(0.004 + 0.001 * o);
    return scales;
  }
  std::vector<TensorView *> inputs(bool withBias) {
    std::vector<TensorView *> list = {&x.tensor.view, &w.tensor.view};
    if (withBias)
      list.push_back(&bias.view);
    return list;
  }
  QuantTensor x, w;
  OwnedTensor bias;
};

/// \p op through the registry and through the portable kernel: every byte
/// of the int8 outputs equal.
void expectSameBytes(const char *op, std::vector<TensorView *> inputs,
                     std::vector<int64_t> outShape,
                     const Attributes &attributes, const char *what) {
  QuantTensor fast(kI8, outShape, {0.05}, {-20}, -1, -128, 127);
  QuantTensor reference(kI8, outShape, {0.05}, {-20}, -1, -128, 127);
  ASSERT_EQ(runRegisteredKernel(op, inputs, {&fast.tensor.view}, attributes),
            Error::Ok);
  ASSERT_EQ(runKernel(op, inputs, {&reference.tensor.view}, attributes),
            Error::Ok);
  EXPECT_EQ(std::memcmp(fast.tensor.view.data(), reference.tensor.view.data(),
                        fast.tensor.view.nbytes()),
            0)
      << op << ": " << what;
}

TEST(OptimizedKernels, QuantizedConvolutionMatchesPortableBytewise) {
  // int8 and uint8 inputs and weights, weight zero points, per-channel
  // scales, strides, padding, dilation, groups, depthwise, no bias, a
  // clamp; a reduction past the window buffer (9000 values) runs the
  // portable kernel.
  PoolThreads threads(3);
  struct Case {
    ConvCase shape;
    Quantization q;
  };
  for (const Case &c :
       std::vector<Case>{{{2, 3, 9, 11, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},
                          {kI8, kI8, 0, true, 0, kInf}},
                         {{1, 6, 10, 10, 6, 3, 3, 1, 1, 2, 2, 2, 2, 6, false},
                          {kU8, kU8, 131, false, -kInf, kInf}},
                         {{1, 8, 7, 7, 4, 1, 1, 1, 1, 0, 0, 1, 1, 2, true},
                          {kI8, kU8, 3, true, -1.5, 6.0}},
                         {{1, 5, 12, 15, 6, 3, 3, 1, 2, 2, 1, 2, 3, 1, true},
                          {kU8, kI8, -9, true, -kInf, kInf}},
                         {{1, 3, 4, 4, 2, 3, 3, 1, 1, 4, 4, 1, 1, 1, true},
                          {kI8, kI8, 0, false, -kInf, kInf}},
                         {{1, 1000, 3, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
                          {kI8, kI8, 0, true, -kInf, kInf}}}) {
    const ConvCase &k = c.shape;
    Operands operands(c.q, {k.n, k.c, k.h, k.w},
                      {k.oc, k.c / k.groups, k.kh, k.kw});
    ConvCall shapes(k); // the output extents and the window attributes
    shapes.attributes.d("min", c.q.low).d("max", c.q.high);
    expectSameBytes("edge.quantized_convolution", operands.inputs(k.bias),
                    shapes.outShape, shapes.attributes,
                    ("a convolution over " + std::to_string(k.c) +
                     " channels, groups " + std::to_string(k.groups))
                        .c_str());
  }
}

TEST(OptimizedKernels, QuantizedLinearMatchesPortableBytewise) {
  // Input rows of any rank, blocks of 64 outputs with a ragged last one,
  // one row (a decode step), the four storage pairs, weight zero points,
  // no bias, a clamp; more than 8192 features run the portable kernel.
  PoolThreads threads(3);
  struct Case {
    std::vector<int64_t> input;
    int64_t outputs;
    bool bias;
    Quantization q;
  };
  for (const Case &c : std::vector<Case>{
           {{5, 40}, 130, true, {kI8, kI8, 0, true, -kInf, kInf}},
           {{2, 3, 33}, 64, false, {kU8, kU8, 128, false, -kInf, kInf}},
           {{1, 200}, 7, true, {kI8, kU8, 5, true, 0.0, 6.0}},
           {{3, 1, 17}, 65, true, {kU8, kI8, -3, true, -kInf, kInf}},
           {{2, 9000}, 3, true, {kI8, kI8, 0, true, -kInf, kInf}}}) {
    int64_t features = c.input.back();
    Operands operands(c.q, c.input, {c.outputs, features});
    std::vector<int64_t> outShape = c.input;
    outShape.back() = c.outputs;
    Attributes attributes;
    attributes.d("min", c.q.low).d("max", c.q.high);
    expectSameBytes("edge.quantized_linear", operands.inputs(c.bias), outShape,
                    attributes,
                    (std::to_string(features) + " features, " +
                     std::to_string(c.outputs) + " outputs")
                        .c_str());
  }
}

} // namespace
} // namespace etch::runtime::testing
