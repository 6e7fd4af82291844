// mean and sum over a set of dims (all when none), keepdim or not.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include "runtime/core/ReductionShape.h"

#include <cstring>
#include <limits>

namespace etch::runtime::portable {
namespace {

/// Marks reduced dims (ReductionShape.h); false on a bad or repeated dim.
bool reducedDims(const KernelCall &call, int rank, bool *reduced) {
  Span<const int64_t> dims = call.intsAttr("dim");
  size_t at;
  return markReducedDims(dims.data(), dims.size(), rank, reduced, at) ==
         ReducedDimsError::None;
}

/// Checks the output of a reduction over \p in's dims the call names.
Error checkReducedOutput(const KernelCall &call, const TensorView &in) {
  bool reduced[kMaxRank];
  if (!reducedDims(call, in.rank(), reduced))
    return kernelError(call, Error::InvalidProgram, "bad or repeated dim");
  int64_t expected[kMaxRank];
  int64_t rank = reducedShape(in.sizes(), in.rank(), reduced,
                              call.boolAttr("keepdim", false), expected);
  return checkShape(call, call.outputs[0], "output", expected,
                    static_cast<int>(rank));
}

Error validateReduction(const KernelCall &call, bool floatOnly) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  ScalarType type = in.scalarType();
  bool isFloat = type == ScalarType::Float32 || type == ScalarType::Float64;
  bool isInteger = type == ScalarType::Int64 || type == ScalarType::Int32;
  if (!isFloat && (floatOnly || !isInteger))
    return kernelError(call, Error::NotSupported, "does not take %s",
                       scalarTypeName(type));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", type));
  return checkReducedOutput(call, in);
}

enum class Reduce { Sum, Mean, Prod, Max, Min };

/// Walks a reduction's input in row-major order, keeping the offset of the
/// output element each input element folds into.
class ReducedWalk {
public:
  ReducedWalk(const KernelCall &call, const TensorView &in) : in_(in) {
    bool reduced[kMaxRank];
    reducedDims(call, in.rank(), reduced);
    // Output strides expressed over the input's dims (0 for reduced dims).
    int64_t step = 1;
    for (int d = in.rank() - 1; d >= 0; --d) {
      outStride_[d] = reduced[d] ? 0 : step;
      if (!reduced[d])
        step *= in.size(d);
    }
  }
  int64_t offset() const { return offset_; }
  /// On to the next input element.
  void next() {
    for (int d = in_.rank() - 1; d >= 0; --d) {
      offset_ += outStride_[d];
      if (++index_[d] < in_.size(d))
        return;
      offset_ -= outStride_[d] * in_.size(d);
      index_[d] = 0;
    }
  }

private:
  const TensorView &in_;
  int64_t outStride_[kMaxRank], index_[kMaxRank] = {}, offset_ = 0;
};

template <typename T> void reduce(const KernelCall &call, Reduce kind) {
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  T *dst = out.data<T>();
  const T *src = in.data<T>();
  bool extreme = kind == Reduce::Max || kind == Reduce::Min;
  // Extremes start from the identity of max/min (no scratch memory: execute
  // never allocates).
  T initial = kind == Reduce::Max    ? std::numeric_limits<T>::lowest()
              : kind == Reduce::Min  ? std::numeric_limits<T>::max()
              : kind == Reduce::Prod ? T(1)
                                     : T(0);
  for (int64_t i = 0; i < out.numel(); ++i)
    dst[i] = initial;
  ReducedWalk walk(call, in);
  for (int64_t i = 0; i < in.numel(); ++i, walk.next()) {
    int64_t offset = walk.offset();
    if (kind == Reduce::Prod)
      dst[offset] = wrappingMul(dst[offset], src[i]);
    else if (!extreme)
      dst[offset] = wrappingAdd(dst[offset], src[i]);
    else if (kind == Reduce::Max ? !(src[i] <= dst[offset])
                                 : !(src[i] >= dst[offset]))
      dst[offset] = src[i]; // NaN wins, as in torch
  }
  if (kind == Reduce::Mean && out.numel()) {
    T count = static_cast<T>(in.numel() / out.numel());
    for (int64_t i = 0; i < out.numel(); ++i)
      dst[i] /= count;
  }
}

} // namespace

Error validateMean(const KernelCall &call) {
  return validateReduction(call, true);
}
void runMean(const KernelCall &call) {
  if (call.inputs[0]->scalarType() == ScalarType::Float64)
    reduce<double>(call, Reduce::Mean);
  else
    reduce<float>(call, Reduce::Mean);
}

Error validateSum(const KernelCall &call) {
  return validateReduction(call, false);
}
namespace {
void reduceAny(const KernelCall &call, Reduce kind) {
  visitNumericType(call.inputs[0]->scalarType(), [&](auto *type) {
    reduce<std::remove_pointer_t<decltype(type)>>(call, kind);
  });
}

/// Index of the first extreme value along `dim` (or the flattened tensor).
template <typename T> void argReduce(const KernelCall &call, bool max) {
  const TensorView &in = *call.inputs[0];
  int64_t *dst = call.outputs[0]->data<int64_t>();
  const T *src = in.data<T>();
  int64_t extent = in.numel(), inner = 1;
  if (const AttributeValue *dim = call.find("dim")) {
    int64_t d = normalizeDim(dim->intValue, in.rank());
    extent = in.size(d);
    inner = in.stride(d);
  }
  int64_t outer = extent * inner != 0 ? in.numel() / (extent * inner) : 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const T *base = src + o * extent * inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < extent; ++k)
        if (max ? base[k * inner] > base[best * inner]
                : base[k * inner] < base[best * inner])
          best = k;
      dst[o * inner + i] = best;
    }
}

void argAny(const KernelCall &call, bool max) {
  if (call.inputs[0]->scalarType() == ScalarType::Float32)
    argReduce<float>(call, max);
  else
    argReduce<int64_t>(call, max);
}
} // namespace

void runSum(const KernelCall &call) { reduceAny(call, Reduce::Sum); }
Error validateProd(const KernelCall &call) {
  return validateReduction(call, false);
}
void runProd(const KernelCall &call) { reduceAny(call, Reduce::Prod); }
Error validateAmax(const KernelCall &call) {
  return validateReduction(call, false);
}
void runAmax(const KernelCall &call) { reduceAny(call, Reduce::Max); }
Error validateAmin(const KernelCall &call) {
  return validateReduction(call, false);
}
void runAmin(const KernelCall &call) { reduceAny(call, Reduce::Min); }

Error validateArgReduction(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  if (in.scalarType() != ScalarType::Float32 &&
      in.scalarType() != ScalarType::Int64)
    return kernelError(call, Error::NotSupported, "does not take %s",
                       scalarTypeName(in.scalarType()));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Int64));
  const AttributeValue *dim = call.find("dim");
  int64_t expected[kMaxRank];
  int rank = 0;
  if (dim) {
    int64_t d = normalizeDim(dim->intValue, std::max(in.rank(), 1));
    if (d < 0 || in.rank() == 0 || in.size(d) == 0)
      return kernelError(call, Error::InvalidProgram,
                         "bad dim or empty extent");
    bool reduced[kMaxRank];
    size_t at;
    markReducedDims(&d, 1, in.rank(), reduced, at);
    rank = static_cast<int>(reducedShape(in.sizes(), in.rank(), reduced,
                                         call.boolAttr("keepdim", false),
                                         expected));
  } else if (in.numel() == 0) {
    return kernelError(call, Error::InvalidProgram,
                       "argmax of an empty tensor");
  }
  return checkShape(call, call.outputs[0], "output", expected, rank);
}
void runArgmax(const KernelCall &call) { argAny(call, true); }
void runArgmin(const KernelCall &call) { argAny(call, false); }

namespace {
Error validateTruthReduction(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  if (!isConvertible(in.scalarType()))
    return kernelError(call, Error::NotSupported, "does not take %s",
                       scalarTypeName(in.scalarType()));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Bool));
  return checkReducedOutput(call, in);
}

void truthReduce(const KernelCall &call, bool any) {
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  uint8_t *dst = out.data<uint8_t>();
  for (int64_t i = 0; i < out.numel(); ++i)
    dst[i] = any ? 0 : 1;
  ReducedWalk walk(call, in);
  for (int64_t i = 0; i < in.numel(); ++i, walk.next()) {
    bool value = loadAsDouble(in, i) != 0;
    uint8_t &result = dst[walk.offset()];
    result = any ? result || value : result && value;
  }
}
} // namespace

Error validateAny(const KernelCall &call) {
  return validateTruthReduction(call);
}
void runAny(const KernelCall &call) { truthReduce(call, true); }
Error validateAll(const KernelCall &call) {
  return validateTruthReduction(call);
}
void runAll(const KernelCall &call) { truthReduce(call, false); }

} // namespace etch::runtime::portable
