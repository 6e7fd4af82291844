//===- OnnxImporter.h - OnnxGraph -> Edge dialect ---------------*- C++ -*-===//
#ifndef ETCH_LIB_IMPORT_ONNX_ONNXIMPORTER_H
#define ETCH_LIB_IMPORT_ONNX_ONNXIMPORTER_H

#include "../EdgeOpBuilder.h"
#include "OnnxModel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace etch::onnx_import {

class OnnxImporter;
using NodeConverter = mlir::LogicalResult (OnnxImporter::*)(const OnnxNode &);

/// Converts one ONNX graph into `func.func @forward` of Edge ops. Converters
/// for op families live in OnnxNnOps.cpp and OnnxTensorOps.cpp.
class OnnxImporter {
public:
  OnnxImporter(mlir::ModuleOp module, const OnnxGraph &graph,
               llvm::StringRef path);
  mlir::LogicalResult run();

  // Converters (one per ONNX op type or family).
  mlir::LogicalResult convertConv(const OnnxNode &node);
  mlir::LogicalResult convertGemm(const OnnxNode &node);
  mlir::LogicalResult convertMatMul(const OnnxNode &node);
  mlir::LogicalResult convertBatchNormalization(const OnnxNode &node);
  mlir::LogicalResult convertLayerNormalization(const OnnxNode &node);
  mlir::LogicalResult convertPool(const OnnxNode &node);
  mlir::LogicalResult convertGlobalPool(const OnnxNode &node);
  mlir::LogicalResult convertBinary(const OnnxNode &node);
  mlir::LogicalResult convertUnary(const OnnxNode &node);
  mlir::LogicalResult convertHardSigmoid(const OnnxNode &node);
  mlir::LogicalResult convertLeakyReluOrElu(const OnnxNode &node);
  mlir::LogicalResult convertClip(const OnnxNode &node);
  mlir::LogicalResult convertSoftmax(const OnnxNode &node);
  mlir::LogicalResult convertFlatten(const OnnxNode &node);
  mlir::LogicalResult convertReshape(const OnnxNode &node);
  mlir::LogicalResult convertTranspose(const OnnxNode &node);
  mlir::LogicalResult convertConcat(const OnnxNode &node);
  mlir::LogicalResult convertGather(const OnnxNode &node);
  mlir::LogicalResult convertUnsqueeze(const OnnxNode &node);
  mlir::LogicalResult convertSqueeze(const OnnxNode &node);
  mlir::LogicalResult convertSlice(const OnnxNode &node);
  mlir::LogicalResult convertReduce(const OnnxNode &node);
  mlir::LogicalResult convertArgReduce(const OnnxNode &node);
  mlir::LogicalResult convertIdentity(const OnnxNode &node);
  mlir::LogicalResult convertConstant(const OnnxNode &node);
  mlir::LogicalResult convertShape(const OnnxNode &node);
  mlir::LogicalResult convertGelu(const OnnxNode &node);
  mlir::LogicalResult convertErf(const OnnxNode &node);
  mlir::LogicalResult convertCompare(const OnnxNode &node);
  mlir::LogicalResult convertWhere(const OnnxNode &node);
  mlir::LogicalResult convertCast(const OnnxNode &node);
  mlir::LogicalResult convertPad(const OnnxNode &node);
  mlir::LogicalResult padByIndexing(const OnnxNode &node, mlir::Value x,
                                    llvm::ArrayRef<int64_t> pads,
                                    llvm::StringRef mode);
  mlir::LogicalResult convertSplit(const OnnxNode &node);
  mlir::LogicalResult convertResize(const OnnxNode &node);
  mlir::LogicalResult convertQuantizeLinear(const OnnxNode &node);
  mlir::LogicalResult convertDequantizeLinear(const OnnxNode &node);
  mlir::LogicalResult convertDynamicQuantizeLinear(const OnnxNode &node);
  mlir::LogicalResult convertTrainingBatchNorm(const OnnxNode &node);
  mlir::LogicalResult
  bindMaxPoolIndices(const OnnxNode &node, mlir::Value x,
                     llvm::ArrayRef<mlir::NamedAttribute> attributes,
                     bool padded);
  /// ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul.
  mlir::LogicalResult convertIntegerProduct(const OnnxNode &node);
  /// If, Loop and Scan, resolved at import (OnnxControlFlow.cpp).
  mlir::LogicalResult convertIf(const OnnxNode &node);
  mlir::LogicalResult convertLoop(const OnnxNode &node);
  mlir::LogicalResult convertScan(const OnnxNode &node);
  /// The operators written as several Edge ops (OnnxComposedOps.cpp).
  mlir::LogicalResult convertComposed(const OnnxNode &node);
  /// A 1-D window op through its 2-D converter (OnnxNnOps.cpp).
  mlir::LogicalResult convertAs2d(const OnnxNode &node, NodeConverter convert);
  mlir::Type elementTypeOf(OnnxDataType type) { return elementType(type); }

  // Helpers shared by converters.
  mlir::Location locationOf(const OnnxNode &node);
  mlir::InFlightDiagnostic nodeError(const OnnxNode &node);
  /// Why one of \p nodes cannot be converted (no op_type, no named first
  /// output: errors and locations name a node by it), or "".
  static std::string malformedNode(llvm::ArrayRef<OnnxNode> nodes);
  /// "node 'name' (OpType): ", what every error about a node starts with.
  static std::string nodeErrorPrefix(const OnnxNode &node);
  /// The Edge value of input \p index (initializers become constants on
  /// first use); null after emitting an error when there is none.
  mlir::Value input(const OnnxNode &node, size_t index);
  bool hasInput(const OnnxNode &node, size_t index) const;
  /// The data of input \p index when it is a compile-time constant.
  const OnnxTensor *constantInput(const OnnxNode &node, size_t index) const;
  std::optional<std::vector<int64_t>> constantInts(const OnnxTensor &tensor);
  std::optional<std::vector<double>> constantDoubles(const OnnxTensor &tensor);
  mlir::LogicalResult bind(const OnnxNode &node,
                           mlir::FailureOr<mlir::Value> value,
                           size_t outputIndex = 0);
  /// Fails (with an error) when output \p index of \p node is used.
  mlir::LogicalResult requireUnused(const OnnxNode &node, size_t index);
  int64_t intAttr(const OnnxNode &node, llvm::StringRef name, int64_t fallback);
  float floatAttr(const OnnxNode &node, llvm::StringRef name, float fallback);
  std::string stringAttr(const OnnxNode &node, llvm::StringRef name,
                         llvm::StringRef fallback);
  std::optional<std::vector<int64_t>> intsAttr(const OnnxNode &node,
                                               llvm::StringRef name);
  mlir::RankedTensorType rankedTypeOf(mlir::Value value);
  mlir::FailureOr<mlir::Value> view(mlir::Location loc, mlir::Value value,
                                    llvm::ArrayRef<int64_t> shape);
  mlir::FailureOr<mlir::Value> permute(mlir::Location loc, mlir::Value value,
                                       llvm::ArrayRef<int64_t> dims);

  EdgeOpBuilder edge;
  mlir::OpBuilder builder;
  /// The default domain's opset the model was written for (before any
  /// conversion): defaults that changed between versions follow it.
  int64_t writtenOpset() const {
    return graph.convertedFromOpset ? graph.convertedFromOpset
                                    : graph.opsetVersion;
  }

private:
  /// What a name stands for while importing: a constant known at import or
  /// an Edge value.
  struct Bound {
    mlir::Value value;
    const OnnxTensor *constant = nullptr;
  };
  void bindName(const std::string &name, const Bound &bound);
  Bound boundInput(const OnnxNode &node, size_t index);
  mlir::Value materialize(const Bound &bound, mlir::Location loc);
  const OnnxTensor *ownScalar(const std::string &name, OnnxDataType type,
                              int64_t value);
  mlir::FailureOr<llvm::SmallVector<Bound>>
  inlineSubgraph(const OnnxNode &owner, const OnnxGraph &body,
                 llvm::ArrayRef<Bound> arguments);
  mlir::FailureOr<mlir::Value> stack(const OnnxNode &node,
                                     llvm::ArrayRef<Bound> pieces, int64_t axis,
                                     bool reverse);
  mlir::FailureOr<mlir::Value> exactProduct(const OnnxNode &node,
                                            llvm::StringRef opType,
                                            mlir::Value a, mlir::Value b);
  /// Counts the uses of names by \p nodes and the subgraphs inside them.
  void countUses(const std::vector<OnnxNode> &nodes);
  mlir::LogicalResult convertNode(const OnnxNode &node);
  /// Evaluates integer shape arithmetic on constants into a new constant;
  /// false when the node is not such a case (OnnxConstantFolding.cpp).
  bool foldConstantNode(const OnnxNode &node);
  /// A scalar constant by tensor name: an initializer, a folded constant or
  /// the output of a Constant node not converted yet.
  std::optional<double> scalarConstant(const std::string &name);
  const OnnxNode *producerOf(const std::string &name) const;
  /// The only node reading \p name (and nothing else, not a graph output).
  const OnnxNode *soleConsumerOf(const std::string &name) const;
  mlir::LogicalResult convertCustom(const OnnxNode &node);
  mlir::Type elementType(OnnxDataType type);
  mlir::Value constantFromTensor(const OnnxTensor &tensor, mlir::Location loc);

  mlir::ModuleOp module;
  const OnnxGraph &graph;
  std::string path;
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<const OnnxTensor *> constants;
  std::vector<std::unique_ptr<OnnxTensor>> ownedConstants;
  llvm::StringMap<int> useCounts;
  llvm::StringMap<const OnnxNode *> producers;
  llvm::StringMap<std::vector<const OnnxNode *>> consumers;
  llvm::DenseSet<const OnnxNode *> fusedAway; // handled by an earlier fusion
  llvm::StringMap<NodeConverter> converters;
  UnmappedOperators unmapped;
};

} // namespace etch::onnx_import

#endif // ETCH_LIB_IMPORT_ONNX_ONNXIMPORTER_H
