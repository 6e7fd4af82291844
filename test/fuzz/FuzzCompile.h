// The compiler half of the importer fuzz targets: import, then every phase
// of et-compile up to the serialized program (in memory), with the CPU
// targets, so passes and code generators see what the importers accept.
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace etch::fuzz {

void compileForFuzzing(
    llvm::function_ref<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext *)>
        import);

} // namespace etch::fuzz
