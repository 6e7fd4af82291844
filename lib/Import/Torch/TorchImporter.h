//===- TorchImporter.h - torch.export program -> Edge dialect ---*- C++ -*-===//
#ifndef ETCH_LIB_IMPORT_TORCH_TORCHIMPORTER_H
#define ETCH_LIB_IMPORT_TORCH_TORCHIMPORTER_H

#include "../EdgeOpBuilder.h"
#include "Pt2Archive.h"
#include "TorchArgument.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

namespace etch::torch_import {

/// One node's inputs by schema argument name, in schema order.
using NamedArguments = std::vector<std::pair<std::string, TorchArgument>>;

class TorchImporter {
public:
  TorchImporter(mlir::ModuleOp module, Pt2Contents &contents,
                llvm::StringRef path);
  mlir::LogicalResult run();

private:
  mlir::LogicalResult importSignature(const llvm::json::Object &graph,
                                      const llvm::json::Object &signature);
  mlir::LogicalResult importNode(const llvm::json::Object &node);
  mlir::LogicalResult importOutputs(const llvm::json::Object &graph,
                                    const llvm::json::Object &signature);

  /// Node handlers. `aten` is "aten::name" (no overload).
  mlir::LogicalResult importGeneric(const llvm::json::Object &node,
                                    llvm::StringRef aten,
                                    mlir::RegisteredOperationName edgeOp,
                                    const NamedArguments &args);
  mlir::LogicalResult importSpecial(const llvm::json::Object &node,
                                    llvm::StringRef aten,
                                    const NamedArguments &args, bool &handled);
  /// Factory ops (full, zeros, ones, arange, scalar_tensor and their
  /// *_like / new_* forms) with a static result become edge.constant; sets
  /// \p handled when \p aten is one of them.
  mlir::LogicalResult importFactory(const llvm::json::Object &node,
                                    llvm::StringRef aten,
                                    const NamedArguments &args, bool &handled);
  mlir::LogicalResult importCustom(const llvm::json::Object &node,
                                   llvm::StringRef aten,
                                   const NamedArguments &args);

  mlir::FailureOr<mlir::RankedTensorType> tensorType(llvm::StringRef name,
                                                     mlir::Location loc);
  mlir::Value tensor(llvm::StringRef name);
  mlir::FailureOr<mlir::Value> constantFromTensorData(llvm::StringRef valueName,
                                                      llvm::StringRef fqn,
                                                      TensorData &data,
                                                      mlir::Location loc);
  std::vector<std::string> outputTensorNames(const llvm::json::Object &node);
  /// Binds the first output of \p node to \p value (refining its type to the
  /// program's when compatible) and records the other outputs as unusable.
  mlir::LogicalResult bindOutputs(const llvm::json::Object &node,
                                  llvm::StringRef aten,
                                  mlir::FailureOr<mlir::Value> value);
  mlir::Location nodeLocation(const llvm::json::Object &node);
  std::string nodeName(const llvm::json::Object &node);
  mlir::InFlightDiagnostic nodeError(const llvm::json::Object &node,
                                     llvm::StringRef aten);
  /// "node 'name' (aten::op): ", what every error about a node starts with.
  std::string nodeErrorPrefix(const llvm::json::Object &node,
                              llvm::StringRef aten);
  mlir::Attribute attributeFor(const TorchArgument &arg, bool asFloat);

  mlir::ModuleOp module;
  Pt2Contents &contents;
  std::string path;
  mlir::OpBuilder builder;
  EdgeOpBuilder edge;
  const llvm::json::Object *tensorValues = nullptr;
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<std::optional<int64_t>> symbols;
  llvm::StringMap<std::string> unusableOutputs;
  /// ATen name ("aten::add") -> Edge op name ("edge.add").
  llvm::StringMap<std::string> atenToEdge;
  std::optional<mlir::RegisteredOperationName> edgeOpFor(llvm::StringRef aten);
  llvm::SmallVector<mlir::Type> argumentTypes;
  llvm::SmallVector<std::pair<std::string, mlir::Type>> userInputs;
  UnmappedOperators unmapped;
};

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_TORCHIMPORTER_H
