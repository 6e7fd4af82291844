// Helpers shared by the portable kernels' validate and run functions.
#pragma once

#include "runtime/core/ViewShape.h"
#include "runtime/core/WindowExtent.h"
#include "runtime/kernels/KernelCall.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace etch::runtime::portable {

/// Checks input/output counts (maxInputs counts optional trailing inputs).
Error checkArity(const KernelCall &call, size_t minInputs, size_t maxInputs,
                 size_t outputs);
/// Checks that \p tensor is present and of \p type.
Error checkType(const KernelCall &call, const TensorView *tensor,
                const char *what, ScalarType type);
/// Checks that \p tensor has exactly the sizes \p sizes; while resizing
/// (KernelCall::resizeOutputs), sets them when it is one of the outputs.
Error checkShape(const KernelCall &call, const TensorView *tensor,
                 const char *what, const int64_t *sizes, int rank);
/// Checks that two tensors have the same type and sizes.
Error checkSameShape(const KernelCall &call, const TensorView *a,
                     const TensorView *b, const char *what);
/// The shape rules of convolution (input, weight, optional bias, output,
/// window attributes) and of linear, shared by the float and the integer
/// kernels; \p spatial is 2 (NCHW) or 3 (NCDHW).
Error checkConvolutionShapes(const KernelCall &call, int spatial = 2);
Error checkLinearShapes(const KernelCall &call);
/// The permutation of a permute call (`dims`, negative entries allowed; the
/// identity when absent) into \p perm; false when it is not a permutation.
bool permutationOf(const KernelCall &call, int rank, int64_t *perm);
/// A slice call's dim, start, step and length, with ATen's clamping of
/// negative and out-of-range bounds.
struct SliceSpec {
  int64_t dim, start, step, length;
};
/// The end comes from \p dynamicEnd (a 0-d int64 tensor) when given, else
/// the `end` attribute, else the whole dim; dim is -1 when out of range.
SliceSpec sliceOf(const KernelCall &call, const TensorView &in,
                  const TensorView *dynamicEnd);
/// Whether \p out already holds slice \p s of \p in: the memory plan put
/// it at the slice's bytes (step 1, every dim before the sliced one 1).
bool sliceInPlace(const TensorView &in, const TensorView &out,
                  const SliceSpec &s);
/// Where upsampling reads along one spatial dim (ATen's rules): the source
/// scale is in/out, 1/scales_<dim> when the op recorded one, or the
/// align_corners ratio. One definition for the portable and optimized
/// upsample kernels.
struct UpsampleAxis {
  double scale;
  int64_t extent; // the input's size along the dim
  bool alignCorners;
};
UpsampleAxis upsampleAxis(const KernelCall &call, const char *scaleName,
                          int64_t in, int64_t out, bool alignCorners);
/// Nearest: the source index of output index \p dst.
int64_t nearestSource(const UpsampleAxis &axis, int64_t dst);
/// Bilinear: the two source indices of output index \p dst and the
/// second's weight.
void bilinearSource(const UpsampleAxis &axis, int64_t dst, int64_t &i0,
                    int64_t &i1, float &lambda);
/// Checks (or, while resizing, sets) output 0 as the NumPy broadcast of the
/// inputs from \p first on (absent ones skipped).
Error checkBroadcastOutput(const KernelCall &call, size_t first);
/// \p size with kSizeFromInput entries replaced, in order, by the values of
/// the 0-d int64 inputs from \p firstInput on; false when those inputs do
/// not match (the caller reports it).
bool resolveSizeList(const KernelCall &call, Span<const int64_t> size,
                     size_t firstInput, int64_t *resolved);
/// Whether \p tensor is a size value: a 0-d int64 tensor.
bool isSizeTensor(const TensorView *tensor);
/// Normalizes a possibly negative dim; -1 when out of range.
int64_t normalizeDim(int64_t dim, int64_t rank);

/// A 2-D convolution's extents and window (NCHW), shared by its kernels.
struct ConvShape {
  int64_t n, c, h, w; // input
  int64_t oc, oh, ow; // output
  int64_t kh, kw;
  int64_t sh, sw, ph, pw, dh, dw, groups;
  bool transposed;
  // The depth dim of a 3-D convolution (NCDHW); 2-D has depth 1 throughout.
  int64_t d = 1, od = 1, kd = 1, sd = 1, pd = 0, dd = 1;
};
/// The extents of an edge.convolution (rank 4) or edge.convolution3d (rank 5)
/// call.
ConvShape convShape(const KernelCall &call);

/// scaled_dot_product_attention's extents, shared by its kernels.
struct AttentionShape {
  int rank;             // of query, key and value
  int64_t batch;        // product of query's leading dims
  int64_t queries, keys, embed, valueEmbed;
  int64_t groups;       // query heads per key/value head (1 without GQA)
};
AttentionShape attentionShape(const KernelCall &call);
/// Offset of the key/value matrix for query batch index \p b (query's
/// leading coordinates; the head coordinate divided by the group size).
int64_t kvBase(const TensorView &q, const TensorView &kv, int64_t b,
               int64_t groups);

/// NumPy broadcasting of \p in to \p out: fills per-dim strides (0 where
/// broadcast) aligned to out's rank. False when not broadcastable.
bool broadcastStrides(const TensorView &in, const TensorView &out,
                      int64_t *strides);

/// Truncates toward zero like a C cast, but defined for every input: NaN
/// becomes 0 and values outside T's range saturate (casting those is
/// undefined behaviour; values come from files and from data).
template <typename T> T saturatingCast(double value) {
  if (std::isnan(value))
    return 0;
  if (value <= static_cast<double>(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  if (value >= static_cast<double>(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  return static_cast<T>(std::trunc(value));
}

/// Element \p i of a numeric tensor as double (exact for int32 and for
/// int64 values below 2^53, which covers indices and masks).
double loadAsDouble(const TensorView &t, int64_t i);
/// Stores \p value as element \p i: integers truncate toward zero and
/// saturate, bool is `!= 0`.
void storeFromDouble(TensorView &t, int64_t i, double value);
/// Whether loadAsDouble/storeFromDouble handle \p type (every dtype but
/// the quantized ones).
bool isConvertible(ScalarType type);

/// float32, float64, int64 or int32: what the ordering, scatter and
/// reduction kernels compute in. NotSupported naming \p type otherwise.
Error checkNumericType(const KernelCall &call, ScalarType type);

/// Calls \p fn with a null pointer of \p type's element type, one of
/// checkNumericType's (int32 for any other).
template <typename Fn> decltype(auto) visitNumericType(ScalarType type, Fn fn) {
  switch (type) {
  case ScalarType::Float32:
    return fn(static_cast<float *>(nullptr));
  case ScalarType::Float64:
    return fn(static_cast<double *>(nullptr));
  case ScalarType::Int64:
    return fn(static_cast<int64_t *>(nullptr));
  default:
    return fn(static_cast<int32_t *>(nullptr));
  }
}

/// float32 or float64: what the kernels built on visitFloatType compute in.
/// InvalidType naming \p what and its type otherwise (as checkType: the Edge
/// ops of these kernels take float tensors only).
Error checkFloatType(const KernelCall &call, const TensorView &tensor,
                     const char *what);

/// Calls \p fn with a null double pointer for float64, a float one otherwise.
template <typename Fn> decltype(auto) visitFloatType(ScalarType type, Fn fn) {
  if (type == ScalarType::Float64)
    return fn(static_cast<double *>(nullptr));
  return fn(static_cast<float *>(nullptr));
}

/// Walks the output in row-major order with per-input broadcast offsets
/// (up to three inputs, each broadcasting to the output).
template <typename Fn>
void broadcastWalk(const TensorView &out, const TensorView *const *inputs,
                   int count, Fn fn) {
  int64_t strides[3][kMaxRank], offsets[3] = {0, 0, 0}, index[kMaxRank] = {};
  for (int k = 0; k < count; ++k)
    broadcastStrides(*inputs[k], out, strides[k]);
  for (int64_t i = 0; i < out.numel(); ++i) {
    fn(i, offsets);
    for (int d = out.rank() - 1; d >= 0; --d) {
      for (int k = 0; k < count; ++k)
        offsets[k] += strides[k][d];
      if (++index[d] < out.size(d))
        break;
      for (int k = 0; k < count; ++k)
        offsets[k] -= strides[k][d] * out.size(d);
      index[d] = 0;
    }
  }
}


/// a + b, wrapping on overflow for integers as torch's kernels do (signed
/// overflow is undefined behaviour in C++).
template <typename T> T wrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                          static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}

/// a * b, wrapping on overflow for integers, as wrappingAdd.
template <typename T> T wrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) *
                          static_cast<std::make_unsigned_t<T>>(b));
  else
    return a * b;
}

using runtime::poolingPaddingFits;
using runtime::transposedWindowExtent;
using runtime::windowExtent;

} // namespace etch::runtime::portable
