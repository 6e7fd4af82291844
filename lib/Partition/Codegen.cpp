//===- Codegen.cpp - etch-codegen: delegate bodies -> target blobs --------===//
#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Target/Target.h"
#include "etch/Transforms/Passes.h"

namespace etch {
#define GEN_PASS_DEF_CODEGEN
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;

namespace {
struct CodegenPass : etch::impl::CodegenBase<CodegenPass> {
  using CodegenBase::CodegenBase;
  explicit CodegenPass(TargetSettings settings)
      : parsed_(std::move(settings)) {}

  void runOnOperation() override {
    Builder builder(&getContext());
    TargetSettings settings;
    if (parsed_) {
      settings = *parsed_;
    } else if (std::string problem; !parseTargetOptions(
                   std::vector<std::string>(targetOptions.begin(),
                                            targetOptions.end()),
                   settings, problem)) {
      getOperation().emitError(problem);
      return signalPassFailure();
    }
    int index = 0;
    WalkResult result = getOperation().walk([&](edge::DelegateOp delegate) {
      if (delegate.getBlob())
        return WalkResult::advance();
      const Target *target = lookupTarget(delegate.getTarget());
      if (!target) {
        delegate.emitOpError("target '")
            << delegate.getTarget() << "' is not registered";
        return WalkResult::interrupt();
      }
      FailureOr<CompiledDelegate> compiled =
          target->compile(delegate, settings[delegate.getTarget().str()]);
      if (failed(compiled))
        return WalkResult::interrupt();
      auto type = RankedTensorType::get(
          {static_cast<int64_t>(compiled->blob.size())}, builder.getI8Type());
      std::string bytes(compiled->blob.begin(), compiled->blob.end());
      delegate.setBlobAttr(edge::makeConstantFromOwnedBytes(
          type, std::move(bytes),
          (delegate.getTarget() + "_blob_" + Twine(index++)).str()));
      SmallVector<NamedAttribute> specs;
      for (const auto &[key, value] : compiled->specs)
        specs.push_back(
            builder.getNamedAttr(key, builder.getStringAttr(value)));
      delegate.setSpecsAttr(builder.getDictionaryAttr(specs));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  std::optional<TargetSettings> parsed_; // set: the pipeline parsed them
};
} // namespace

std::unique_ptr<Pass> etch::createCodegen(TargetSettings settings) {
  return std::make_unique<CodegenPass>(std::move(settings));
}
