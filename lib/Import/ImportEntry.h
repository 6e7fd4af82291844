//===- ImportEntry.h - What every importer's entry point does ----*- C++
//-*-===//
//
// Both importers read a file into their own form (a Pt2Contents, an
// OnnxGraph) and then do the same: load the dialects, make the module, say
// why the file did not read, run the importer and verify what it built.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_IMPORTENTRY_H
#define ETCH_LIB_IMPORT_IMPORTENTRY_H

#include "edge/EdgeDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <optional>
#include <string>

namespace etch {

/// The module \p Importer builds from \p contents (what a reader made of
/// \p path); null after an error at \p path: the reader's \p error when it
/// made nothing, else the importer's or the verifier's own.
template <typename Importer, typename Contents>
mlir::OwningOpRef<mlir::ModuleOp>
importWith(llvm::StringRef path, std::optional<Contents> contents,
           const std::string &error, mlir::MLIRContext *context) {
  context->loadDialect<edge::EdgeDialect, mlir::func::FuncDialect>();
  mlir::Location fileLoc = mlir::FileLineColLoc::get(context, path, 0, 0);
  if (!contents) {
    mlir::emitError(fileLoc) << error;
    return nullptr;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(fileLoc);
  Importer importer(*module, *contents, path);
  if (mlir::failed(importer.run()) || mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

} // namespace etch

#endif // ETCH_LIB_IMPORT_IMPORTENTRY_H
