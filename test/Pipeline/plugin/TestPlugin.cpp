//===- TestPlugin.cpp - A pass plugin for the pipeline tests --------------===//
//
// Registers `test-tag-op-count`, which records on each function how many
// non-constant ops it holds: enough to see where in the pipeline it ran.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

namespace {
struct TagOpCount
    : public mlir::PassWrapper<TagOpCount,
                               mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TagOpCount)
  llvm::StringRef getArgument() const final { return "test-tag-op-count"; }
  llvm::StringRef getDescription() const final {
    return "Record the number of non-constant ops as test.op_count";
  }
  void runOnOperation() override {
    int64_t count = 0;
    for (mlir::Operation &op : getOperation().getBody().front())
      if (op.getName().getStringRef() != "edge.constant" &&
          !op.hasTrait<mlir::OpTrait::IsTerminator>())
        ++count;
    mlir::Builder builder(&getContext());
    getOperation()->setAttr("test.op_count", builder.getI64IntegerAttr(count));
  }
};
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "EtchTestPlugin", LLVM_VERSION_STRING,
          [] { mlir::PassRegistration<TagOpCount>(); }};
}
