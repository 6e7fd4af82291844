//===- VulkanTarget.cpp - The Vulkan target's compiler hooks --------------===//
#include "VulkanCompiler.h"
#include "VulkanRules.h"

#include "etch/Target/Target.h"

namespace etch::vulkan {
namespace {

constexpr llvm::StringLiteral kStorageOption = "storage";

class VulkanTarget : public Target {
public:
  llvm::StringRef name() const override { return "vulkan"; }
  TargetDevice device() const override { return TargetDevice::Gpu; }
  /// Ahead of the CPU targets when named with them: what the GPU takes, it
  /// takes first.
  int defaultPriority() const override { return 10; }
  /// A GPU is opt-in (--targets=vulkan,...): not every machine has one.
  bool onByDefault() const override { return false; }
  std::string whyUnsupported(mlir::Operation *op) const override {
    return vulkan::whyUnsupported(op);
  }
  std::vector<TargetOption> options() const override {
    return {{kStorageOption,
             "how float tensors are stored on the device: fp32, or fp16 "
             "(half the memory and bandwidth, computed in float32; needs "
             "16-bit storage buffers)",
             {"fp32", "fp16"}}};
  }
  mlir::FailureOr<CompiledDelegate>
  compile(edge::DelegateOp delegate,
          const TargetOptionValues &options) const override {
    auto storage = options.find(kStorageOption.str());
    bool half = storage != options.end() && storage->second == "fp16";
    return compileDelegate(delegate,
                           half ? FloatStorage::F16 : FloatStorage::F32);
  }
  std::string describeBlob(llvm::ArrayRef<uint8_t> blob) const override {
    return vulkan::describeBlob(blob);
  }
};

} // namespace
} // namespace etch::vulkan

/// Called from the generated target registration (targets/CMakeLists.txt).
void etchRegisterTarget_vulkan() {
  etch::registerTarget(std::make_unique<etch::vulkan::VulkanTarget>());
}
