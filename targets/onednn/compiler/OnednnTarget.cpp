//===- OnednnTarget.cpp - The oneDNN target's compiler hooks --------------===//
#include "OnednnCompiler.h"
#include "OnednnRules.h"

#include "etch/Target/Target.h"

namespace etch::onednn {
namespace {

/// Whether \p delegate's method also calls another CPU target's delegates:
/// their thread pool and oneDNN's OpenMP team would spin against each other
/// (the runtime then keeps oneDNN on the calling thread).
bool sharesCoresWithAnotherTarget(edge::DelegateOp delegate) {
  mlir::Operation *method = delegate->getParentOp();
  bool shares = false;
  method->walk([&](edge::DelegateOp other) {
    const Target *target = lookupTarget(other.getTarget());
    shares |= other.getTarget() != delegate.getTarget() && target &&
              target->device() == TargetDevice::Cpu;
  });
  return shares;
}

class OnednnTarget : public Target {
public:
  llvm::StringRef name() const override { return "onednn"; }
  TargetDevice device() const override { return TargetDevice::Cpu; }
  int defaultPriority() const override { return 50; }
  /// Opt in with --targets (docs/targets.md says when it pays).
  bool onByDefault() const override { return false; }
  std::string whyUnsupported(mlir::Operation *op) const override {
    return onednn::whyUnsupported(op);
  }
  unsigned delegateLayout(mlir::Operation *op) const override {
    return onednn::delegateLayout(op);
  }
  bool keepsChannelsLast(edge::DelegateOp delegate) const override {
    return onednn::keepsChannelsLast(delegate);
  }
  mlir::FailureOr<CompiledDelegate>
  compile(edge::DelegateOp delegate,
          const TargetOptionValues &) const override {
    mlir::FailureOr<CompiledDelegate> compiled = compileDelegate(delegate);
    if (succeeded(compiled) && sharesCoresWithAnotherTarget(delegate))
      compiled->specs.push_back({"mixed_targets", "1"});
    return compiled;
  }
  std::string describeBlob(llvm::ArrayRef<uint8_t> blob) const override {
    return onednn::describeBlob(blob);
  }
  const quantization::Quantizer *quantizer() const override {
    return &onednn::quantizer();
  }
};
} // namespace
} // namespace etch::onednn

/// Called from the generated target registration (targets/CMakeLists.txt).
void etchRegisterTarget_onednn() {
  etch::registerTarget(std::make_unique<etch::onednn::OnednnTarget>());
}
