//===- et-opt.cpp - etch's mlir-opt: runs any etch pass on MLIR text ------===//
//
// Registers only what etch uses (the Edge dialect, func, quant, and etch's
// passes plus the generic canonicalize/cse), not every upstream dialect.
//
//===----------------------------------------------------------------------===//
#include "edge/EdgeDialect.h"
#include "etch/Target/Target.h"
#include "etch/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<etch::edge::EdgeDialect, mlir::func::FuncDialect,
                  mlir::quant::QuantizationDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  etch::registerEtchPasses();
  etch::registerAllTargets();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "etch optimizer driver\n", registry));
}
