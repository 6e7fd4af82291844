//===- ShapeBounds.h - Upper bounds of dynamic shapes -----------*- C++ -*-===//
//
// A function with dynamic dimensions is planned for its upper bounds. Its
// inputs carry them (`etch.max_sizes` argument attributes); every other
// value's bound follows by running shape inference on a copy of the function
// whose inputs have their largest shapes, with sizes computed at run time
// (edge.sym_size and arithmetic on it) evaluated to constants. Sizes grow
// with their inputs, so the largest inputs give the largest values; the
// runtime still checks each shape against what was planned.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TRANSFORMS_SHAPEBOUNDS_H
#define ETCH_TRANSFORMS_SHAPEBOUNDS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"

namespace etch {

/// The static upper-bound type of every value of \p func whose type is
/// dynamic (values with static types are not in the map). Fails, with an
/// error at the value, when a bound cannot be derived.
mlir::FailureOr<llvm::DenseMap<mlir::Value, mlir::RankedTensorType>>
computeUpperBounds(mlir::func::FuncOp func);

} // namespace etch

#endif // ETCH_TRANSFORMS_SHAPEBOUNDS_H
