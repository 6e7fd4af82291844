//===- XnnpackTarget.cpp - The XNNPACK target's compiler hooks ------------===//
#include "XnnpackCompiler.h"
#include "XnnpackRules.h"

#include "etch/Target/Target.h"

namespace etch::xnnpack {
namespace {
class XnnpackTarget : public Target {
public:
  llvm::StringRef name() const override { return "xnnpack"; }
  TargetDevice device() const override { return TargetDevice::Cpu; }
  int defaultPriority() const override { return 100; }
  std::string whyUnsupported(mlir::Operation *op) const override {
    return xnnpack::whyUnsupported(op);
  }
  unsigned delegateLayout(mlir::Operation *op) const override {
    return static_cast<unsigned>(xnnpack::delegateLayout(op));
  }
  bool keepsChannelsLast(edge::DelegateOp delegate) const override {
    return xnnpack::keepsChannelsLast(delegate);
  }
  mlir::FailureOr<CompiledDelegate>
  compile(edge::DelegateOp delegate,
          const TargetOptionValues &) const override {
    return compileDelegate(delegate);
  }
  std::string describeBlob(llvm::ArrayRef<uint8_t> blob) const override {
    return xnnpack::describeBlob(blob);
  }
  std::string describeLoadChoices(llvm::ArrayRef<uint8_t> blob) const override {
    return xnnpack::describeLoadChoices(blob);
  }
  const quantization::Quantizer *quantizer() const override {
    return &xnnpack::quantizer();
  }
};
} // namespace
} // namespace etch::xnnpack

/// Called from the generated target registration (targets/CMakeLists.txt).
void etchRegisterTarget_xnnpack() {
  etch::registerTarget(std::make_unique<etch::xnnpack::XnnpackTarget>());
}
