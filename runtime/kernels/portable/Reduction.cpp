// mean and sum over a set of dims (all when none), keepdim or not.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cstring>

namespace etch::runtime::portable {
namespace {

/// Marks reduced dims; false on a bad or repeated dim.
bool reducedDims(const KernelCall &call, int rank, bool *reduced) {
  Span<const int64_t> dims = call.intsAttr("dim");
  for (int d = 0; d < rank; ++d)
    reduced[d] = dims.empty();
  for (int64_t dim : dims) {
    int64_t d = normalizeDim(dim, rank);
    if (d < 0 || reduced[d])
      return false;
    reduced[d] = true;
  }
  return true;
}

Error validateReduction(const KernelCall &call, bool floatOnly) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  ScalarType type = in.scalarType();
  if (type != ScalarType::Float32 && (floatOnly || type != ScalarType::Int64))
    return kernelError(call, Error::NotSupported, "does not take %s",
                       scalarTypeName(type));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", type));
  bool reduced[kMaxRank];
  if (!reducedDims(call, in.rank(), reduced))
    return kernelError(call, Error::InvalidProgram, "bad or repeated dim");
  bool keep = call.boolAttr("keepdim", false);
  int64_t expected[kMaxRank];
  int rank = 0;
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduced[d])
      expected[rank++] = in.size(d);
    else if (keep)
      expected[rank++] = 1;
  }
  return checkShape(call, call.outputs[0], "output", expected, rank);
}

template <typename T> void reduce(const KernelCall &call, bool mean) {
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  bool reduced[kMaxRank];
  reducedDims(call, in.rank(), reduced);
  // Output strides expressed over the input's dims (0 for reduced dims).
  int64_t outStride[kMaxRank], index[kMaxRank] = {};
  int64_t step = 1;
  for (int d = in.rank() - 1; d >= 0; --d) {
    outStride[d] = reduced[d] ? 0 : step;
    if (!reduced[d])
      step *= in.size(d);
  }
  T *dst = out.data<T>();
  std::memset(dst, 0, out.nbytes());
  const T *src = in.data<T>();
  int64_t offset = 0;
  for (int64_t i = 0; i < in.numel(); ++i) {
    dst[offset] += src[i];
    for (int d = in.rank() - 1; d >= 0; --d) {
      offset += outStride[d];
      if (++index[d] < in.size(d))
        break;
      offset -= outStride[d] * in.size(d);
      index[d] = 0;
    }
  }
  if (mean && out.numel()) {
    T count = static_cast<T>(in.numel() / out.numel());
    for (int64_t i = 0; i < out.numel(); ++i)
      dst[i] /= count;
  }
}

} // namespace

Error validateMean(const KernelCall &call) {
  return validateReduction(call, true);
}
void runMean(const KernelCall &call) { reduce<float>(call, true); }

Error validateSum(const KernelCall &call) {
  return validateReduction(call, false);
}
void runSum(const KernelCall &call) {
  if (call.inputs[0]->scalarType() == ScalarType::Float32)
    reduce<float>(call, false);
  else
    reduce<int64_t>(call, false);
}

} // namespace etch::runtime::portable
