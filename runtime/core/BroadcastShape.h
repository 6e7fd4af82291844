// NumPy's broadcasting of two shapes: right-aligned, an extent of 1 takes
// the other's. The one definition: the Edge dialect's shape inference and
// the portable kernels' validation both use it, as they do WindowExtent.h.
#pragma once

#include <cstdint>

namespace etch::runtime {

/// An extent known only at run time: the compiler's dynamic dimensions (the
/// value MLIR's ShapedType::kDynamic has). Runtime extents never take it.
inline constexpr int64_t kUnknownExtent = INT64_MIN;

/// The broadcast of extents \p a and \p b into \p out; false when they
/// conflict. With an unknown extent the result trusts the program: a known
/// extent above 1 is the result, a 1 yields to the other, two unknowns stay
/// unknown.
inline bool broadcastExtent(int64_t a, int64_t b, int64_t &out) {
  if (a == kUnknownExtent || b == kUnknownExtent) {
    out = a > 1 ? a : b > 1 ? b : a == 1 ? b : b == 1 ? a : kUnknownExtent;
    return true;
  }
  if (a == b || b == 1) {
    out = a;
    return true;
  }
  if (a == 1) {
    out = b;
    return true;
  }
  return false;
}

/// The broadcast of shapes \p a (\p aRank dims) and \p b into \p out, which
/// has room for the longer rank; returns that rank, or -1 when an extent
/// conflicts. \p out may be \p a or \p b.
inline int64_t broadcastShape(const int64_t *a, int64_t aRank, const int64_t *b,
                              int64_t bRank, int64_t *out) {
  int64_t rank = aRank > bRank ? aRank : bRank;
  // From the last dim back, so that out may alias the longer input.
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t ai = d - (rank - aRank), bi = d - (rank - bRank);
    int64_t x = ai >= 0 ? a[ai] : 1, y = bi >= 0 ? b[bi] : 1;
    if (!broadcastExtent(x, y, out[d]))
      return -1;
  }
  return rank;
}

} // namespace etch::runtime
