//===- ChannelsLast.h - Helpers for targets storing NHWC -------*- C++ -*-===//
//
// What every target that keeps rank-4 values channels-last needs at compile
// time: the border views etch-assign-layout placed (Target.h
// keepsChannelsLast) and constant data permuted into the target's order.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TARGET_CHANNELSLAST_H
#define ETCH_TARGET_CHANNELSLAST_H

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etch {

/// The layout border permutes of a delegate body and the values they view.
struct LayoutBorderViews {
  /// The permutes: each compiles to nothing.
  llvm::DenseSet<mlir::Operation *> permutes;
  /// Block arguments that arrive NHWC (read only through NHWC -> NCHW
  /// views), and returned NCHW -> NHWC views of values computed inside.
  llvm::DenseSet<mlir::Value> viewed;

  /// The value whose storage holds returned \p value: a returned view is
  /// its NHWC operand as it is stored.
  mlir::Value storedAs(mlir::Value value) const {
    return viewed.count(value) && !mlir::isa<mlir::BlockArgument>(value)
               ? value.getDefiningOp()->getOperand(0)
               : value;
  }
};

/// Checks the border permutes of \p body (in a delegate of \p target, which
/// stores NHWC when \p channelsLast) and collects them; a misplaced one gets
/// an error naming the two accepted forms.
mlir::FailureOr<LayoutBorderViews>
collectLayoutBorderViews(mlir::Block &body, bool channelsLast,
                         llvm::StringRef target);

/// Whether an op whose meaning depends on the order of \p value's bytes may
/// read or write it in a channels-last delegate: not rank 4, or H = W = 1
/// (NCHW and NHWC then hold the same bytes).
inline bool isLayoutNeutral(mlir::Value value) {
  auto type = mlir::cast<mlir::RankedTensorType>(value.getType());
  return type.getRank() != 4 ||
         (type.getDimSize(2) == 1 && type.getDimSize(3) == 1);
}

/// Empty when \p op (adaptive_avg_pool2d or mean) averages a rank-4 NCHW
/// value over all of H and W, else why not: the global pooling targets run
/// on channels-last data.
std::string whyNotGlobalAveragePool(mlir::Operation *op);

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

} // namespace etch

#endif
