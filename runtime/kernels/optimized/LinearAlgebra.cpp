// linear (any input rank), mm, bmm and addmm on the blocked GEMM. Shapes and
// types were checked by the portable kernels' validate functions, which the
// optimized kernels share.
#include "runtime/kernels/optimized/Gemm.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cstring>

namespace etch::runtime::optimized {
namespace {

void fillZero(TensorView &out) { std::memset(out.data(), 0, out.nbytes()); }

} // namespace

void runLinear(const KernelCall &call) {
  const TensorView &in = *call.inputs[0], &weight = *call.inputs[1];
  const TensorView *bias = call.input(2);
  TensorView &out = *call.outputs[0];
  int64_t k = weight.size(1), n = weight.size(0);
  int64_t rows = k ? in.numel() / k : out.numel() / (n ? n : 1);
  float *c = out.data<float>();
  if (bias)
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(c + r * n, bias->data<float>(), n * sizeof(float));
  else
    fillZero(out);
  gemmAccumulate({rows, n, k}, {in.data<float>(), k},
                 {weight.data<float>(), k}, /*bTransposed=*/true, c, n);
}

void runMm(const KernelCall &call) {
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  fillZero(out);
  int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  gemmAccumulate({m, n, k}, {a.data<float>(), k}, {b.data<float>(), n}, false,
                 out.data<float>(), n);
}

void runBmm(const KernelCall &call) {
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  fillZero(out);
  int64_t m = a.size(1), k = a.size(2), n = b.size(2);
  for (int64_t batch = 0; batch < a.size(0); ++batch)
    gemmAccumulate({m, n, k}, {a.data<float>() + batch * m * k, k},
                   {b.data<float>() + batch * k * n, n}, false,
                   out.data<float>() + batch * m * n, n);
}

void runAddmm(const KernelCall &call) {
  const TensorView &self = *call.inputs[0], &a = *call.inputs[1],
                   &b = *call.inputs[2];
  TensorView &out = *call.outputs[0];
  if (call.doubleAttr("alpha", 1.0) != 1.0) {
    // alpha != 1 (rare): the portable kernel's arithmetic.
    portable::runAddmm(call);
    return;
  }
  auto beta = static_cast<float>(call.doubleAttr("beta", 1.0));
  int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  int64_t strides[kMaxRank];
  portable::broadcastStrides(self, out, strides); // self broadcasts to [m, n]
  float *c = out.data<float>();
  const float *s = self.data<float>();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * n + j] = beta * s[i * strides[0] + j * strides[1]];
  gemmAccumulate({m, n, k}, {a.data<float>(), k}, {b.data<float>(), n}, false,
                 c, n);
}

} // namespace etch::runtime::optimized
