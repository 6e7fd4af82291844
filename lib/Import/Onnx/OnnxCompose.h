//===- OnnxCompose.h - ONNX ops written as several Edge ops -----*- C++ -*-===//
//
// An ONNX operator with no Edge op of its own is often a few Edge ops in a
// row (Softsign is x / (1 + |x|)). Compose builds such a row at the node's
// location: a null operand (an earlier step failed, its diagnostic already
// emitted) makes every later step null, so a composition is written straight
// through and checked once, when its result is bound.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_ONNX_ONNXCOMPOSE_H
#define ETCH_LIB_IMPORT_ONNX_ONNXCOMPOSE_H

#include "OnnxImporter.h"

namespace etch::onnx_import {

class Compose {
public:
  Compose(OnnxImporter &importer, const OnnxNode &node)
      : importer(importer), node(node), loc(importer.locationOf(node)) {}

  template <typename OpTy>
  mlir::Value op(mlir::ValueRange operands,
                 llvm::ArrayRef<mlir::NamedAttribute> attributes = {}) {
    if (llvm::any_of(operands, [](mlir::Value value) { return !value; }))
      return {};
    mlir::FailureOr<mlir::Value> result =
        importer.edge.create<OpTy>(loc, operands, attributes);
    return mlir::succeeded(result) ? *result : mlir::Value();
  }

  /// A one-element constant of \p like's element type (or \p element).
  mlir::Value scalar(mlir::Value like, double value);
  mlir::Value scalarOf(mlir::Type element, double value);
  /// A constant of i64 values with \p shape.
  mlir::Value int64s(llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<int64_t> values);
  /// \p value reversed along \p dim (index_select with a reversed index).
  mlir::Value flip(mlir::Value value, int64_t dim);
  /// \p index + extent where it is negative (ONNX's wrapped indices).
  mlir::Value wrapNegative(mlir::Value index, int64_t extent);
  mlir::Value view(mlir::Value value, llvm::ArrayRef<int64_t> shape);
  mlir::Value permute(mlir::Value value, llvm::ArrayRef<int64_t> dims);
  mlir::Value cast(mlir::Value value, mlir::Type element);

  // Activations ONNX defines by formula, shared by their own operators and
  // the recurrent ops' `activations`.
  /// alpha x + beta.
  mlir::Value affine(mlir::Value x, double alpha, double beta);
  /// log(1 + exp(x)).
  mlir::Value softplusOf(mlir::Value x);
  /// x / (1 + |x|).
  mlir::Value softsignOf(mlir::Value x);
  /// x where x > alpha, else 0.
  mlir::Value thresholdedReluOf(mlir::Value x, double alpha);
  /// clamp(alpha x + beta, 0, 1).
  mlir::Value hardSigmoidOf(mlir::Value x, double alpha, double beta);

  mlir::NamedAttribute attr(llvm::StringRef name, int64_t value);
  mlir::NamedAttribute attr(llvm::StringRef name, double value);
  mlir::NamedAttribute boolAttr(llvm::StringRef name, bool value);
  mlir::NamedAttribute attr(llvm::StringRef name,
                            llvm::ArrayRef<int64_t> values);

  /// Input \p index, null (with an error) when missing.
  mlir::Value in(size_t index) { return importer.input(node, index); }
  /// Float attribute \p name of the node, \p fallback when absent.
  double floatAttr(llvm::StringRef name, double fallback) {
    return importer.floatAttr(node, name, static_cast<float>(fallback));
  }
  mlir::RankedTensorType typeOf(mlir::Value value) {
    return importer.rankedTypeOf(value);
  }
  mlir::LogicalResult bind(mlir::Value value, size_t output = 0);
  /// Binds every result of \p first's op to the outputs in order (topk,
  /// unique).
  mlir::LogicalResult bindResults(mlir::Value first);

  OnnxImporter &importer;
  const OnnxNode &node;
  mlir::Location loc;
};

/// Builds one ONNX operator from Edge ops and binds its outputs.
using Composition = mlir::LogicalResult (*)(Compose &);
/// Every composed operator by ONNX op type (OnnxComposedOps.cpp).
const llvm::StringMap<Composition> &composedOps();
/// The data-dependent, detection and signal operators
/// (OnnxComposedDataOps.cpp).
void addDataDependentCompositions(llvm::StringMap<Composition> &table);
/// Indexing, layout and normalization operators (OnnxComposedIndexOps.cpp).
void addIndexCompositions(llvm::StringMap<Composition> &table);
/// \p axis normalized for \p rank; an error naming the node when it is out
/// of range.
mlir::FailureOr<int64_t> checkedAxis(Compose &c, int64_t axis, int64_t rank);
/// Input \p index as constant integers; std::nullopt when it is not one.
std::optional<std::vector<int64_t>> constantInts(Compose &c, size_t index);
/// Gather with indices of any shape (OnnxTensorOps.cpp keeps the forms with
/// an Edge op of their own).
mlir::LogicalResult composeGather(Compose &c);
/// RNN, GRU and LSTM unrolled over their static sequence (OnnxRecurrent.cpp).
mlir::LogicalResult composeRecurrent(Compose &c);
/// LayerNormalization with its Mean and InvStdDev outputs.
mlir::LogicalResult composeLayerNormWithStatistics(Compose &c);
/// Axes from the attribute (before opset 13) or constant input
/// \p inputIndex (after); std::nullopt when neither (OnnxTensorOps.cpp).
std::optional<std::vector<int64_t>>
axesOf(OnnxImporter &importer, const OnnxNode &node, size_t inputIndex);
/// Resize of \p x to \p outSizes, axis by axis in any mode (OnnxResize.cpp).
mlir::LogicalResult composeResize(Compose &c, mlir::Value x,
                                  llvm::ArrayRef<int64_t> outSizes,
                                  llvm::ArrayRef<double> scales);
/// Einsum (OnnxEinsum.cpp).
mlir::LogicalResult composeEinsum(Compose &c);
/// ArgMax/ArgMin with select_last_index=1.
mlir::LogicalResult composeArgReduceLast(Compose &c);

} // namespace etch::onnx_import

#endif // ETCH_LIB_IMPORT_ONNX_ONNXCOMPOSE_H
