//===- FormatDetection.cpp - Which importer reads a file ------------------===//
#include "etch/Import/Import.h"

#include "edge/EdgeDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"

#include <fstream>

using namespace mlir;

namespace etch {

/// Why \p path is none of the formats etch reads, as the user would put it.
static std::string unknownFormatReason(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status) ||
      !llvm::sys::fs::exists(status))
    return "cannot open file";
  if (!llvm::sys::fs::is_regular_file(status))
    return "not a regular file";
  if (status.getSize() == 0)
    return "empty file";
  std::ifstream file(path.str(), std::ios::binary);
  char magic[8] = {};
  file.read(magic, sizeof(magic));
  if (std::string(magic, sizeof(magic)) == std::string("ETCHPRG\0", 8))
    return "this is a compiled etch program (.etp); run it with et-run";
  return "not a torch.export program (.pt2 zip), an ONNX model or Edge MLIR";
}

ModelFormat detectModelFormat(llvm::StringRef path) {
  std::ifstream file(path.str(), std::ios::binary);
  unsigned char header[4] = {0, 0, 0, 0};
  if (!file.read(reinterpret_cast<char *>(header), sizeof(header)))
    return ModelFormat::Unknown;
  // Zip local file header: torch.export.save writes zip archives.
  if (header[0] == 'P' && header[1] == 'K' && header[2] == 3 && header[3] == 4)
    return ModelFormat::TorchExport;
  // ONNX ModelProto serializers write ir_version (field 1, varint: tag 0x08)
  // first; some writers start with opset_import (field 8) or producer_name
  // (field 2) instead.
  if (header[0] == 0x08 || header[0] == 0x12 || header[0] == 0x42 ||
      header[0] == 0x3a)
    return ModelFormat::Onnx;
  // MLIR text starts with a comment, `module`, `func.func` or `#loc`.
  std::string start(reinterpret_cast<char *>(header), sizeof(header));
  if (start.rfind("//", 0) == 0 || start == "modu" || start == "func" ||
      start.rfind("#", 0) == 0 || start.rfind("{-#", 0) == 0)
    return ModelFormat::EdgeMlir;
  return ModelFormat::Unknown;
}

OwningOpRef<ModuleOp> importModel(llvm::StringRef path, MLIRContext *context) {
  switch (detectModelFormat(path)) {
  case ModelFormat::TorchExport:
    return importTorchExport(path, context);
  case ModelFormat::Onnx:
    return importOnnx(path, context);
  case ModelFormat::EdgeMlir: {
    context->loadDialect<edge::EdgeDialect, func::FuncDialect>();
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, context);
    if (module && failed(verify(*module)))
      return nullptr;
    return module;
  }
  case ModelFormat::Unknown:
    break;
  }
  emitError(FileLineColLoc::get(context, path, 0, 0)) << unknownFormatReason(path);
  return nullptr;
}

} // namespace etch
