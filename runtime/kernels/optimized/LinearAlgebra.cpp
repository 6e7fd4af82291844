// linear (any input rank), mm, bmm and addmm: few input rows (decoding) on
// the GEMV, linear's up to a prefill chunk on its blocked rows kernel, more
// on the blocked GEMM, output columns split across the
// thread pool. Shapes and types were checked by the portable kernels'
// validate functions, which the optimized kernels share.
#include "runtime/kernels/optimized/Gemm.h"
#include "runtime/kernels/optimized/Gemv.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

void fillZero(TensorView &out) { std::memset(out.data(), 0, out.nbytes()); }

/// c[rows, n] += a[rows, k] . B, B being [n, k] (\p bTransposed: linear's
/// weight) or [k, n], with columns split across the thread pool.
void product(int64_t rows, int64_t n, int64_t k, const float *a, int64_t lda,
             const float *b, bool bTransposed, float *c, int64_t ldc) {
  // Column blocks: whole GEMM panels and GEMV tiles.
  constexpr int64_t block = 64;
  int64_t tasks = (n + block - 1) / block;
  bool few = rows <= kGemvMaxRows || (bTransposed && rows <= kRowsMaxRows);
  auto slice = [&](int64_t first, int64_t last) {
    int64_t j0 = first * block, width = std::min(n, last * block) - j0;
    if (few && bTransposed)
      gemvRowsAccumulate(rows, width, k, a, lda, b + j0 * k, c + j0, ldc);
    else if (few)
      gemvColumnsAccumulate(rows, width, k, a, lda, b + j0, n, c + j0, ldc);
    else
      gemmAccumulate({rows, width, k}, {a, lda},
                     {bTransposed ? b + j0 * k : b + j0, bTransposed ? k : n},
                     bTransposed, c + j0, ldc);
  };
  int64_t grain = rows * n * k < kMinParallelProduct ? tasks : 1;
  ThreadPool::shared().parallelFor(tasks, grain, slice);
}

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
  product(rows, n, k, in.data<float>(), k, weight.data<float>(),
          /*bTransposed=*/true, c, n);
}

void runMm(const KernelCall &call) {
  if (call.inputs[0]->scalarType() == ScalarType::Float64)
    return portable::runMm(call); // ONNX's double products
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  fillZero(out);
  int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  product(m, n, k, a.data<float>(), k, b.data<float>(), false,
          out.data<float>(), n);
}

void runBmm(const KernelCall &call) {
  if (call.inputs[0]->scalarType() == ScalarType::Float64)
    return portable::runBmm(call);
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  fillZero(out);
  int64_t m = a.size(1), k = a.size(2), n = b.size(2);
  // Batches (attention heads) across the threads, each a whole product.
  const float *ad = a.data<float>(), *bd = b.data<float>();
  float *cd = out.data<float>();
  int64_t batches = a.size(0);
  auto run = [&](int64_t first, int64_t last) {
    for (int64_t batch = first; batch < last; ++batch)
      gemmAccumulate({m, n, k}, {ad + batch * m * k, k},
                     {bd + batch * k * n, n}, false, cd + batch * m * n, n);
  };
  int64_t grain = batches * m * n * k < kMinParallelProduct ? batches : 1;
  ThreadPool::shared().parallelFor(batches, grain, run);
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
  product(m, n, k, a.data<float>(), k, b.data<float>(), false, c, n);
}

} // namespace etch::runtime::optimized
