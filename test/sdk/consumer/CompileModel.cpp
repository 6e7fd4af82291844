// The compiler from an installed SDK: imports MODEL (.pt2 or .onnx), runs
// etch's pipeline for the given targets and writes the program, as
// `et-compile MODEL --targets=T1,T2 -o OUT.etp` does.
//   compile-model MODEL OUT.etp TARGET...
#include "edge/EdgeDialect.h"
#include "etch/Import/Import.h"
#include "etch/Pipeline/Pipeline.h"
#include "etch/Serialize/ProgramWriter.h"
#include "etch/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 4) {
    llvm::errs() << "usage: compile-model MODEL OUT.etp TARGET...\n";
    return 2;
  }
  etch::registerAllTargets();
  mlir::MLIRContext context;
  context.loadDialect<etch::edge::EdgeDialect, mlir::func::FuncDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      etch::importModel(argv[1], &context);
  if (!module)
    return 1;

  etch::PipelineOptions options;
  options.targets.assign(argv + 3, argv + argc);
  mlir::PassManager pm(&context);
  if (mlir::failed(etch::buildPipeline(pm, etch::Phase::Program, options,
                                       llvm::errs())) ||
      mlir::failed(pm.run(*module)))
    return 1;

  std::error_code error;
  llvm::raw_fd_ostream out(argv[2], error, llvm::sys::fs::OF_None);
  if (error) {
    llvm::errs() << argv[2] << ": " << error.message() << "\n";
    return 1;
  }
  return mlir::failed(etch::writeProgram(*module, out)) ? 1 : 0;
}
