// mean and sum of float32 over trailing dims (RMSNorm's mean over the
// hidden size, pooling over the last dims): each row summed in 16 lanes.
// Other dim sets and dtypes run the portable kernels. The summation order
// differs from the portable kernel's (in sequence): results agree to float
// rounding.
#include "runtime/kernels/optimized/IsaClones.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

namespace etch::runtime::optimized {
namespace {

/// Elements per row when the reduced dims are exactly the last ones (every
/// dim when none are listed); 0 otherwise.
int64_t trailingRow(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  Span<const int64_t> dims = call.intsAttr("dim");
  if (in.scalarType() != ScalarType::Float32)
    return 0;
  if (dims.empty())
    return in.numel();
  bool reduced[kMaxRank] = {};
  for (int64_t dim : dims) {
    int64_t d = portable::normalizeDim(dim, in.rank());
    if (d < 0)
      return 0;
    reduced[d] = true;
  }
  int64_t row = 1;
  bool inSuffix = true;
  for (int d = in.rank() - 1; d >= 0; --d) {
    if (reduced[d] && !inSuffix)
      return 0; // a reduced dim before a kept one
    if (reduced[d])
      row *= in.size(d);
    else
      inSuffix = false;
  }
  return row;
}

// Lane sums the compiler vectorizes (a plain float reduction would need
// reassociation it may not do).
__attribute__((always_inline)) inline float rowSumBody(const float *x,
                                                       int64_t n) {
  float lanes[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j)
      lanes[j] += x[i + j];
  float sum = 0;
  for (int j = 0; j < 16; ++j)
    sum += lanes[j];
  for (; i < n; ++i)
    sum += x[i];
  return sum;
}

void reduceRows(const KernelCall &call, int64_t row, bool mean) {
  const float *in = call.inputs[0]->data<float>();
  float *out = call.outputs[0]->data<float>();
  int64_t rows = call.outputs[0]->numel();
  for (int64_t r = 0; r < rows; ++r) {
    float sum = IsaClones<rowSumBody>::call(in + r * row, row);
    out[r] = mean ? sum / static_cast<float>(row) : sum;
  }
}

} // namespace

void runMean(const KernelCall &call) {
  int64_t row = trailingRow(call);
  row ? reduceRows(call, row, true) : portable::runMean(call);
}

void runSum(const KernelCall &call) {
  int64_t row = trailingRow(call);
  row ? reduceRows(call, row, false) : portable::runSum(call);
}

} // namespace etch::runtime::optimized
