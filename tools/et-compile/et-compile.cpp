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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
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
static cl::opt<std::string>
    compileTo("compile-to",
              cl::desc("Stop after this phase and print MLIR: edge, edge-opt "
                       "(default: the last phase)"),
              cl::value_desc("phase"), cl::init(""));

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
  for (const etch::PhaseInfo &info : etch::allPhases()) {
    etch::addPhasePasses(pm, info.phase);
    if (info.phase == last)
      break;
  }
  if (failed(pm.run(*module)))
    return 1;

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "et-compile: " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
