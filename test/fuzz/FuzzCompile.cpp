#include "FuzzCompile.h"
#include "FuzzSupport.h"

#include "edge/EdgeDialect.h"
#include "etch/Pipeline/Pipeline.h"
#include "etch/Serialize/ProgramWriter.h"
#include "etch/Target/Target.h"
#include "etch/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace etch::fuzz {

void compileForFuzzing(
    llvm::function_ref<OwningOpRef<ModuleOp>(MLIRContext *)> import) {
  static bool registered = [] {
    registerAllTargets();
    registerEtchPasses();
    return true;
  }();
  (void)registered;
  // A fresh context per input: nothing one input interns leaks into the next.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<edge::EdgeDialect, func::FuncDialect>();
  ScopedDiagnosticHandler diagnostics(&context, [](Diagnostic &diag) {
    if (verbose())
      llvm::errs() << diag.getLocation() << ": " << diag.str() << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = import(&context);
  if (!module)
    return;
  PipelineOptions options;
  options.targets.clear();
  for (llvm::StringRef target : registeredTargetNames())
    options.targets.push_back(target.str());
  options.targets.push_back("portable");
  PassManager pm(&context);
  std::string pipelineError;
  llvm::raw_string_ostream errors(pipelineError);
  if (failed(buildPipeline(pm, Phase::Program, options, errors)) ||
      failed(pm.run(*module)))
    return;
  std::string program;
  llvm::raw_string_ostream os(program);
  if (succeeded(writeProgram(*module, os)) && verbose())
    llvm::errs() << "compiled to a " << program.size() << "-byte program\n";
}

} // namespace etch::fuzz
