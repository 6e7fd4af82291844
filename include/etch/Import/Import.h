//===- Import.h - Model importers (torch.export .pt2, ONNX) -----*- C++ -*-===//
#ifndef ETCH_IMPORT_IMPORT_H
#define ETCH_IMPORT_IMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace etch {

enum class ModelFormat { TorchExport, Onnx, EdgeMlir, Unknown };

/// Detects the format from the file's content: a zip archive is a
/// torch.export program, a protobuf starting with ModelProto fields is ONNX,
/// MLIR text (Edge dialect, e.g. written by --compile-to=edge) is read as is.
ModelFormat detectModelFormat(llvm::StringRef path);

/// Reads a file written by torch.export.save (flat zip of torch <= 2.7 or the
/// PT2 archive of torch >= 2.8) into a module with one `func.func @forward`
/// of Edge ops. Errors are emitted as diagnostics naming the file and node;
/// returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp> importTorchExport(llvm::StringRef path,
                                                    mlir::MLIRContext *context);

/// The same for a .pt2 already in memory; \p name labels diagnostics.
mlir::OwningOpRef<mlir::ModuleOp>
importTorchExportFromBytes(llvm::StringRef name, std::string bytes,
                           mlir::MLIRContext *context);

/// Reads an ONNX model (opsets 13-17) into the same form.
mlir::OwningOpRef<mlir::ModuleOp> importOnnx(llvm::StringRef path,
                                             mlir::MLIRContext *context);
/// The same for a serialized model in memory; external data is looked up in
/// \p modelDir.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxFromBytes(llvm::StringRef name, const std::string &bytes,
                    llvm::StringRef modelDir, mlir::MLIRContext *context);

/// Detects the format and calls the matching importer.
mlir::OwningOpRef<mlir::ModuleOp> importModel(llvm::StringRef path,
                                              mlir::MLIRContext *context);

} // namespace etch

#endif // ETCH_IMPORT_IMPORT_H
