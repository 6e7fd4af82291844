//===- ProgramWriter.h - Planned Edge IR -> .etp program file ---*- C++ -*-===//
#ifndef ETCH_SERIALIZE_PROGRAMWRITER_H
#define ETCH_SERIALIZE_PROGRAMWRITER_H

#include "runtime/core/ScalarType.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace etch {

/// A file the program carries by name (Program::namedData at run time).
struct NamedData {
  std::string name, bytes;
};

/// A tensor of a bundled test case: contiguous row-major bytes.
struct BundledTensor {
  runtime::ScalarType type = runtime::ScalarType::Float32;
  std::vector<int64_t> shape;
  std::string bytes;
  std::string origin; // the file it came from, for messages
};

/// A test case stored in the program (et-compile --bundle): \p inputs of
/// method \p method and the outputs it must give.
struct BundledCase {
  std::string name, method;
  std::vector<BundledTensor> inputs, expected;
};

/// Writes every function of \p module as a method of one program file
/// (runtime/schema/program.fbs). Functions must be memory planned
/// (etch-memory-plan); an op without a runtime kernel (edge.custom, ...) is
/// an error at its location. \p namedData go into the program as they are.
/// \p debugHandles: each instruction's Edge ops and the producer's nodes
/// and source lines (InstructionDebug; et-compile --strip-debug drops them).
/// \p bundled: test cases, each checked against its method's signature
/// (count, dtype, rank, static sizes) with an error naming the file.
mlir::LogicalResult writeProgram(mlir::ModuleOp module, llvm::raw_ostream &os,
                                 const std::vector<NamedData> &namedData = {},
                                 bool debugHandles = true,
                                 const std::vector<BundledCase> &bundled = {});

} // namespace etch

#endif // ETCH_SERIALIZE_PROGRAMWRITER_H
