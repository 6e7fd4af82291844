//===- et-compile.cpp - Compile a torch.export / ONNX model ---------------===//
//
//   et-compile model.pt2 --compile-to=edge -o model.mlir
//
// Reads the model (format detected from content), runs the pipeline up to
// the requested phase and writes the result.
//
//===----------------------------------------------------------------------===//
#include "edge/EdgeDialect.h"
#include "etch/Import/Import.h"
#include "etch/Pipeline/Pipeline.h"
#include "etch/Serialize/ProgramWriter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputPath(cl::Positional,
                                      cl::desc("<model.pt2 | model.onnx>"),
                                      cl::Required);
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"));
static cl::opt<std::string> compileTo(
    "compile-to",
    cl::desc("Stop after this phase: edge, edge-opt, plan print MLIR; "
             "program (the default) writes the .etp file"),
    cl::value_desc("phase"), cl::init(""));
static cl::opt<bool> printMemoryPlan(
    "print-memory-plan",
    cl::desc("Print each method's arena size next to its lower bound (the "
             "most bytes alive at any instruction)"),
    cl::init(false));

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
  cl::ParseCommandLineOptions(argc, argv, "etch model compiler\n");

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
  // Diagnostics print "file:line: error: ..." with the source line when the
  // file is readable (the user's model code for torch.export locations).
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = etch::importModel(inputPath, &context);
  if (!module)
    return 1;

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  bool planned = false;
  for (const etch::PhaseInfo &info : etch::allPhases()) {
    etch::addPhasePasses(pm, info.phase);
    planned |= info.phase == etch::Phase::Plan;
    if (info.phase == last)
      break;
  }
  if (printMemoryPlan && !planned) {
    llvm::errs() << "et-compile: --print-memory-plan needs the plan phase\n";
    return 2;
  }
  if (failed(pm.run(*module)))
    return 1;
  if (printMemoryPlan)
    printPlan(*module);

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "et-compile: " << error << "\n";
    return 1;
  }
  if (last == etch::Phase::Program) {
    if (failed(etch::writeProgram(*module, output->os())))
      return 1;
  } else {
    module->print(output->os());
    output->os() << "\n";
  }
  output->keep();
  return 0;
}
