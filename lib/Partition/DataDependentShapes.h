//===- DataDependentShapes.h - Values whose extents the data decides ------===//
//
// nonzero's row count is known only once it ran, inside execute. A delegate
// takes new shapes by resizing (XNNPACK rebuilds, allocating), which the
// runtime allows only while preparing: such ops stay on portable kernels,
// which take the shapes as they come, without allocating.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_PARTITION_DATADEPENDENTSHAPES_H
#define ETCH_LIB_PARTITION_DATADEPENDENTSHAPES_H

#include "edge/EdgeDialect.h"

#include "llvm/ADT/DenseSet.h"

namespace etch {

class DataDependentShapes {
public:
  /// Follows \p block in order.
  explicit DataDependentShapes(mlir::Block &block) {
    for (mlir::Operation &op : block)
      if (readsOrMakes(&op))
        for (mlir::Value result : op.getResults())
          if (auto type =
                  mlir::dyn_cast<mlir::RankedTensorType>(result.getType());
              type && !type.hasStaticShape())
            values.insert(result);
  }

  /// Whether \p op makes a data-dependent shape or reads one.
  bool readsOrMakes(mlir::Operation *op) const {
    return mlir::isa<edge::DataDependentShapeOpInterface>(op) ||
           llvm::any_of(op->getOperands(), [&](mlir::Value operand) {
             return values.contains(operand);
           });
  }

  static constexpr const char *kReason =
      "its shape depends on values computed at run time (nonzero), which "
      "only portable kernels take without allocating";

private:
  llvm::DenseSet<mlir::Value> values;
};

} // namespace etch

#endif // ETCH_LIB_PARTITION_DATADEPENDENTSHAPES_H
