#include "etch/Pipeline/Pipeline.h"

#include "etch/Target/Target.h"
#include "etch/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace etch {
namespace {

/// Runs quantization::quantizeModule with the quantizer of the first target
/// that has one (the default CPU targets' when \p targets name none).
class QuantizePass
    : public mlir::PassWrapper<QuantizePass, mlir::OperationPass<mlir::ModuleOp>> {
public:
  QuantizePass(quantization::QuantizeOptions options,
               std::vector<std::string> targets)
      : options(std::move(options)), targets(std::move(targets)) {}
  llvm::StringRef getArgument() const override { return "etch-quantize"; }
  void runOnOperation() override {
    if (!options.quantizer) {
      std::vector<std::string> candidates = targets;
      for (const std::string &name : defaultTargets())
        candidates.push_back(name);
      for (const std::string &name : candidates)
        if (const Target *target = lookupTarget(name))
          if ((options.quantizer = target->quantizer()))
            break;
    }
    if (failed(quantization::quantizeModule(getOperation(), options)))
      signalPassFailure();
  }

private:
  quantization::QuantizeOptions options;
  std::vector<std::string> targets;
};

std::unique_ptr<mlir::Pass>
createQuantizePass(const quantization::QuantizeOptions &options,
                   const std::vector<std::string> &targets) {
  return std::make_unique<QuantizePass>(options, targets);
}

} // namespace

llvm::ArrayRef<PhaseInfo> allPhases() {
  static const PhaseInfo phases[] = {
      {Phase::Edge, "edge", "imported, verified Edge dialect"},
      {Phase::EdgeOpt, "edge-opt",
       "Edge passes: batch norm folded into convolutions, canonicalized, CSE"},
      {Phase::Quantize, "quantize",
       "int8 quantize/dequantize inserted after calibration, or weights "
       "quantized (--quantize)"},
      {Phase::Partition, "partition",
       "targets claim subgraphs as edge.delegate regions; values stay NHWC "
       "between channels-last delegates"},
      {Phase::Codegen, "codegen",
       "each delegate compiled to its target's blob"},
      {Phase::Plan, "plan", "every non-constant tensor placed in the arena"},
      {Phase::Program, "program", "the serialized program file (.etp)"},
  };
  return phases;
}

std::optional<Phase> parsePhase(llvm::StringRef name) {
  for (const PhaseInfo &info : allPhases())
    if (info.name == name)
      return info.phase;
  return std::nullopt;
}

void addPhasePasses(mlir::PassManager &pm, Phase phase,
                    const PipelineOptions &options) {
  switch (phase) {
  case Phase::Edge:
    return;
  case Phase::EdgeOpt:
    if (options.lastPositionOutput)
      pm.addNestedPass<mlir::func::FuncOp>(createLastPositionOutput());
    pm.addNestedPass<mlir::func::FuncOp>(createFoldBatchNorm());
    pm.addNestedPass<mlir::func::FuncOp>(createFoldHardsigmoid());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    return;
  case Phase::Quantize:
    if (options.quantize) {
      pm.addPass(createQuantizePass(*options.quantize, options.targets));
      pm.addPass(mlir::createCanonicalizerPass());
    }
    if (options.weightOnly) {
      QuantizeWeightsOptions weights;
      weights.bits = options.weightOnly->bits;
      weights.groupSize = options.weightOnly->groupSize;
      pm.addNestedPass<mlir::func::FuncOp>(createQuantizeWeights(weights));
    }
    return;
  case Phase::Partition: {
    PartitionOptions partition;
    partition.targets = options.targets;
    pm.addNestedPass<mlir::func::FuncOp>(createPartition(partition));
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addNestedPass<mlir::func::FuncOp>(createAssignLayout());
    return;
  }
  case Phase::Codegen:
    // What no target claimed runs on the portable kernels: quantized
    // patterns there become their integer ops, dequantized weights packed
    // weight-only ops, and those reading one input one op.
    pm.addNestedPass<mlir::func::FuncOp>(createFoldQuantizedOps());
    pm.addNestedPass<mlir::func::FuncOp>(createFoldWeightOnlyOps());
    pm.addNestedPass<mlir::func::FuncOp>(createFuseWeightOnlyLinears());
    pm.addPass(createCodegen(options.targetSettings));
    return;
  case Phase::Plan:
    pm.addNestedPass<mlir::func::FuncOp>(createMemoryPlan());
    return;
  case Phase::Program:
    return; // serialization is not a pass: the driver writes the file
  }
}

bool parsePhaseHook(llvm::StringRef text, bool after, PhaseHook &hook,
                    std::string &error) {
  auto [name, pipeline] = text.split(':');
  std::optional<Phase> phase = parsePhase(name);
  if (!phase || pipeline.empty()) {
    error = "expected <phase>:<pass pipeline>, got '" + text.str() +
            "'; phases are:";
    for (const PhaseInfo &info : allPhases())
      error += " " + info.name.str();
    return false;
  }
  hook = {*phase, after, pipeline.str()};
  return true;
}

mlir::LogicalResult buildPipeline(mlir::PassManager &pm, Phase last,
                                  const PipelineOptions &options,
                                  llvm::raw_ostream &errors) {
  auto addHooks = [&](Phase phase, bool after) -> mlir::LogicalResult {
    for (const PhaseHook &hook : options.hooks)
      if (hook.phase == phase && hook.after == after &&
          failed(mlir::parsePassPipeline(hook.pipeline, pm, errors)))
        return mlir::failure();
    return mlir::success();
  };
  for (const PhaseInfo &info : allPhases()) {
    if (failed(addHooks(info.phase, /*after=*/false)))
      return mlir::failure();
    addPhasePasses(pm, info.phase, options);
    if (failed(addHooks(info.phase, /*after=*/true)))
      return mlir::failure();
    if (info.phase == last)
      break;
  }
  return mlir::success();
}

} // namespace etch
