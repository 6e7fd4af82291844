// add, sub, mul, div (true division) of float32 tensors with NumPy
// broadcasting, and pow by a scalar 2 or 0.5: the output's dims are
// collapsed where both inputs run on contiguously (or stay broadcast), so
// the innermost loop is long and vectorizes for each ISA. Other dtypes and
// modes run the portable kernels. Same float arithmetic as those (one
// operation per element), so results are bitwise equal.
#include "runtime/kernels/optimized/IsaClones.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>

namespace etch::runtime::optimized {
namespace {

enum class Op { Add, Sub, Mul, Div };

// Add and sub run here only with alpha 1 (a scaled operand could fuse
// into an FMA and round differently from the portable kernel).
template <Op op> inline float apply(float a, float b) {
  switch (op) {
  case Op::Add:
    return a + b;
  case Op::Sub:
    return a - b;
  case Op::Mul:
    return a * b;
  case Op::Div:
    return a / b;
  }
  return a;
}

/// One run of the innermost dim: each input steps by 1 or stays (0).
/// Inlined into each ISA's clone of runOf, where it vectorizes.
template <Op op>
__attribute__((always_inline)) inline void runLoops(const float *a, int64_t sa,
                                                    const float *b, int64_t sb,
                                                    float *out, int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = apply<op>(a[i], b[i]);
  } else if (sa == 1) {
    float bb = b[0];
    for (int64_t i = 0; i < n; ++i)
      out[i] = apply<op>(a[i], bb);
  } else if (sb == 1) {
    float aa = a[0];
    for (int64_t i = 0; i < n; ++i)
      out[i] = apply<op>(aa, b[i]);
  } else {
    float value = apply<op>(a[0], b[0]);
    for (int64_t i = 0; i < n; ++i)
      out[i] = value;
  }
}

/// runLoops for \p op, built per ISA (IsaClones.h; the op is a run-time
/// switch outside the loops).
__attribute__((always_inline)) inline void runOfBody(Op op, const float *a,
                                                     int64_t sa, const float *b,
                                                     int64_t sb, float *out,
                                                     int64_t n) {
  switch (op) {
  case Op::Add:
    return runLoops<Op::Add>(a, sa, b, sb, out, n);
  case Op::Sub:
    return runLoops<Op::Sub>(a, sa, b, sb, out, n);
  case Op::Mul:
    return runLoops<Op::Mul>(a, sa, b, sb, out, n);
  case Op::Div:
    return runLoops<Op::Div>(a, sa, b, sb, out, n);
  }
}

/// The output's dims merged where both inputs' broadcast strides continue
/// contiguously, innermost last.
struct Plan {
  int rank = 0;
  int64_t sizes[kMaxRank], strides[2][kMaxRank];
};

Plan plan(const TensorView &a, const TensorView &b, const TensorView &out) {
  int64_t strides[2][kMaxRank];
  portable::broadcastStrides(a, out, strides[0]);
  portable::broadcastStrides(b, out, strides[1]);
  Plan p;
  for (int d = 0; d < out.rank(); ++d) {
    if (out.size(d) == 1)
      continue; // contributes nothing to any offset
    bool merges = p.rank > 0;
    for (int t = 0; t < 2 && merges; ++t)
      merges = p.strides[t][p.rank - 1] == strides[t][d] * out.size(d);
    if (merges) {
      p.sizes[p.rank - 1] *= out.size(d);
      for (int t = 0; t < 2; ++t)
        p.strides[t][p.rank - 1] = strides[t][d];
      continue;
    }
    p.sizes[p.rank] = out.size(d);
    for (int t = 0; t < 2; ++t)
      p.strides[t][p.rank] = strides[t][d];
    ++p.rank;
  }
  return p;
}

template <Op op> void binary(const KernelCall &call) {
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  Plan p = plan(a, b, out);
  const float *pa = a.data<float>(), *pb = b.data<float>();
  float *po = out.data<float>();
  if (p.rank == 0) { // one element
    po[0] = apply<op>(pa[0], pb[0]);
    return;
  }
  int inner = p.rank - 1;
  int64_t n = p.sizes[inner], outer = out.numel() / n;
  int64_t index[kMaxRank] = {}, offsetA = 0, offsetB = 0;
  for (int64_t r = 0; r < outer; ++r) {
    IsaClones<runOfBody>::call(op, pa + offsetA, p.strides[0][inner],
                               pb + offsetB, p.strides[1][inner], po + r * n,
                               n);
    for (int d = inner - 1; d >= 0; --d) { // odometer over the outer dims
      offsetA += p.strides[0][d];
      offsetB += p.strides[1][d];
      if (++index[d] < p.sizes[d])
        break;
      offsetA -= p.strides[0][d] * p.sizes[d];
      offsetB -= p.strides[1][d] * p.sizes[d];
      index[d] = 0;
    }
  }
}

bool allFloat(const KernelCall &call) {
  return call.inputs[0]->scalarType() == ScalarType::Float32 &&
         call.inputs[1]->scalarType() == ScalarType::Float32 &&
         call.outputs[0]->scalarType() == ScalarType::Float32;
}

__attribute__((always_inline)) inline void squareBody(const float *in,
                                                      float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = in[i] * in[i];
}

} // namespace

void runAdd(const KernelCall &call) {
  allFloat(call) && call.doubleAttr("alpha", 1.0) == 1.0
      ? binary<Op::Add>(call)
      : portable::runAdd(call);
}
void runSub(const KernelCall &call) {
  allFloat(call) && call.doubleAttr("alpha", 1.0) == 1.0
      ? binary<Op::Sub>(call)
      : portable::runSub(call);
}
void runMul(const KernelCall &call) {
  allFloat(call) ? binary<Op::Mul>(call) : portable::runMul(call);
}
void runDiv(const KernelCall &call) {
  const char *mode = call.stringAttr("rounding_mode", "");
  allFloat(call) && !mode[0] ? binary<Op::Div>(call) : portable::runDiv(call);
}

void runPow(const KernelCall &call) {
  // x ** 2 (RMSNorm's variance) as x * x: what std::pow gives for it.
  const TensorView &base = *call.inputs[0], &exponent = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  if (allFloat(call) && exponent.numel() == 1 &&
      exponent.data<float>()[0] == 2.0f && base.numel() == out.numel()) {
    IsaClones<squareBody>::call(base.data<float>(), out.data<float>(),
                                out.numel());
    return;
  }
  portable::runPow(call);
}

} // namespace etch::runtime::optimized
