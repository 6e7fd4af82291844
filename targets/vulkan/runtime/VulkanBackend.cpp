//===- VulkanBackend.cpp - Runs Vulkan delegate blobs ---------------------===//
//
// init builds the delegate's device objects (VulkanBuilder.cpp); execute
// copies the inputs in, resubmits the recorded command buffer, waits on its
// fence and copies the outputs out.
//
//===----------------------------------------------------------------------===//
#include "VulkanHandle.h"

#include "runtime/backend/Backend.h"
#include "runtime/core/Half.h"
#include "runtime/kernels/optimized/ThreadPool.h"

#include <memory>

namespace etch::vulkan {
namespace {

/// Host -> arena storage: float16 stored tensors are converted, the rest
/// copied.
void storeInput(const HostRegion &region, const void *from, uint8_t *host) {
  uint8_t *to = host + region.hostOffset;
  if (!region.half) {
    std::memcpy(to, from, region.viewBytes);
    return;
  }
  const float *values = static_cast<const float *>(from);
  for (uint64_t i = 0; i < region.viewBytes / 4; ++i) {
    uint16_t half = runtime::floatToHalf(values[i]);
    std::memcpy(to + 2 * i, &half, 2);
  }
}

void loadOutput(const HostRegion &region, const uint8_t *host, void *to) {
  const uint8_t *from = host + region.hostOffset;
  if (!region.half) {
    std::memcpy(to, from, region.viewBytes);
    return;
  }
  float *values = static_cast<float *>(to);
  for (uint64_t i = 0; i < region.viewBytes / 4; ++i) {
    uint16_t half;
    std::memcpy(&half, from + 2 * i, 2);
    values[i] = runtime::halfToFloat(half);
  }
}

Error validationClean(const Handle &handle, uint32_t before) {
  if (handle.context->validationMessages.load() == before)
    return Error::Ok;
  ET_LOG(Error, "vulkan: the validation layer reported problems (above)");
  return Error::DelegateExecuteFailed;
}

/// Adds this execute's dispatch times (ETCH_VULKAN_PROFILE) to the totals.
void collectTimestamps(Handle &handle) {
  std::vector<uint64_t> &stamps = handle.stamps;
  size_t count = stamps.size();
  if (vkGetQueryPoolResults(handle.context->device, handle.queries, 0, count,
                            count * sizeof(uint64_t), stamps.data(),
                            sizeof(uint64_t),
                            VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
    return;
  double period = handle.context->properties.limits.timestampPeriod;
  for (size_t i = 0; i + 1 < count; ++i)
    handle.dispatchNanos[i] +=
        static_cast<uint64_t>((stamps[i + 1] - stamps[i]) * period);
}

void printProfile(const Handle &handle) {
  if (!handle.queries || handle.executes == 0)
    return;
  ET_LOG(Info, "vulkan profile on %s, mean of %llu executes:",
         handle.context->properties.deviceName,
         static_cast<unsigned long long>(handle.executes));
  for (size_t i = 0; i < handle.dispatchNanos.size(); ++i)
    ET_LOG(Info, "  dispatch %zu %s: %.1f us", i,
           EnumNameShader(handle.shaders[i]),
           handle.dispatchNanos[i] / 1e3 / handle.executes);
}

class VulkanBackend final : public runtime::Backend {
public:
  Result<void *> init(const runtime::DelegateBlob &bytes,
                      Span<const runtime::CompileSpec>,
                      Span<TensorView *> inputs, Span<TensorView *> outputs,
                      const runtime::LoadOptions &options) override {
    runtime::FramedBlob framed;
    if (std::string problem = runtime::openBlob<VerifyBlobBuffer>(
            bytes, kBlobMagic, kBlobVersion, framed);
        !problem.empty())
      return fail(problem.c_str());
    const Blob *blob = GetBlob(framed.flatbuffer);
    std::unique_ptr<Handle> handle(new (std::nothrow) Handle());
    if (!handle)
      return Error::MemoryAllocationFailed;
    if (Error error = Context::acquire(handle->context); error != Error::Ok)
      return error;
    uint32_t before = handle->context->validationMessages.load();
    if (Error error =
            buildHandle(*blob, framed, *handle, inputs, outputs, options);
        error != Error::Ok)
      return error;
    if (Error error = validationClean(*handle, before); error != Error::Ok)
      return error;
    return static_cast<void *>(handle.release());
  }

  Error execute(void *opaque, Span<TensorView *> inputs,
                Span<TensorView *> outputs) override {
    Handle &handle = *static_cast<Handle *>(opaque);
    if (inputs.size() != handle.inputs.size() ||
        outputs.size() != handle.outputs.size())
      return Error::InvalidArgument;
    uint32_t before = handle.context->validationMessages.load();
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i]->nbytes() != handle.inputs[i].viewBytes)
        return Error::InvalidShape;
      storeInput(handle.inputs[i], inputs[i]->data(), handle.host);
    }
    // The kernels' idle workers need not spin while the device runs (a CPU
    // driver such as lavapipe runs threads of its own).
    runtime::optimized::ThreadPool::shared().rest();
    if (Error error = submitAndWait(handle); error != Error::Ok)
      return error;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i]->nbytes() != handle.outputs[i].viewBytes)
        return Error::InvalidShape;
      loadOutput(handle.outputs[i], handle.host, outputs[i]->data());
    }
    if (handle.queries)
      collectTimestamps(handle);
    ++handle.executes;
    return validationClean(handle, before);
  }

  /// Another input of the method changed shape: this delegate's shapes are
  /// static, so its inputs must not.
  Error resize(void *opaque, Span<TensorView *> inputs,
               Span<TensorView *>) override {
    const Handle &handle = *static_cast<Handle *>(opaque);
    for (size_t i = 0; i < inputs.size() && i < handle.inputs.size(); ++i)
      if (inputs[i]->nbytes() != handle.inputs[i].viewBytes) {
        ET_LOG(Error,
               "vulkan: delegate input %zu changed from %llu to %zu bytes; "
               "the delegate has static shapes",
               i, static_cast<unsigned long long>(handle.inputs[i].viewBytes),
               inputs[i]->nbytes());
        return Error::InvalidShape;
      }
    return Error::Ok;
  }

  /// Each dispatch's device time (timestamps), named by its shader.
  size_t profile(void *opaque, Span<runtime::DelegateEvent> out) override {
    const Handle &handle = *static_cast<Handle *>(opaque);
    for (size_t i = 0; i < handle.dispatchNanos.size() && i < out.size(); ++i)
      out[i] = {EnumNameShader(handle.shaders[i]), handle.dispatchNanos[i]};
    return handle.dispatchNanos.size();
  }

  void destroy(void *opaque) override {
    auto *handle = static_cast<Handle *>(opaque);
    if (envSet("ETCH_VULKAN_PROFILE"))
      printProfile(*handle);
    delete handle;
  }
};

} // namespace

Error submitAndWait(Handle &handle) {
  if (handle.wedged) {
    ET_LOG(Error, "vulkan: an earlier submit of this delegate never "
                  "finished; it cannot run again");
    return Error::DelegateExecuteFailed;
  }
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &handle.commands;
  VkResult result;
  {
    std::lock_guard<std::mutex> lock(handle.context->queueMutex);
    result = vkQueueSubmit(handle.context->queue, 1, &submit, handle.fence);
  }
  if (result != VK_SUCCESS) {
    ET_LOG(Error, "vulkan: vkQueueSubmit failed (VkResult %d)",
           static_cast<int>(result));
    return Error::DelegateExecuteFailed;
  }
  result = vkWaitForFences(handle.context->device, 1, &handle.fence, VK_TRUE,
                           kFenceTimeoutSeconds * 1000000000ull);
  if (result == VK_SUCCESS) {
    vkResetFences(handle.context->device, 1, &handle.fence);
    return Error::Ok;
  }
  handle.wedged = true;
  if (result == VK_TIMEOUT)
    ET_LOG(Error,
           "vulkan: the device did not finish the delegate's work in "
           "%llu s",
           static_cast<unsigned long long>(kFenceTimeoutSeconds));
  else
    ET_LOG(Error, "vulkan: waiting for the device failed (VkResult %d)",
           static_cast<int>(result));
  return Error::DelegateExecuteFailed;
}

} // namespace etch::vulkan

ETCH_REGISTER_BACKEND(vulkan, etch::vulkan::VulkanBackend)
