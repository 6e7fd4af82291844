//===- TorchImporter.h - torch.export program -> Edge dialect ---*- C++ -*-===//
#ifndef ETCH_LIB_IMPORT_TORCH_TORCHIMPORTER_H
#define ETCH_LIB_IMPORT_TORCH_TORCHIMPORTER_H

#include "../EdgeOpBuilder.h"
#include "Pt2Archive.h"
#include "SymbolicExpr.h"
#include "TorchArgument.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

namespace etch::torch_import {

/// One node's inputs by schema argument name, in schema order.
using NamedArguments = std::vector<std::pair<std::string, TorchArgument>>;

class TorchImporter;

/// What a node handler sees: the node's arguments by name, its outputs, and
/// ways to create Edge ops at the node's location and bind its results.
class TorchNode {
public:
  TorchNode(TorchImporter &importer, const llvm::json::Object &json,
            std::string aten, NamedArguments args);

  /// "aten::conv2d" (namespace::name, no overload).
  llvm::StringRef aten() const { return atenName; }
  /// The overload ("default", "Tensor", "int", ...).
  llvm::StringRef overload() const { return overloadName; }
  mlir::Location loc() const { return location; }
  const llvm::json::Object &json() const { return node; }
  NamedArguments &args() { return arguments; }

  /// The argument \p name, or null when the node does not pass it.
  const TorchArgument *arg(llvm::StringRef name) const;
  /// Passed and not None.
  bool has(llvm::StringRef name) const;
  /// The Edge value of tensor argument \p name; null when absent or None.
  mlir::Value tensor(llvm::StringRef name) const;
  /// Every tensor of list argument \p name (null entries for None);
  /// std::nullopt when the argument is not a tensor list.
  std::optional<llvm::SmallVector<mlir::Value>>
  tensors(llvm::StringRef name) const;
  /// The first tensor argument (`self`/`input` in every ATen schema).
  mlir::Value self() const;
  /// A constant int / scalar / int list argument; std::nullopt when absent,
  /// None or symbolic.
  std::optional<int64_t> integer(llvm::StringRef name) const;
  std::optional<double> number(llvm::StringRef name) const;
  std::optional<llvm::SmallVector<int64_t>> ints(llvm::StringRef name) const;
  std::optional<bool> boolean(llvm::StringRef name) const;

  std::vector<std::string> outputNames() const;
  /// Whether a later node or the graph's outputs read output \p index.
  bool outputRead(size_t index) const;
  /// The program's recorded type of output \p index.
  mlir::FailureOr<mlir::RankedTensorType> outputType(size_t index = 0) const;

  /// Binds the first output to \p value (refined to the recorded type) and
  /// marks the others unusable; fails quietly when \p value failed (its
  /// error was reported).
  mlir::LogicalResult bind(mlir::FailureOr<mlir::Value> value);
  /// Binds outputs in order (null entries: that output is not produced).
  mlir::LogicalResult bindEach(llvm::ArrayRef<mlir::Value> results);
  /// Names the op computing output \p index after that output.
  void nameAfterOutput(llvm::ArrayRef<mlir::Value> results, size_t index,
                       llvm::StringRef name);
  /// Maps the node through the generic path as ATen op \p aten (after a
  /// handler renamed or rewrote arguments).
  mlir::LogicalResult importAs(llvm::StringRef aten);

  /// "node 'x' (aten::y): " at the node's location.
  mlir::InFlightDiagnostic error() const;
  /// Records the value of a symbolic int the node defines (sym_size);
  /// std::nullopt when it is not known at compile time.
  void defineSymbol(llvm::StringRef name, std::optional<int64_t> value);
  /// Records a symbolic int known only at run time, as the 0-d i64 value
  /// that computes it.
  void defineSymbolValue(llvm::StringRef name, mlir::Value value);
  /// Entry \p index of int (list) argument \p arg as a 0-d i64 value: a
  /// constant when known, else the value computing the symbol; null after
  /// an error.
  mlir::Value sizeValue(const TorchArgument &arg, size_t index) const;
  /// Int list argument \p name as a size list for ops that take run-time
  /// sizes: known entries as they are, the others as the dynamic marker
  /// with their values appended to \p dynamic; std::nullopt after an error.
  std::optional<llvm::SmallVector<int64_t>>
  sizeOperands(llvm::StringRef name,
               llvm::SmallVectorImpl<mlir::Value> &dynamic) const;
  /// The name of the symbolic int this node outputs (sym_size, operators).
  std::optional<std::string> outputSymbol() const;

  EdgeOpBuilder &edge() const;
  mlir::OpBuilder &builder() const;
  /// Typed op creation at the node's location (EdgeOpBuilder::build).
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> build(Args &&...args) const {
    return edge().template build<OpTy>(location, std::forward<Args>(args)...);
  }
  /// A rank-0 constant of \p elementType.
  mlir::Value scalar(mlir::Type elementType, double value) const;
  /// \p value converted to \p elementType (itself when it already is).
  mlir::FailureOr<mlir::Value> castTo(mlir::Value value,
                                      mlir::Type elementType) const;

private:
  TorchImporter &importer;
  const llvm::json::Object &node;
  std::string atenName, overloadName;
  NamedArguments arguments;
  mlir::Location location;
};

/// A handler imports one ATen op (or a family) that the generic mapping
/// through AtenOpInterface cannot: composites decomposed in C++, ops whose
/// arguments differ from their Edge op's, value-preserving ops.
using TorchOpHandler = mlir::LogicalResult (*)(TorchNode &node);
using TorchOpHandlers = llvm::StringMap<TorchOpHandler>;

/// The table, keyed by "aten::name"; each family file adds its own.
const TorchOpHandlers &torchOpHandlers();
void addShapeHandlers(TorchOpHandlers &handlers);
void addCompositeHandlers(TorchOpHandlers &handlers);
void addValueHandlers(TorchOpHandlers &handlers);
void addMathHandlers(TorchOpHandlers &handlers);
void addFactoryHandlers(TorchOpHandlers &handlers);
void addReduceHandlers(TorchOpHandlers &handlers);
void addProductHandlers(TorchOpHandlers &handlers);
void addQuantHandlers(TorchOpHandlers &handlers);
void addDynamicQuantHandlers(TorchOpHandlers &handlers);
/// Dynamic quantization's quantize / dequantize with a run-time scale and
/// zero point (1-element tensors), as the float formulas torch evaluates.
mlir::FailureOr<mlir::Value>
quantizeAtRunTime(TorchNode &node, mlir::Value input, mlir::Value scale,
                  mlir::Value zeroPoint, int64_t qmin, int64_t qmax,
                  mlir::IntegerType storage);
mlir::FailureOr<mlir::Value> dequantizeAtRunTime(TorchNode &node,
                                                 mlir::Value input,
                                                 mlir::Value scale,
                                                 mlir::Value zeroPoint);
/// \p value read backwards along \p dim (a static one): index_select with
/// a reversed constant index.
mlir::FailureOr<mlir::Value> flipDim(TorchNode &node, mlir::Value value,
                                     int64_t dim);
/// \p self with the entry \p index of \p dim replaced by \p src (which
/// lacks that dim): a slice_scatter of length 1 over src unsqueezed.
mlir::FailureOr<mlir::Value> selectScatter(TorchNode &node, mlir::Value self,
                                           mlir::Value src, int64_t dim,
                                           int64_t index);

class TorchImporter {
public:
  TorchImporter(mlir::ModuleOp module, Pt2Contents &contents,
                llvm::StringRef path);
  mlir::LogicalResult run();

private:
  friend class TorchNode;

  mlir::LogicalResult importSignature(const llvm::json::Object &graph,
                                      const llvm::json::Object &signature);
  mlir::LogicalResult importGraph(const llvm::json::Object &graph);
  mlir::LogicalResult importNode(const llvm::json::Object &node);
  /// The exporter's etch_metadata.json, as the module's `etch.metadata`.
  mlir::LogicalResult importMetadata();
  mlir::LogicalResult importOutputs(const llvm::json::Object &graph,
                                    const llvm::json::Object &signature);
  /// Decodes the node's inputs; reports malformed ones and references to
  /// values that do not exist.
  mlir::FailureOr<NamedArguments> decodeInputs(const llvm::json::Object &node,
                                               llvm::StringRef aten);
  /// Higher-order ops (wrap_with_set_grad_enabled, ...) run their subgraph
  /// in place.
  mlir::LogicalResult importHigherOrder(const llvm::json::Object &node,
                                        llvm::StringRef target);

  /// ATen op -> Edge op by AtenOpInterface: tensors become operands in
  /// schema order, arguments named like the Edge op's attributes become
  /// attributes (omitted ones take the ODS defaults), Python scalars in
  /// operand position become rank-0 constants.
  mlir::LogicalResult importGeneric(TorchNode &node,
                                    mlir::RegisteredOperationName edgeOp);
  /// In-place `op_(self, ...)`: imported as `op`, then `self`'s name (and
  /// the buffer it holds, if any) refers to the result.
  mlir::LogicalResult importInPlace(TorchNode &node, llvm::StringRef functional);
  mlir::LogicalResult importCustom(TorchNode &node);

  mlir::FailureOr<mlir::RankedTensorType> tensorType(llvm::StringRef name,
                                                     mlir::Location loc);
  /// Per-dimension [min, max] of tensor \p name from its symbolic sizes and
  /// the symbols' ranges.
  mlir::LogicalResult
  sizeBounds(llvm::StringRef name, mlir::Location loc,
             llvm::SmallVectorImpl<int64_t> &min,
             llvm::SmallVectorImpl<int64_t> &max);
  mlir::Value tensor(llvm::StringRef name);
  mlir::FailureOr<mlir::Value> constantFromTensorData(llvm::StringRef valueName,
                                                      llvm::StringRef fqn,
                                                      TensorData &data,
                                                      mlir::Location loc);
  std::vector<std::string> outputTensorNames(const llvm::json::Object &node);
  mlir::LogicalResult bindOutputs(TorchNode &node,
                                  mlir::FailureOr<mlir::Value> value);
  mlir::Location nodeLocation(const llvm::json::Object &node);
  std::string nodeName(const llvm::json::Object &node);
  std::string nodeErrorPrefix(const llvm::json::Object &node,
                              llvm::StringRef aten);
  mlir::InFlightDiagnostic nodeError(const llvm::json::Object &node,
                                     llvm::StringRef aten);
  mlir::Attribute attributeFor(const TorchArgument &arg, bool asFloat);
  std::optional<mlir::RegisteredOperationName> edgeOpFor(llvm::StringRef aten);

  mlir::ModuleOp module;
  Pt2Contents &contents;
  std::string path;
  mlir::OpBuilder builder;
  EdgeOpBuilder edge;
  const llvm::json::Object *tensorValues = nullptr;
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<std::optional<int64_t>> symbols;
  /// Symbolic ints known only at run time -> the 0-d i64 values computing
  /// them; and each symbol's range (range_constraints).
  llvm::StringMap<mlir::Value> symbolValues;
  llvm::StringMap<SymbolRange> symbolRanges;
  llvm::StringMap<std::string> unusableOutputs;
  /// Graph input name -> buffer name, for in-place writes to buffers (and
  /// to tensor constants, which a write makes state too).
  llvm::StringMap<std::string> bufferOfInput;
  /// Tensor constants by name: they stay constants unless written.
  llvm::StringSet<> tensorConstants;
  /// Buffers written in place (training IR), in the order first written,
  /// with their latest value.
  llvm::SmallVector<std::pair<std::string, mlir::Value>> mutatedBuffers;
  /// Records \p value as buffer \p buffer's latest value.
  void noteBufferWrite(llvm::StringRef buffer, mlir::Value value);
  /// Values that alias another value (made by a view op) -> the value they
  /// view. An in-place write to one changes the others, which value
  /// semantics express only when none of them is read afterwards.
  llvm::StringMap<std::string> viewOf;
  /// How a view was made from its parent, where a write through it can be
  /// carried back to the parent (slice, select, alias): see
  /// TorchViewWrites.cpp.
  struct ViewStep {
    enum class Kind { Slice, Select, Alias } kind;
    std::string parent;
    int64_t dim = 0, start = 0, step = 1;
    std::optional<int64_t> end; // Slice: absent = to the end
  };
  llvm::StringMap<ViewStep> viewSteps;
  /// Records \p node's view step for its result \p name, when it has one.
  void recordViewStep(TorchNode &node, llvm::StringRef name);
  /// The view chain from \p written up to its base (written first), when
  /// every step can be written back; std::nullopt otherwise.
  std::optional<llvm::SmallVector<std::string>>
  writableChain(llvm::StringRef written) const;
  /// Whether \p node is an aten::to that returns its input (same dtype):
  /// its result is an alias, like a view's.
  static bool isAliasingConversion(TorchNode &node, mlir::Value result);
  /// After an in-place op wrote \p result into view \p chain.front(): each
  /// ancestor up the chain becomes its parent with the view's region replaced
  /// (slice_scatter), so later reads of them see the write.
  mlir::LogicalResult writeBack(TorchNode &node,
                                llvm::ArrayRef<std::string> chain,
                                mlir::Value result);
  /// For each name, the index of the last node that reads it (graph outputs
  /// read it after every node), and the node being imported.
  llvm::StringMap<size_t> lastUse;
  size_t currentNode = 0;
  /// ATen name ("aten::add") -> Edge op name ("edge.add").
  llvm::StringMap<std::string> atenToEdge;
  UnmappedOperators unmapped;
};

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_TORCHIMPORTER_H
