//===- EdgeOpBuilder.h - Create Edge ops with inferred types ----*- C++ -*-===//
//
// Importers create Edge ops from operands and attributes and need the result
// types inferred. The ODS inferring builders abort the process when inference
// fails; this builder reports the diagnostic and returns failure instead, so
// bad input files get an error, never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_EDGEOPBUILDER_H
#define ETCH_LIB_IMPORT_EDGEOPBUILDER_H

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <string>

namespace etch {

class EdgeOpBuilder {
public:
  explicit EdgeOpBuilder(mlir::OpBuilder &builder) : builder(builder) {}

  /// Creates `opName` (for example "edge.add") with \p operands and
  /// \p attributes and infers its result types; returns the first result
  /// (the others through its defining op: topk, sort). On failure the
  /// inference diagnostic has been emitted at \p loc and nothing is created.
  mlir::FailureOr<mlir::Value>
  create(mlir::Location loc, llvm::StringRef opName, mlir::ValueRange operands,
         llvm::ArrayRef<mlir::NamedAttribute> attributes = {});

  template <typename OpTy>
  mlir::FailureOr<mlir::Value>
  create(mlir::Location loc, mlir::ValueRange operands,
         llvm::ArrayRef<mlir::NamedAttribute> attributes = {}) {
    return create(loc, OpTy::getOperationName(), operands, attributes);
  }

  /// Typed creation through the op's ODS builder (the overload taking the
  /// result type first), so operands and attributes are checked by the C++
  /// compiler: `build<edge::SliceOp>(loc, x, dim, start, end, step)`. The
  /// result type is inferred as create() does.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> build(mlir::Location loc, Args &&...args) {
    mlir::OperationState state(loc, OpTy::getOperationName());
    OpTy::build(builder, state, builder.getNoneType(),
                std::forward<Args>(args)...);
    return createFromState(state);
  }

  /// An `edge.custom` keeping source operator \p opName with its operands,
  /// result types and attributes; counted in \p unmapped.
  mlir::Operation *createCustom(mlir::Location loc, llvm::StringRef opName,
                                mlir::ValueRange operands,
                                mlir::TypeRange resultTypes,
                                llvm::ArrayRef<mlir::NamedAttribute> attributes,
                                class UnmappedOperators &unmapped);

  /// An `edge.constant` holding \p bytes (row-major, little-endian) of
  /// \p type; large payloads become dense_resource blobs named \p name.
  mlir::Value constantFromBytes(mlir::Location loc, mlir::RankedTensorType type,
                                llvm::ArrayRef<char> bytes,
                                llvm::StringRef name);

  /// `edge.quantize` of f32 \p input to element type \p quantized.
  mlir::FailureOr<mlir::Value> quantize(mlir::Location loc, mlir::Value input,
                                        mlir::quant::QuantizedType quantized);
  /// `edge.dequantize` of \p input read as \p quantized: either a value of
  /// exactly that type (a quantize result) or an integer constant holding
  /// its storage (weights, biases), which becomes a quantized constant.
  /// Anything else is an error naming what was found.
  mlir::FailureOr<mlir::Value> dequantize(mlir::Location loc,
                                          mlir::Value input,
                                          mlir::quant::QuantizedType quantized);

  /// A rank-0 or 1-element constant of \p elementType holding \p value.
  mlir::Value scalarConstant(mlir::Location loc, mlir::Type elementType,
                             double value);

  mlir::OpBuilder &getBuilder() { return builder; }

  /// Text put in front of every error create() reports ("node 'x' (Add): "),
  /// so a failed node gives one line that says where and what.
  void setErrorContext(std::string context) {
    errorContext = std::move(context);
  }
  /// An error at \p loc, after the error context.
  mlir::InFlightDiagnostic error(mlir::Location loc) const;

private:
  /// \p op's result when it verifies; otherwise erases it and reports the
  /// verifier's message after the error context.
  mlir::FailureOr<mlir::Value> verified(mlir::Operation *op);
  /// Creates the op \p state describes (result type a placeholder), checks
  /// operands and attributes, infers and sets the result type.
  mlir::FailureOr<mlir::Value> createFromState(mlir::OperationState &state);

  mlir::OpBuilder &builder;
  std::string errorContext;
};

/// Counts source operators that became `edge.custom`, and reports them at the
/// end of an import as one warning line per operator name.
class UnmappedOperators {
public:
  void note(llvm::StringRef name) { ++counts[name.str()]; }
  /// Takes back one note of \p name (its op was erased).
  void forget(llvm::StringRef name);
  /// Emits "'<name>' imported as edge.custom (N times)" per operator.
  void report(mlir::Location loc) const;

private:
  std::map<std::string, int> counts;
};

/// Erases the `edge.custom` ops whose results nothing reads (torch.rand for
/// layer drop in eval mode, say), and takes them off \p unmapped: no output
/// depends on them, and a program cannot hold an op no kernel computes.
void eraseUnreadCustoms(mlir::Operation *root, UnmappedOperators &unmapped);

} // namespace etch

#endif // ETCH_LIB_IMPORT_EDGEOPBUILDER_H
