// What a Python slice of one dim takes, where a permutation sends each dim
// (permute, transpose), which dims squeeze and unsqueeze drop and add, and
// the extents a view's size list means, ATen's rules. The one definition: the
// Edge dialect's shape inference and the portable kernels' validation and
// execution use them, as they do WindowExtent.h and ReductionShape.h.
#pragma once

#include "runtime/core/ReductionShape.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>

namespace etch::runtime {

/// The elements a slice takes: `length` of them from `start`, every `step`.
struct SliceRange {
  int64_t start, step, length;
};

/// A Python slice of \p extent (>= 0) with \p step >= 1: negative bounds
/// count from the end, then clamp to [0, extent]. A step past the extent
/// takes at most one element and is clamped to it, which keeps every
/// step-sized product in range (steps, strides and bounds come from files).
inline SliceRange pythonSlice(int64_t extent, int64_t start, int64_t end,
                              int64_t step) {
  auto clampIndex = [extent](int64_t index) {
    if (index < 0)
      index += extent;
    return std::min(std::max<int64_t>(index, 0), extent);
  };
  int64_t first = clampIndex(start), stop = clampIndex(end);
  step = std::min(step, std::max<int64_t>(extent, 1));
  int64_t length = stop > first ? (stop - first + step - 1) / step : 0;
  return {first, step, length};
}

/// Whether the slice with \p step along \p dim of a tensor of \p sizes is
/// one contiguous run of its bytes: step 1 and every dim before \p dim 1.
/// The memory plan places such a slice inside its input's bytes, and the
/// slice kernels then find nothing to copy.
inline bool sliceIsOneRun(const int64_t *sizes, int64_t dim, int64_t step) {
  if (step != 1)
    return false;
  for (int64_t d = 0; d < dim; ++d)
    if (sizes[d] != 1)
      return false;
  return true;
}

enum class PermutationError { None, Count, OutOfRange, Repeated };

/// Writes to \p source[0, rank) the input dim each output dim of a permute
/// by \p dims[0, count) reads (\p named: room for \p rank marks). On a dim
/// out of range or named twice, says which and sets \p at to its position.
inline PermutationError permutationOf(const int64_t *dims, size_t count,
                                      int64_t rank, bool *named,
                                      int64_t *source, size_t &at) {
  at = 0;
  if (static_cast<int64_t>(count) != rank)
    return PermutationError::Count;
  switch (markReducedDims(dims, count, rank, named, at)) {
  case ReducedDimsError::OutOfRange:
    return PermutationError::OutOfRange;
  case ReducedDimsError::Repeated:
    return PermutationError::Repeated;
  case ReducedDimsError::None:
    break;
  }
  for (size_t i = 0; i < count; ++i)
    source[i] = normalizedDim(dims[i], rank);
  return PermutationError::None;
}

/// transpose(dim0, dim1)'s permutation into \p source[0, rank); ATen takes
/// dims 0 and -1 on a rank-0 tensor too. False when a dim is out of range.
inline bool transpositionOf(int64_t rank, int64_t dim0, int64_t dim1,
                            int64_t *source) {
  int64_t a = normalizedDim(dim0, std::max<int64_t>(rank, 1));
  int64_t b = normalizedDim(dim1, std::max<int64_t>(rank, 1));
  for (int64_t d = 0; d < rank; ++d)
    source[d] = d;
  if (a < 0 || b < 0)
    return false;
  if (rank > 0)
    std::swap(source[a], source[b]);
  return true;
}

/// unsqueeze's extents: \p sizes[0, rank) with a 1 inserted at \p dim
/// (counted in the output's rank, from the end when negative), into \p out
/// (room for rank + 1); the output's rank, or -1 when dim is out of range.
inline int64_t unsqueezedShape(const int64_t *sizes, int64_t rank, int64_t dim,
                               int64_t *out) {
  int64_t at = normalizedDim(dim, rank + 1);
  if (at < 0)
    return -1;
  for (int64_t d = 0, o = 0; o <= rank; ++o)
    out[o] = o == at ? 1 : sizes[d++];
  return rank + 1;
}

/// squeeze's extents: with \p hasDims, the dims \p dims[0, count) names
/// that have size 1 dropped (an empty list drops none; a rank-0 tensor
/// takes dims 0 and -1 and stays rank 0), else every dim of size 1. Writes
/// them to \p out (room for rank; \p named: room for rank marks) and
/// returns the output's rank, or -1 when a named dim is out of range, with
/// \p at its position in dims.
inline int64_t squeezedShape(const int64_t *sizes, int64_t rank,
                             const int64_t *dims, size_t count, bool hasDims,
                             bool *named, int64_t *out, size_t &at) {
  for (int64_t d = 0; d < rank; ++d)
    named[d] = !hasDims;
  for (at = 0; hasDims && at < count; ++at) {
    int64_t d = normalizedDim(dims[at], std::max<int64_t>(rank, 1));
    if (d < 0)
      return -1;
    if (rank > 0)
      named[d] = true;
  }
  int64_t kept = 0;
  for (int64_t d = 0; d < rank; ++d)
    if (!named[d] || sizes[d] != 1)
      out[kept++] = sizes[d];
  return kept;
}

enum class ViewSizeError { None, TwoInferred, Negative, Overflow };

/// A size the compiler knows only at run time (MLIR's dynamic extent).
inline constexpr int64_t kUnknownSize = INT64_MIN;

/// What a view's size list \p size[0, count) says: at most one -1, whose
/// extent is inferred (its position in \p inferred, else -1), the other
/// entries >= 0, with product \p known. With \p unknownAllowed, entries
/// of kUnknownSize are skipped and set \p unknown; else they are negative.
inline ViewSizeError readViewSize(const int64_t *size, size_t count,
                                  bool unknownAllowed, int64_t &known,
                                  int64_t &inferred, bool &unknown) {
  known = 1;
  inferred = -1;
  unknown = false;
  for (size_t i = 0; i < count; ++i) {
    if (size[i] == -1) {
      if (inferred >= 0)
        return ViewSizeError::TwoInferred;
      inferred = static_cast<int64_t>(i);
    } else if (size[i] == kUnknownSize && unknownAllowed) {
      unknown = true;
    } else if (size[i] < 0) {
      return ViewSizeError::Negative;
    } else if (__builtin_mul_overflow(known, size[i], &known)) {
      return ViewSizeError::Overflow;
    }
  }
  return ViewSizeError::None;
}

/// The extent a view's -1 takes for \p numel elements when the other
/// entries' product is \p known; -1 when none does (known is 0 or does not
/// divide numel).
inline int64_t inferredViewExtent(int64_t numel, int64_t known) {
  return known != 0 && numel % known == 0 ? numel / known : -1;
}

} // namespace etch::runtime
