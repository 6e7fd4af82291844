//===- ProgramWriter.h - Planned Edge IR -> .etp program file ---*- C++ -*-===//
#ifndef ETCH_SERIALIZE_PROGRAMWRITER_H
#define ETCH_SERIALIZE_PROGRAMWRITER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace etch {

/// A file the program carries by name (Program::namedData at run time).
struct NamedData {
  std::string name, bytes;
};

/// Writes every function of \p module as a method of one program file
/// (runtime/schema/program.fbs). Functions must be memory planned
/// (etch-memory-plan); an op without a runtime kernel (edge.custom, ...) is
/// an error at its location. \p namedData go into the program as they are.
/// \p debugHandles: each instruction's Edge ops and the producer's nodes
/// and source lines (InstructionDebug; et-compile --strip-debug drops them).
mlir::LogicalResult writeProgram(mlir::ModuleOp module, llvm::raw_ostream &os,
                                 const std::vector<NamedData> &namedData = {},
                                 bool debugHandles = true);

} // namespace etch

#endif // ETCH_SERIALIZE_PROGRAMWRITER_H
