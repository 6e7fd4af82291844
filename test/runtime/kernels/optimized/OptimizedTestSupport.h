// What the optimized kernels' tests share: comparing a kernel with its
// portable twin, the kernel thread pool at a chosen size, a convolution
// call's tensors and attributes.
#pragma once

#include "../portable/KernelTestSupport.h"

#include "runtime/kernels/optimized/ThreadPool.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace etch::runtime::testing {

/// Max |actual - expected| over max |expected|.
inline double relativeError(const float *actual,
                            const std::vector<double> &expected) {
  double scale = 1e-30, error = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    scale = std::max(scale, std::fabs(expected[i]));
    error = std::max(error, std::fabs(actual[i] - expected[i]));
  }
  return error / scale;
}

/// Runs \p op through the registry (optimized) and its portable twin on the
/// same inputs; the outputs agree to rounding.
inline void checkAgainstPortable(const char *op,
                                 std::vector<TensorView *> inputs,
                                 std::vector<int64_t> outShape,
                                 const Attributes &attributes = Attributes()) {
  OwnedTensor fast(ScalarType::Float32, outShape);
  OwnedTensor reference(ScalarType::Float32, outShape);
  ASSERT_EQ(runRegisteredKernel(op, inputs, {&fast.view}, attributes),
            Error::Ok);
  ASSERT_EQ(runKernel(op, inputs, {&reference.view}, attributes), Error::Ok);
  std::vector<double> expected(reference.f(),
                               reference.f() + reference.numel());
  EXPECT_LT(relativeError(fast.f(), expected), 1e-5) << op;
}

/// The shared kernel pool at \p threads for one test, restored after.
class PoolThreads {
public:
  explicit PoolThreads(size_t threads) : before(pool().threads()) {
    set(threads);
  }
  ~PoolThreads() { pool().resize(before); }
  void set(size_t threads) { pool().resize(threads); }
  static optimized::ThreadPool &pool() {
    return optimized::ThreadPool::shared();
  }

private:
  size_t before;
};

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

} // namespace etch::runtime::testing
