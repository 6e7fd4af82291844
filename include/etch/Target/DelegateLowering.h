//===- DelegateLowering.h - What delegate compilers share ------*- C++ -*-===//
//
// Every target's delegate compiler walks a delegate body the same way: its
// arguments bound to blob tensors first, then each op that computes
// something lowered in order, then the returned values bound as the blob's
// outputs, each a distinct value computed inside. DelegateLowering holds
// that walk and the state it needs (the value -> tensor table, the layout
// border views, the returned values, the ops folded into others); a target
// derives from it and supplies how a tensor is made and an op lowered.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TARGET_DELEGATELOWERING_H
#define ETCH_TARGET_DELEGATELOWERING_H

#include "edge/EdgeDialect.h"
#include "etch/Quantization/QdqPattern.h"
#include "etch/Target/ChannelsLast.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace etch {

/// Lowers each op of \p body that computes something, in order, through
/// \p lower: constants and the terminator are data, \p skipped ops compile to
/// nothing (folded into another, or a border view), and a dequantize of a
/// constant neither where \p dequantizedConstantsAreWeights (its readers
/// take the float weights).
inline mlir::LogicalResult lowerDelegateBody(
    mlir::Block &body, llvm::function_ref<bool(mlir::Operation &)> skipped,
    bool dequantizedConstantsAreWeights,
    llvm::function_ref<mlir::LogicalResult(mlir::Operation *)> lower) {
  for (mlir::Operation &op : body) {
    auto dequantize = mlir::dyn_cast<edge::DequantizeOp>(op);
    if (mlir::isa<edge::ConstantOp, edge::DelegateReturnOp>(op) ||
        skipped(op) ||
        (dequantizedConstantsAreWeights && dequantize &&
         quantization::isConstant(dequantize.getInput())))
      continue;
    if (mlir::failed(lower(&op)))
      return mlir::failure();
  }
  return mlir::success();
}

/// The state and steps the XNNPACK and oneDNN compilers share; \p target
/// prefixes their errors ("xnnpack: ...").
class DelegateLowering {
protected:
  DelegateLowering(edge::DelegateOp delegate, llvm::StringRef target)
      : delegate(delegate), target(target.str()) {}

  mlir::Block &body() { return delegate.getBody().front(); }
  edge::DelegateReturnOp terminator() {
    return mlir::cast<edge::DelegateReturnOp>(body().getTerminator());
  }

  /// The border views of a delegate storing rank-4 values NHWC when
  /// \p nhwc, and the values it returns (as they are stored).
  mlir::LogicalResult collectBorders(bool nhwc) {
    channelsLast = nhwc;
    mlir::FailureOr<LayoutBorderViews> collected =
        collectLayoutBorderViews(body(), channelsLast, target);
    if (mlir::failed(collected))
      return mlir::failure();
    views = std::move(*collected);
    for (mlir::Value value : terminator().getOperands())
      returned.insert(views.storedAs(value));
    return mlir::success();
  }

  /// Binds each returned value's tensor as output \p index through
  /// \p bind(id, index, value), once \p taken(id) has said the tensor is
  /// not already an input, an output or a constant.
  mlir::LogicalResult
  bindResults(llvm::function_ref<bool(uint32_t)> taken,
              llvm::function_ref<void(uint32_t, size_t, mlir::Value)> bind) {
    for (auto [index, value] : llvm::enumerate(terminator().getOperands())) {
      auto it = ids.find(views.storedAs(value));
      if (it == ids.end() || taken(it->second))
        return delegate.emitOpError(target)
               << ": every delegate result must be a distinct value computed "
                  "inside the delegate";
      bind(it->second, index, value);
    }
    return mlir::success();
  }

  /// The float values of a constant or of a dequantized constant.
  mlir::FailureOr<std::vector<float>> floats(mlir::Operation *user,
                                             mlir::Value constant) {
    std::optional<llvm::SmallVector<float>> values =
        quantization::constantRealValues(constant);
    if (!values)
      return user->emitOpError(target) << ": constant payload is not available";
    return std::vector<float>(values->begin(), values->end());
  }

  edge::DelegateOp delegate;
  std::string target;
  bool channelsLast = false; // rank-4 values stored NHWC
  // NHWC arguments and returned NHWC views (collectLayoutBorderViews).
  LayoutBorderViews views;
  llvm::DenseMap<mlir::Value, uint32_t> ids; // each value's blob tensor
  llvm::DenseSet<mlir::Value> returned;      // as stored
  llvm::DenseSet<mlir::Operation *> fused;   // lowered with another op
};

} // namespace etch

#endif // ETCH_TARGET_DELEGATELOWERING_H
