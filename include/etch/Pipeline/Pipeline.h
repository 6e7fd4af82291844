//===- Pipeline.h - The compile pipeline's named phases ---------*- C++ -*-===//
#ifndef ETCH_PIPELINE_PIPELINE_H
#define ETCH_PIPELINE_PIPELINE_H

#include "etch/Quantization/Quantize.h"
#include "etch/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace etch {

/// Phases in pipeline order; `et-compile --compile-to=<name>` stops after one.
enum class Phase {
  Edge,      // imported and verified Edge dialect
  EdgeOpt,   // Edge passes: fold batch norm, canonicalize, CSE
  Quantize,  // post-training quantization (--quantize)
  Partition, // targets claim subgraphs (edge.delegate)
  Codegen,   // each delegate compiled to its target's blob
  Plan,      // memory planned (etch-memory-plan)
  Program,   // serialized program file (.etp)
};

struct PhaseInfo {
  Phase phase;
  llvm::StringRef name;
  llvm::StringRef description;
};

/// Every phase, in order.
llvm::ArrayRef<PhaseInfo> allPhases();
std::optional<Phase> parsePhase(llvm::StringRef name);

/// A textual pass pipeline (e.g. "func.func(my-pass)") a user inserts
/// before or after a phase; plugin passes are registered by then.
struct PhaseHook {
  Phase phase;
  bool after;
  std::string pipeline;
};

struct PipelineOptions {
  /// Targets in priority order; "portable" (the fallback) claims nothing.
  std::vector<std::string> targets = {"portable"};
  /// Settings of the targets' code generators, parsed once from
  /// "<target>:<name>=<value>" texts (parseTargetOptions).
  TargetSettings targetSettings;
  std::vector<PhaseHook> hooks;
  /// Set: the Quantize phase quantizes with these options (its quantizer
  /// that of the first target in `targets` having one, when not given).
  std::optional<quantization::QuantizeOptions> quantize;
  /// Set: the Quantize phase quantizes linear and embedding weights only
  /// (etch-quantize-weights), with these bits (8 or 4) and int4 group size.
  struct WeightOnly {
    int64_t bits = 8, groupSize = 32;
  };
  std::optional<WeightOnly> weightOnly;
  /// Set: EdgeOpt computes result 0 (an LLM's logits) for the last
  /// sequence position only (etch-last-position-output).
  bool lastPositionOutput = false;
};

/// Parses "<phase>:<pipeline>" into a hook; false (and \p error) when the
/// phase is unknown or the text has no ':'.
bool parsePhaseHook(llvm::StringRef text, bool after, PhaseHook &hook,
                    std::string &error);

/// Fills \p pm with every phase up to and including \p last, with the
/// hooks in place. Fails (message in \p errors) on a pipeline that does not
/// parse.
mlir::LogicalResult buildPipeline(mlir::PassManager &pm, Phase last,
                                  const PipelineOptions &options,
                                  llvm::raw_ostream &errors);

/// Adds the passes that take a module from the end of the phase before
/// \p phase to the end of \p phase (nothing for Edge: the importer ends it).
void addPhasePasses(mlir::PassManager &pm, Phase phase,
                    const PipelineOptions &options);

} // namespace etch

#endif // ETCH_PIPELINE_PIPELINE_H
