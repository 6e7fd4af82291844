// Where the program's NCHW extents and data lie in a channels-last XNNPACK
// delegate (NHWC for rank 4), and compile-time permutation of constants.
#ifndef ETCH_TARGETS_XNNPACK_COMPILER_LAYOUT_H
#define ETCH_TARGETS_XNNPACK_COMPILER_LAYOUT_H

#include "etch/Target/ChannelsLast.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace etch::xnnpack {

/// NCHW extents -> XNNPACK's NHWC order for rank 4, unchanged otherwise.
inline std::vector<uint64_t> xnnDims(llvm::ArrayRef<int64_t> shape) {
  std::vector<uint64_t> dims(shape.begin(), shape.end());
  if (dims.size() == 4)
    dims = {dims[0], dims[2], dims[3], dims[1]};
  return dims;
}

/// Where NCHW dim \p d of a rank-\p rank tensor lies in XNNPACK's order.
inline int xnnDim(int d, int64_t rank) {
  static constexpr int kNhwcPosition[] = {0, 3, 1, 2};
  return rank == 4 ? kNhwcPosition[d] : d;
}

using etch::permuteData;

} // namespace etch::xnnpack

#endif
