//===- et-compile.cpp - Compile a torch.export / ONNX model ---------------===//
//
//   et-compile model.pt2 --compile-to=edge -o model.mlir
//
// Reads the model (format detected from content), runs the pipeline up to
// the requested phase and writes the result.
//
//===----------------------------------------------------------------------===//
#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Import/Import.h"
#include "etch/Partition/Partition.h"
#include "etch/Pipeline/Pipeline.h"
#include "etch/Serialize/ExternalWeights.h"
#include "etch/Serialize/ProgramWriter.h"
#include "etch/Target/Target.h"

#include "MemoryPlanSvg.h"
#include "MethodMerge.h"
#include "NpyFolders.h"
#include "TokenizerFiles.h"

#include "etch/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

/// etch's own options: --help lists only these (LLVM's and MLIR's stay
/// available and show with --help-hidden).
static cl::OptionCategory etchOptions("et-compile options");

static cl::opt<std::string> inputPath(cl::Positional,
                                      cl::desc("<model.pt2 | model.onnx>"),
                                      cl::init(""), cl::cat(etchOptions));
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"), cl::cat(etchOptions));
static cl::opt<std::string> compileTo(
    "compile-to",
    cl::desc("Stop after this phase: edge, edge-opt, plan print MLIR; "
             "program (the default) writes the .etp file"),
    cl::value_desc("phase"), cl::init(""), cl::cat(etchOptions));
static cl::opt<bool> printMemoryPlan(
    "print-memory-plan",
    cl::desc("Print each method's arena size next to its lower bound (the "
             "most bytes alive at any instruction)"),
    cl::init(false), cl::cat(etchOptions));

static cl::opt<std::string> memoryPlanSvg(
    "memory-plan-svg",
    cl::desc("Draw each method's arena as SVG: every value a box over its "
             "lifetime (instructions) and its bytes"),
    cl::value_desc("file.svg"), cl::cat(etchOptions));

static cl::list<std::string> targets(
    "targets",
    cl::desc("Targets in priority order; what none claims runs on portable "
             "kernels (default: every CPU target built, then portable; see "
             "--list-targets)"),
    cl::CommaSeparated, cl::value_desc("t1,t2,..."), cl::cat(etchOptions));
static cl::list<std::string> targetOptions(
    "target-option",
    cl::desc("A setting of a target's code generator, e.g. "
             "vulkan:storage=fp16 (repeatable; docs/targets.md lists them)"),
    cl::value_desc("target:name=value"), cl::cat(etchOptions));
static cl::opt<bool> stripDebug(
    "strip-debug",
    cl::desc("Leave out the debug handles (each instruction's Edge ops, "
             "producer nodes and source lines; et-run --dump-intermediates "
             "names values with them)"),
    cl::cat(etchOptions));
static cl::opt<std::string> bundleFolder(
    "bundle",
    cl::desc("Store test cases in the program: one folder per case holding "
             "input0.npy... and expected0.npy... (et-run --verify runs "
             "them)"),
    cl::value_desc("folder"), cl::cat(etchOptions));
static cl::list<std::string> methodSpecs(
    "method",
    cl::desc("Compile MODEL as method NAME of the program (repeatable, "
             "instead of the input file): equal weights are stored once and "
             "methods share state buffers of the same name"),
    cl::value_desc("NAME=MODEL"), cl::cat(etchOptions));
static cl::opt<std::string> externalWeightsPath(
    "external-weights",
    cl::desc("Keep the weights in this file (an etch weights file; what it "
             "already holds is kept and reused) instead of in the program; "
             "et-run finds it beside the program or takes --weights"),
    cl::value_desc("file.etw"), cl::cat(etchOptions));
static cl::opt<bool> printPartitionSummary(
    "print-partition-summary",
    cl::desc(
        "Print ops per target, delegates and every fallback with its reason"),
    cl::init(false), cl::cat(etchOptions));
static cl::opt<std::string>
    partitionGraph("partition-graph",
                   cl::desc("Write a Graphviz picture of the partition"),
                   cl::value_desc("file.dot"), cl::init(""), cl::cat(etchOptions));
static cl::list<std::string> passPlugins(
    "load-pass-plugin",
    cl::desc("Load a pass plugin (a shared library exporting "
             "mlirGetPassPluginInfo) whose passes --before-phase/--after-phase "
             "can use"),
    cl::value_desc("lib.so"), cl::cat(etchOptions));
static cl::list<std::string>
    beforePhase("before-phase", cl::desc("Run a pass pipeline before a phase"),
                cl::value_desc("phase:pipeline"), cl::cat(etchOptions));
static cl::list<std::string>
    afterPhase("after-phase", cl::desc("Run a pass pipeline after a phase"),
               cl::value_desc("phase:pipeline"), cl::cat(etchOptions));
static cl::opt<bool>
    listTargets("list-targets",
                cl::desc("Print the default targets, in priority order"),
                cl::init(false), cl::cat(etchOptions));
static cl::opt<bool>
    dumpDelegates("dump-delegates",
                  cl::desc("Print every compiled delegate blob readably"),
                  cl::init(false), cl::cat(etchOptions));

static cl::opt<std::string> quantize(
    "quantize",
    cl::desc("Post-training quantization: 'int8' (the first target's scheme, "
             "calibrated), or weight-only 'int8-weight' (per channel) / "
             "'int4-weight' (per group) for linear and embedding weights"),
    cl::value_desc("int8|int8-weight|int4-weight"), cl::cat(etchOptions));
static cl::opt<int64_t> quantizeGroupSize(
    "quantize-group-size",
    cl::desc("Columns per scale for --quantize=int4-weight (a multiple of "
             "32; default 32)"),
    cl::init(32), cl::cat(etchOptions));
static cl::opt<std::string> calibrationData(
    "calibration-data",
    cl::desc("Folder of .npy calibration inputs (one file per sample, or one "
             "subfolder of inputs per sample)"),
    cl::value_desc("dir"), cl::cat(etchOptions));
static cl::opt<std::string> calibrationObserver(
    "calibration-observer",
    cl::desc("How ranges are chosen: mse (default), percentile or minmax"),
    cl::init("mse"), cl::cat(etchOptions));
static cl::opt<unsigned> calibrationSamples(
    "calibration-samples",
    cl::desc("Random inputs to calibrate on without --calibration-data"),
    cl::init(16), cl::cat(etchOptions));

static cl::opt<bool> lastLogitsOnly(
    "last-logits-only",
    cl::desc("Compute the first output (an LLM's logits [1, S, vocab]) for "
             "the last position only: what generation samples from, without "
             "the vocabulary projection of the rest of a prompt chunk"),
    cl::init(false), cl::cat(etchOptions));

static cl::list<std::string> metadataEntries(
    "metadata",
    cl::desc("A KEY=VALUE fact the program carries for the code that runs "
             "it (et-llm reads max_context, eos_token_id, bos_token_id); "
             "it overrides the same key from the export's "
             "etch_metadata.json"),
    cl::value_desc("key=value"), cl::cat(etchOptions));

static cl::opt<std::string> tokenizerPath(
    "tokenizer",
    cl::desc("A tokenizer the program carries (tokenizer.json, SentencePiece "
             ".model or tiktoken file): et-llm then takes text. The chat "
             "template of a tokenizer_config.json or chat_template.jinja "
             "beside it comes along"),
    cl::value_desc("file"), cl::cat(etchOptions));

static cl::opt<std::string> chatTemplatePath(
    "chat-template",
    cl::desc("The chat template to carry: a tokenizer_config.json (its "
             "chat_template) or a Jinja file; needs --tokenizer"),
    cl::value_desc("file"), cl::cat(etchOptions));

/// Adds --metadata entries to the module's `etch.metadata`; false after a
/// message.
static bool addMetadata(ModuleOp module) {
  if (metadataEntries.empty())
    return true;
  NamedAttrList entries;
  if (auto existing = module->getAttrOfType<DictionaryAttr>("etch.metadata"))
    entries.assign(existing.getValue());
  Builder builder(module.getContext());
  for (const std::string &entry : metadataEntries) {
    auto [key, value] = llvm::StringRef(entry).split('=');
    if (key.empty() || key.size() == entry.size()) {
      llvm::errs() << "et-compile: --metadata '" << entry
                   << "' is not KEY=VALUE\n";
      return false;
    }
    entries.set(key, builder.getStringAttr(value));
  }
  module->setAttr("etch.metadata", entries.getDictionary(module.getContext()));
  return true;
}

/// Reads the quantization options into \p options; false after a message.
static bool quantizeOptions(etch::PipelineOptions &options) {
  if (quantize.empty()) {
    if (!calibrationData.empty())
      llvm::errs() << "et-compile: warning: --calibration-data without "
                      "--quantize does nothing\n";
    return true;
  }
  if (quantize == "int8-weight" || quantize == "int4-weight") {
    if (!calibrationData.empty())
      llvm::errs() << "et-compile: warning: weight-only quantization needs "
                      "no --calibration-data\n";
    if (quantizeGroupSize <= 0 || quantizeGroupSize % 32 != 0) {
      llvm::errs() << "et-compile: --quantize-group-size must be a positive "
                      "multiple of 32, got "
                   << quantizeGroupSize << "\n";
      return false;
    }
    options.weightOnly = {quantize == "int8-weight" ? 8 : 4,
                          quantizeGroupSize};
    return true;
  }
  if (quantize != "int8") {
    llvm::errs() << "et-compile: unknown --quantize scheme '" << quantize
                 << "' (supported: int8, int8-weight, int4-weight)\n";
    return false;
  }
  etch::quantization::QuantizeOptions quantizeOptions;
  std::optional<etch::quantization::Observer> observer =
      etch::quantization::parseObserver(calibrationObserver);
  if (!observer) {
    llvm::errs() << "et-compile: unknown --calibration-observer '"
                 << calibrationObserver << "' (mse, percentile, minmax)\n";
    return false;
  }
  quantizeOptions.observer = *observer;
  quantizeOptions.randomSamples = calibrationSamples;
  quantizeOptions.showProgress = llvm::errs().is_displayed();
  std::string error;
  if (!calibrationData.empty() &&
      !etch::tools::readCalibrationData(calibrationData,
                                        quantizeOptions.samples, error)) {
    llvm::errs() << "et-compile: " << error << "\n";
    return false;
  }
  options.quantize = std::move(quantizeOptions);
  return true;
}

/// "forward: arena 1204224 bytes, lower bound 1204224 bytes (ratio 1.000)".
static void printPlan(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    auto size = func->getAttrOfType<IntegerAttr>("etch.arena_size");
    auto bound = func->getAttrOfType<IntegerAttr>("etch.arena_lower_bound");
    if (!size || !bound)
      continue;
    double ratio =
        bound.getInt() ? double(size.getInt()) / bound.getInt() : 1.0;
    llvm::outs() << func.getSymName() << ": arena " << size.getInt()
                 << " bytes, lower bound " << bound.getInt() << " bytes (ratio "
                 << llvm::format("%.3f", ratio) << ")\n";
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  cl::HideUnrelatedOptions(etchOptions);
  cl::ParseCommandLineOptions(
      argc, argv,
      "etch model compiler: a torch.export program (.pt2), an ONNX model or "
      "Edge MLIR in, an etch program (.etp) out\n");

  etch::registerAllTargets();
  if (listTargets) {
    for (const std::string &name : etch::defaultTargets())
      llvm::outs() << name << "\n";
    return 0;
  }
  // (method name, model): one unnamed model, or the --method list.
  std::vector<std::pair<std::string, std::string>> models;
  if (!methodSpecs.empty()) {
    std::string error;
    if (!inputPath.empty()) {
      llvm::errs() << "et-compile: give the input file or --method "
                      "NAME=MODEL, not both\n";
      return 2;
    }
    if (!etch::tools::parseMethodSpecs(methodSpecs, models, error)) {
      llvm::errs() << "et-compile: " << error << "\n";
      return 2;
    }
  } else if (inputPath.empty()) {
    llvm::errs() << "et-compile: no input file (see --help)\n";
    return 2;
  } else {
    models.emplace_back("", inputPath);
  }
  // The files the program carries: read (and checked) before compiling.
  std::vector<etch::NamedData> carried;
  if (!chatTemplatePath.empty() && tokenizerPath.empty()) {
    llvm::errs() << "et-compile: --chat-template needs --tokenizer\n";
    return 2;
  }
  if (!tokenizerPath.empty()) {
    std::string error;
    if (!etch::tools::readTokenizerFiles(tokenizerPath, chatTemplatePath,
                                         carried, error)) {
      llvm::errs() << "et-compile: " << error << "\n";
      return 1;
    }
  }

  std::vector<etch::BundledCase> bundledCases;
  if (!bundleFolder.empty()) {
    std::string error;
    if (!etch::tools::readBundleFolder(bundleFolder, bundledCases, error)) {
      llvm::errs() << "et-compile: --bundle: " << error << "\n";
      return 1;
    }
  }
  // Checked before compiling: an existing file that is not a weights file
  // is never overwritten.
  std::unique_ptr<etch::ExternalWeights> externalWeights;
  if (!externalWeightsPath.empty()) {
    std::string error;
    externalWeights = etch::ExternalWeights::open(externalWeightsPath, error);
    if (!externalWeights) {
      llvm::errs() << "et-compile: --external-weights: " << error << "\n";
      return 1;
    }
  }

  etch::registerEtchPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  for (const std::string &path : passPlugins) {
    llvm::Expected<mlir::PassPlugin> plugin = mlir::PassPlugin::load(path);
    if (!plugin) {
      llvm::errs() << "et-compile: cannot load pass plugin '" << path
                   << "': " << llvm::toString(plugin.takeError()) << "\n";
      return 1;
    }
    plugin->registerPassRegistryCallbacks();
  }
  etch::PipelineOptions pipelineOptions;
  for (auto [list, after] :
       {std::make_pair(&beforePhase, false), std::make_pair(&afterPhase, true)})
    for (const std::string &text : *list) {
      etch::PhaseHook hook;
      std::string error;
      if (!etch::parsePhaseHook(text, after, hook, error)) {
        llvm::errs() << "et-compile: " << error << "\n";
        return 2;
      }
      pipelineOptions.hooks.push_back(hook);
    }
  pipelineOptions.targets =
      targets.empty() ? etch::defaultTargets()
                      : std::vector<std::string>(targets.begin(), targets.end());
  if (std::string error; !etch::parseTargetOptions(
          std::vector<std::string>(targetOptions.begin(), targetOptions.end()),
          pipelineOptions.targetSettings, error)) {
    llvm::errs() << "et-compile: " << error << "\n";
    return 2;
  }
  pipelineOptions.lastPositionOutput = lastLogitsOnly;
  if (!quantizeOptions(pipelineOptions))
    return 1;
  etch::Phase last = etch::allPhases().back().phase;
  if (!compileTo.empty()) {
    std::optional<etch::Phase> phase = etch::parsePhase(compileTo);
    if (!phase) {
      llvm::errs() << "et-compile: unknown phase '" << compileTo
                   << "'; phases are:";
      for (const etch::PhaseInfo &info : etch::allPhases())
        llvm::errs() << " " << info.name;
      llvm::errs() << "\n";
      return 2;
    }
    last = *phase;
  }

  MLIRContext context;
  context.loadDialect<etch::edge::EdgeDialect, func::FuncDialect>();
  // Errors name the node and op themselves; the generic form of the op
  // that MLIR would append is compiler detail (et-opt keeps it).
  context.printOpOnDiagnostic(false);
  // Diagnostics print "file:line: error: ..." with the source line when the
  // file is readable (the user's model code for torch.export locations).
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  // Counts errors and passes them on to the printer: a failure that printed
  // nothing still gets a line.
  int errorCount = 0;
  ScopedDiagnosticHandler counter(&context, [&](Diagnostic &diag) {
    errorCount += diag.getSeverity() == DiagnosticSeverity::Error;
    return failure();
  });

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  bool planned = false, partitioned = false, compiledDelegates = false;
  for (const etch::PhaseInfo &info : etch::allPhases()) {
    planned |= info.phase == etch::Phase::Plan;
    partitioned |= info.phase == etch::Phase::Partition;
    compiledDelegates |= info.phase == etch::Phase::Codegen;
    if (info.phase == last)
      break;
  }
  std::string pipelineError;
  llvm::raw_string_ostream pipelineErrors(pipelineError);
  if (failed(etch::buildPipeline(pm, last, pipelineOptions, pipelineErrors))) {
    llvm::errs() << "et-compile: invalid pass pipeline: " << pipelineError
                 << "\n";
    return 2;
  }
  if ((printMemoryPlan || !memoryPlanSvg.empty()) && !planned) {
    llvm::errs() << "et-compile: --print-memory-plan and --memory-plan-svg "
                    "need the plan phase\n";
    return 2;
  }
  OwningOpRef<ModuleOp> module;
  for (const auto &[name, path] : models) {
    OwningOpRef<ModuleOp> compiled = etch::importModel(path, &context);
    if (!compiled) {
      if (!errorCount)
        llvm::errs() << path
                     << ": error: the import failed without a "
                        "diagnostic (an etch bug: please report)\n";
      return 1;
    }
    if (!addMetadata(*compiled))
      return 2;
    if (failed(pm.run(*compiled)))
      return 1;
    if (name.empty()) {
      module = std::move(compiled);
      continue;
    }
    if (!module)
      module = ModuleOp::create(UnknownLoc::get(&context));
    std::string error;
    if (!etch::tools::addMethod(*module, *compiled, name, error)) {
      llvm::errs() << "et-compile: " << path << ": " << error << "\n";
      return 1;
    }
  }
  if (printMemoryPlan)
    printPlan(*module);
  if (!memoryPlanSvg.empty()) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> svg =
        openOutputFile(memoryPlanSvg, &error);
    if (!svg) {
      llvm::errs() << "et-compile: --memory-plan-svg: " << error << "\n";
      return 1;
    }
    etch::tools::writeMemoryPlanSvg(*module, svg->os());
    svg->keep();
  }
  if ((printPartitionSummary || !partitionGraph.empty()) && !partitioned) {
    llvm::errs() << "et-compile: partition reports need the partition phase\n";
    return 2;
  }
  if (printPartitionSummary)
    etch::printPartitionSummary(*module, pipelineOptions.targets, llvm::outs());
  if (!partitionGraph.empty()) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> dot =
        openOutputFile(partitionGraph, &error);
    if (!dot) {
      llvm::errs() << "et-compile: " << error << "\n";
      return 1;
    }
    etch::writePartitionGraph(*module, dot->os());
    dot->keep();
  }
  if (dumpDelegates && compiledDelegates)
    module->walk([&](etch::edge::DelegateOp delegate) {
      const etch::Target *target = etch::lookupTarget(delegate.getTarget());
      SmallVector<char> storage;
      std::optional<ArrayRef<char>> bytes =
          delegate.getBlob()
              ? etch::edge::getConstantBytes(*delegate.getBlob(), storage)
              : std::nullopt;
      if (target && bytes)
        llvm::outs() << target->describeBlob(ArrayRef<uint8_t>(
            reinterpret_cast<const uint8_t *>(bytes->data()), bytes->size()));
    });

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "et-compile: " << error << "\n";
    return 1;
  }
  if (last == etch::Phase::Program) {
    // The cases are for the model's method (forward, else the first).
    auto funcs = module->getOps<mlir::func::FuncOp>();
    auto forward = module->lookupSymbol<mlir::func::FuncOp>("forward");
    std::string method = forward         ? "forward"
                         : funcs.empty() ? ""
                                         : (*funcs.begin()).getSymName().str();
    for (etch::BundledCase &bundled : bundledCases)
      bundled.method = method;
    etch::ProgramWriteOptions write;
    write.namedData = std::move(carried);
    write.debugHandles = !stripDebug;
    write.bundled = std::move(bundledCases);
    write.externalWeights = externalWeights.get();
    if (failed(etch::writeProgram(*module, output->os(), write)))
      return 1;
    if (externalWeights && !externalWeights->write(error)) {
      llvm::errs() << "et-compile: " << error << "\n";
      return 1;
    }
  } else {
    if (externalWeights) {
      llvm::errs() << "et-compile: --external-weights keeps a program's "
                      "weights apart; it does not apply with --compile-to\n";
      return 2;
    }
    if (!bundledCases.empty()) {
      llvm::errs() << "et-compile: --bundle stores cases in a program; it "
                      "does not apply with --compile-to\n";
      return 2;
    }
    module->print(output->os());
    output->os() << "\n";
  }
  output->keep();
  return 0;
}
