// Which dims a reduction folds and the shape it leaves, ATen's rule (and
// topk's, which keeps k of a dim): the
// named dims (counted from the end when negative), every dim when none is
// named; keepdim leaves a size-1 dim in each reduced one's place. The one
// definition: the Edge dialect's shape inference and the portable kernels'
// validation both use it, as they do WindowExtent.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etch::runtime {

/// \p dim counted from the end when negative; -1 when outside [0, rank).
inline int64_t normalizedDim(int64_t dim, int64_t rank) {
  int64_t d = dim < 0 ? dim + rank : dim;
  return d >= 0 && d < rank ? d : -1;
}

enum class ReducedDimsError { None, OutOfRange, Repeated };

/// Sets \p reduced[0, rank) to the dims \p dims[0, count) names (every dim
/// when \p count is 0). On a dim out of range or named twice, returns which
/// and sets \p at to its position in \p dims.
inline ReducedDimsError markReducedDims(const int64_t *dims, size_t count,
                                        int64_t rank, bool *reduced,
                                        size_t &at) {
  for (int64_t d = 0; d < rank; ++d)
    reduced[d] = count == 0;
  for (at = 0; at < count; ++at) {
    int64_t d = normalizedDim(dims[at], rank);
    if (d < 0)
      return ReducedDimsError::OutOfRange;
    if (reduced[d])
      return ReducedDimsError::Repeated;
    reduced[d] = true;
  }
  return ReducedDimsError::None;
}

/// Writes the extents reducing \p reduced of \p sizes[0, rank) leaves to
/// \p out (room for \p rank); returns how many.
inline int64_t reducedShape(const int64_t *sizes, int64_t rank,
                            const bool *reduced, bool keepdim, int64_t *out) {
  int64_t kept = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      out[kept++] = sizes[d];
    else if (keepdim)
      out[kept++] = 1;
  }
  return kept;
}

/// topk's shape: \p sizes[0, rank) with dim \p dim (normalized) holding
/// \p k, written to \p out; false when k is negative or above the extent
/// (a negative extent, dynamic at compile time, takes any k).
inline bool selectedShape(const int64_t *sizes, int64_t rank, int64_t dim,
                          int64_t k, int64_t *out) {
  for (int64_t d = 0; d < rank; ++d)
    out[d] = sizes[d];
  if (k < 0 || (sizes[dim] >= 0 && k > sizes[dim]))
    return false;
  out[dim] = k;
  return true;
}

} // namespace etch::runtime
