// et-compile --method NAME=MODEL: each model compiles on its own (its own
// partition, plan and blobs) and becomes one method of the program.
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace etch::tools {

/// NAME=MODEL arguments as (name, path) pairs; false with \p error when one
/// is not NAME=MODEL, a name is not an identifier or comes twice.
bool parseMethodSpecs(const std::vector<std::string> &specs,
                      std::vector<std::pair<std::string, std::string>> &methods,
                      std::string &error);

/// Moves the one function of \p method (a compiled model) into \p program
/// as method \p name. Module attributes must agree; `etch.metadata`
/// entries are merged (an entry both set differently is an error). False
/// with \p error.
bool addMethod(mlir::ModuleOp program, mlir::ModuleOp method,
               llvm::StringRef name, std::string &error);

} // namespace etch::tools
