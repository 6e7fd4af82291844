// Where the program's NCHW extents and data lie in a channels-last XNNPACK
// delegate (NHWC for rank 4), and compile-time permutation of constants.
#ifndef ETCH_TARGETS_XNNPACK_COMPILER_LAYOUT_H
#define ETCH_TARGETS_XNNPACK_COMPILER_LAYOUT_H

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

/// Permutes a row-major array: out dim i is in dim perm[i].
template <typename T>
std::vector<T> permuteData(llvm::ArrayRef<T> data, llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<int64_t> perm) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1), outShape;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  std::vector<T> out(data.size());
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  for (size_t flat = 0; flat < out.size(); ++flat) {
    int64_t source = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      source += index[d] * strides[perm[d]];
    out[flat] = data[source];
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < outShape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

} // namespace etch::xnnpack

#endif
