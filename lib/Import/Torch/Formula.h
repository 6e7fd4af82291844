//===- Formula.h - Elementwise formulas of Edge ops for handlers -*- C++
//-*-===//
//
// Handlers that decompose an ATen op into several Edge ops write it as the
// formula torch evaluates. Each step takes and returns plain values; once a
// step fails (its error is reported at the node) every later one returns
// null, so a formula reads like the Python it mirrors and is checked once.
// C++ leaves the order in which a call's arguments are evaluated open: where
// two arguments both create ops, compilers may emit the two in either order
// (the values are the same; FileCheck tests match such ops with CHECK-DAG,
// or the handler names the steps in order).
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_TORCH_FORMULA_H
#define ETCH_LIB_IMPORT_TORCH_FORMULA_H

#include "TorchImporter.h"

#include "edge/EdgeDialect.h"

#include "mlir/IR/TypeUtilities.h"

namespace etch::torch_import {

class Formula {
public:
  explicit Formula(TorchNode &node) : node(node) {}

  /// Any Edge op: null when an operand is null or the op fails.
  template <typename OpTy, typename... Args> mlir::Value op(Args &&...args) {
    if (!(present(args) && ...))
      return mlir::Value();
    mlir::FailureOr<mlir::Value> result =
        node.build<OpTy>(std::forward<Args>(args)...);
    return mlir::succeeded(result) ? *result : mlir::Value();
  }

  /// A 0-d constant of \p like's element type.
  mlir::Value constant(mlir::Value like, double value) {
    return like ? node.scalar(mlir::getElementTypeOrSelf(like.getType()), value)
                : mlir::Value();
  }
  mlir::Value constant(mlir::Type elementType, double value) {
    return node.scalar(elementType, value);
  }
  mlir::Value cast(mlir::Value a, mlir::Type elementType) {
    if (!a)
      return a;
    mlir::FailureOr<mlir::Value> result = node.castTo(a, elementType);
    return mlir::succeeded(result) ? *result : mlir::Value();
  }

  mlir::Value add(mlir::Value a, mlir::Value b) {
    return op<edge::AddOp>(a, b, one());
  }
  mlir::Value sub(mlir::Value a, mlir::Value b) {
    return op<edge::SubOp>(a, b, one());
  }
  mlir::Value mul(mlir::Value a, mlir::Value b) {
    return op<edge::MulOp>(a, b);
  }
  mlir::Value div(mlir::Value a, mlir::Value b) {
    return op<edge::DivOp>(a, b, mlir::StringAttr());
  }
  mlir::Value maximum(mlir::Value a, mlir::Value b) {
    return op<edge::MaximumOp>(a, b);
  }
  mlir::Value minimum(mlir::Value a, mlir::Value b) {
    return op<edge::MinimumOp>(a, b);
  }
  mlir::Value where(mlir::Value condition, mlir::Value a, mlir::Value b) {
    return op<edge::WhereOp>(condition, a, b);
  }
  mlir::Value neg(mlir::Value a) { return op<edge::NegOp>(a); }
  mlir::Value abs(mlir::Value a) { return op<edge::AbsOp>(a); }
  mlir::Value exp(mlir::Value a) { return op<edge::ExpOp>(a); }
  mlir::Value log(mlir::Value a) { return op<edge::LogOp>(a); }
  mlir::Value log1p(mlir::Value a) { return op<edge::Log1pOp>(a); }
  mlir::Value round(mlir::Value a) { return op<edge::RoundOp>(a); }
  mlir::Value clamp(mlir::Value a, std::optional<double> low,
                    std::optional<double> high) {
    return op<edge::ClampOp>(a, low ? attr(*low) : mlir::FloatAttr(),
                             high ? attr(*high) : mlir::FloatAttr());
  }
  /// a + b * c with b a constant (a scalar argument).
  mlir::Value addScaled(mlir::Value a, mlir::Value c, double b) {
    return op<edge::AddOp>(a, c, attr(b));
  }
  mlir::Value eq(mlir::Value a, mlir::Value b) { return op<edge::EqOp>(a, b); }
  mlir::Value ne(mlir::Value a, mlir::Value b) { return op<edge::NeOp>(a, b); }
  mlir::Value lt(mlir::Value a, mlir::Value b) { return op<edge::LtOp>(a, b); }
  mlir::Value gt(mlir::Value a, mlir::Value b) { return op<edge::GtOp>(a, b); }
  mlir::Value ge(mlir::Value a, mlir::Value b) { return op<edge::GeOp>(a, b); }
  mlir::Value le(mlir::Value a, mlir::Value b) { return op<edge::LeOp>(a, b); }
  mlir::Value both(mlir::Value a, mlir::Value b) {
    return op<edge::LogicalAndOp>(a, b);
  }
  mlir::Value either(mlir::Value a, mlir::Value b) {
    return op<edge::LogicalOrOp>(a, b);
  }
  mlir::Value wholeTensorMin(mlir::Value a) {
    return op<edge::AminOp>(a, mlir::DenseI64ArrayAttr(), false);
  }
  mlir::Value wholeTensorMax(mlir::Value a) {
    return op<edge::AmaxOp>(a, mlir::DenseI64ArrayAttr(), false);
  }
  mlir::Value reshape(mlir::Value a, llvm::ArrayRef<int64_t> shape) {
    return op<edge::ViewOp>(a, mlir::ValueRange(),
                            node.builder().getDenseI64ArrayAttr(shape));
  }
  mlir::Type float32() { return node.builder().getF32Type(); }

  mlir::FloatAttr attr(double value) {
    return node.builder().getF64FloatAttr(value);
  }

private:
  mlir::FloatAttr one() { return attr(1.0); }
  static bool present(mlir::Value value) { return bool(value); }
  template <typename T> static bool present(const T &) { return true; }

  TorchNode &node;
};

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_FORMULA_H
