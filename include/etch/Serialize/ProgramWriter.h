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

class ExternalWeights;

/// What goes into a program besides its methods.
struct ProgramWriteOptions {
  /// Files carried by name, as they are.
  std::vector<NamedData> namedData;
  /// Each instruction's Edge ops and the producer's nodes and source lines
  /// (InstructionDebug; et-compile --strip-debug drops them).
  bool debugHandles = true;
  /// Test cases, each checked against its method's signature (count, dtype,
  /// rank, static sizes) with an error naming the file.
  std::vector<BundledCase> bundled;
  /// Set: the weights (constant tensors, delegates' constant sections,
  /// initial state) go there, and the program names that file.
  ExternalWeights *externalWeights = nullptr;
};

/// Writes every function of \p module as a method of one program file
/// (runtime/schema/program.fbs). Functions must be memory planned
/// (etch-memory-plan); an op without a runtime kernel (edge.custom, ...) is
/// an error at its location. Equal weights are stored once, also across
/// methods: a delegate's constant section is a segment of its own.
mlir::LogicalResult writeProgram(mlir::ModuleOp module, llvm::raw_ostream &os,
                                 const ProgramWriteOptions &options = {});

} // namespace etch

#endif // ETCH_SERIALIZE_PROGRAMWRITER_H
