//===- VulkanBuilder.cpp - A Vulkan delegate's device objects -------------===//
//
// Verifies the blob against the device (DispatchChecks), gives the delegate
// its arena in device memory (mapped when the device allows, else beside a
// host-visible staging buffer), uploads the constants, creates every
// pipeline and descriptor set, and records one command buffer: input
// copies, the dispatches with a barrier after each, output copies.
//
//===----------------------------------------------------------------------===//
#include "DispatchChecks.h"
#include "VulkanHandle.h"

#include "runtime/backend/Backend.h"
#include "runtime/core/Half.h"

#include <algorithm>

namespace etch::vulkan {
namespace {

/// Builds a Handle from a verified blob.
class Builder {
public:
  Builder(const Blob &blob, const runtime::FramedBlob &framed, Handle &handle,
          const runtime::LoadOptions &options)
      : blob(blob), framed(framed), handle(handle), options(options),
        device(handle.context->device), storage(blob.float_storage()) {}

  Error build(Span<TensorView *> inputs, Span<TensorView *> outputs) {
    const VkPhysicalDeviceLimits &device = handle.context->properties.limits;
    limits = DeviceLimits{
        blob.arena_size(),
        std::max<uint64_t>(device.minStorageBufferOffsetAlignment, 4),
        device.maxStorageBufferRange,
        device.maxPushConstantsSize,
        {device.maxComputeWorkGroupCount[0], device.maxComputeWorkGroupCount[1],
         device.maxComputeWorkGroupCount[2]},
        {device.maxComputeWorkGroupSize[0], device.maxComputeWorkGroupSize[1],
         device.maxComputeWorkGroupSize[2]},
        device.maxComputeWorkGroupInvocations,
        device.maxComputeSharedMemorySize};
    if (Error error = verify(inputs, outputs); error != Error::Ok)
      return error;
    if (Error error = allocate(); error != Error::Ok)
      return error;
    if (Error error = upload(); error != Error::Ok)
      return error;
    if (Error error = createPipelines(); error != Error::Ok)
      return error;
    return record();
  }

private:
  //===--- verification -------------------------------------------------===//

  Error verifyBindings(
      const flatbuffers::Vector<flatbuffers::Offset<Binding>> *bindings,
      Span<TensorView *> views, const char *what) {
    // FlatBuffers leaves an empty vector out: a delegate of constants alone
    // has no inputs.
    if (bindings ? bindings->size() != views.size() : !views.empty()) {
      ET_LOG(Error, "vulkan: blob %s differ from the delegate call's", what);
      return Error::DelegateInvalidBlob;
    }
    for (uint32_t i = 0; i < views.size(); ++i) {
      const Binding &binding = *bindings->Get(i);
      if (std::string problem = checkRegion(binding.region(), limits);
          !problem.empty())
        return fail(problem.c_str());
      const TensorView &view = *views[i];
      bool isBool = binding.datatype() == DataType::Bool;
      auto type =
          isBool ? runtime::ScalarType::Bool : runtime::ScalarType::Float32;
      // The region holds the elements as the arena stores them, rounded up
      // to whole 32-bit words.
      uint64_t stored =
          isBool ? view.nbytes() : view.nbytes() / 4 * elementBytes(storage);
      if (binding.datatype() > DataType::MAX || view.scalarType() != type ||
          (stored + 3) / 4 * 4 != binding.region()->size()) {
        ET_LOG(Error,
               "vulkan: delegate %s %u is %zu bytes of scalar type %d; the "
               "blob expects %llu bytes of %s",
               what, i, view.nbytes(), static_cast<int>(view.scalarType()),
               static_cast<unsigned long long>(binding.region()->size()),
               isBool ? "bool" : EnumNameFloatStorage(storage));
        return Error::InvalidShape;
      }
      bytes.push_back(view.nbytes());
    }
    return Error::Ok;
  }

  Error verify(Span<TensorView *> inputs, Span<TensorView *> outputs) {
    if (storage > FloatStorage::MAX)
      return fail("unknown float storage");
    if (storage == FloatStorage::F16 && !handle.context->storage16) {
      ET_LOG(Error,
             "vulkan: the blob stores float16 but %s has no 16-bit storage "
             "buffers (storageBuffer16BitAccess); compile with "
             "--target-option=vulkan:storage=fp32",
             handle.context->properties.deviceName);
      return Error::DelegateInitFailed;
    }
    if (blob.arena_size() == 0 || blob.arena_size() > options.memoryLimit)
      return fail("arena is empty or larger than the memory limit");
    if (Error error = verifyBindings(blob.inputs(), inputs, "inputs");
        error != Error::Ok)
      return error;
    if (Error error = verifyBindings(blob.outputs(), outputs, "outputs");
        error != Error::Ok)
      return error;
    if (blob.uploads())
      for (const Upload *upload : *blob.uploads()) {
        if (std::string problem = checkRegion(upload->region(), limits);
            !problem.empty())
          return fail(problem.c_str());
        if (upload->data_offset() > framed.constantsSize ||
            upload->region()->size() >
                framed.constantsSize - upload->data_offset())
          return fail("an upload reads past the constant section");
      }
    if (!blob.dispatches() || blob.dispatches()->size() == 0)
      return fail("blob has no dispatches");
    for (uint32_t i = 0; i < blob.dispatches()->size(); ++i)
      if (std::string problem =
              checkDispatch(*blob.dispatches()->Get(i), limits, storage);
          !problem.empty()) {
        ET_LOG(Error, "vulkan: dispatch %u: %s", i, problem.c_str());
        return Error::DelegateInvalidBlob;
      }
    return Error::Ok;
  }

  //===--- memory -------------------------------------------------------===//

  Error createBuffer(Buffer &buffer, uint64_t size, VkBufferUsageFlags usage,
                     VkMemoryPropertyFlags wanted,
                     VkMemoryPropertyFlags fallback) {
    buffer.size = size;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (vkCreateBuffer(device, &info, nullptr, &buffer.buffer) != VK_SUCCESS)
      return failInit("cannot create a buffer");
    VkMemoryRequirements needs;
    vkGetBufferMemoryRequirements(device, buffer.buffer, &needs);
    int type = handle.context->memoryType(needs.memoryTypeBits, wanted);
    if (type < 0)
      type = handle.context->memoryType(needs.memoryTypeBits, fallback);
    if (type < 0)
      return failInit("no memory type for a buffer");
    VkMemoryAllocateInfo allocation{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocation.allocationSize = needs.size;
    allocation.memoryTypeIndex = static_cast<uint32_t>(type);
    if (vkAllocateMemory(device, &allocation, nullptr, &buffer.memory) !=
            VK_SUCCESS ||
        vkBindBufferMemory(device, buffer.buffer, buffer.memory, 0) !=
            VK_SUCCESS) {
      ET_LOG(Error, "vulkan: cannot allocate %llu bytes of device memory",
             static_cast<unsigned long long>(size));
      return Error::MemoryAllocationFailed;
    }
    VkMemoryPropertyFlags flags =
        handle.context->memory.memoryTypes[type].propertyFlags;
    if ((flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
        (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
      void *mapped = nullptr;
      if (vkMapMemory(device, buffer.memory, 0, VK_WHOLE_SIZE, 0, &mapped) !=
          VK_SUCCESS)
        return failInit("cannot map a buffer");
      buffer.mapped = static_cast<uint8_t *>(mapped);
    }
    return Error::Ok;
  }

  /// The arena, device-local; mapped directly when it is also host-visible
  /// and coherent (integrated GPUs, lavapipe) unless ETCH_VULKAN_STAGING
  /// asks for the staging path discrete GPUs take.
  Error allocate() {
    constexpr VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    constexpr VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    bool forceStaging = envSet("ETCH_VULKAN_STAGING");
    constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                         VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                         VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (Error error = createBuffer(handle.arena, blob.arena_size(), usage,
                                   forceStaging ? local : local | host, local);
        error != Error::Ok)
      return error;
    if (forceStaging && handle.arena.mapped) {
      vkUnmapMemory(device, handle.arena.memory);
      handle.arena.mapped = nullptr;
    }
    // The staging buffer holds the inputs then the outputs, packed.
    uint64_t hostBytes = 0;
    size_t next = 0; // into bytes: the inputs', then the outputs'
    auto place =
        [&](const flatbuffers::Vector<flatbuffers::Offset<Binding>> *bindings,
            std::vector<HostRegion> &regions) {
          if (!bindings) // no inputs (verifyBindings checked the call)
            return;
          for (const Binding *binding : *bindings) {
            uint64_t offset = binding->region()->offset();
            bool half = binding->datatype() == DataType::F32 &&
                        storage == FloatStorage::F16;
            regions.push_back({offset, handle.arena.mapped ? offset : hostBytes,
                               binding->region()->size(), bytes[next++], half});
            hostBytes += binding->region()->size();
          }
        };
    place(blob.inputs(), handle.inputs);
    place(blob.outputs(), handle.outputs);
    if (handle.arena.mapped) {
      handle.host = handle.arena.mapped;
      return Error::Ok;
    }
    if (blob.arena_size() + hostBytes > options.memoryLimit)
      return fail("arena and staging buffer exceed the memory limit");
    if (hostBytes == 0)
      return Error::Ok;
    if (Error error = createBuffer(handle.staging, hostBytes,
                                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                   host, host);
        error != Error::Ok)
      return error;
    if (!handle.staging.mapped)
      return failInit("the staging buffer is not host-visible");
    handle.host = handle.staging.mapped;
    return Error::Ok;
  }

  Error createCommandObjects() {
    VkCommandPoolCreateInfo poolInfo{
        VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.queueFamilyIndex = handle.context->queueFamily;
    // The staging path records the constant upload first, then resets.
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    VkCommandBufferAllocateInfo bufferInfo{
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    bufferInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    bufferInfo.commandBufferCount = 1;
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (vkCreateCommandPool(device, &poolInfo, nullptr, &handle.commandPool) !=
            VK_SUCCESS ||
        (bufferInfo.commandPool = handle.commandPool,
         vkAllocateCommandBuffers(device, &bufferInfo, &handle.commands) !=
             VK_SUCCESS) ||
        vkCreateFence(device, &fenceInfo, nullptr, &handle.fence) != VK_SUCCESS)
      return failInit("cannot create command buffer or fence");
    return Error::Ok;
  }

  /// Constants into the arena: written through the mapping, or copied from
  /// a temporary staging buffer by a one-time command buffer.
  Error upload() {
    if (Error error = createCommandObjects(); error != Error::Ok)
      return error;
    if (!blob.uploads() || blob.uploads()->size() == 0)
      return Error::Ok;
    if (handle.arena.mapped) {
      for (const Upload *upload : *blob.uploads())
        std::memcpy(handle.arena.mapped + upload->region()->offset(),
                    framed.constants + upload->data_offset(),
                    upload->region()->size());
      return Error::Ok;
    }
    uint64_t bytes = 0;
    for (const Upload *upload : *blob.uploads())
      bytes += upload->region()->size();
    Buffer temporary;
    Error error =
        createBuffer(temporary, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (error == Error::Ok && !temporary.mapped)
      error = failInit("the upload buffer is not host-visible");
    if (error == Error::Ok) {
      VkCommandBufferBeginInfo begin{
          VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      vkBeginCommandBuffer(handle.commands, &begin);
      uint64_t at = 0;
      for (const Upload *upload : *blob.uploads()) {
        std::memcpy(temporary.mapped + at,
                    framed.constants + upload->data_offset(),
                    upload->region()->size());
        VkBufferCopy copy{at, upload->region()->offset(),
                          upload->region()->size()};
        vkCmdCopyBuffer(handle.commands, temporary.buffer, handle.arena.buffer,
                        1, &copy);
        at += upload->region()->size();
      }
      vkEndCommandBuffer(handle.commands);
      error = submitAndWait(handle);
      vkResetCommandBuffer(handle.commands, 0);
    }
    temporary.destroy(device);
    return error;
  }

  //===--- pipelines ----------------------------------------------------===//

  Error createLayouts(Shader shader) {
    size_t index = static_cast<size_t>(shader);
    if (handle.pipelineLayouts[index])
      return Error::Ok;
    const ShaderInterface &interface = shaderInterface(shader);
    VkDescriptorSetLayoutBinding bindings[8];
    for (uint32_t i = 0; i < interface.bindings; ++i)
      bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                     VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo setInfo{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = interface.bindings;
    setInfo.pBindings = bindings;
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0,
                             interface.pushWords * 4};
    VkPipelineLayoutCreateInfo layoutInfo{
        VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &handle.setLayouts[index];
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &push;
    if (vkCreateDescriptorSetLayout(device, &setInfo, nullptr,
                                    &handle.setLayouts[index]) != VK_SUCCESS ||
        vkCreatePipelineLayout(device, &layoutInfo, nullptr,
                               &handle.pipelineLayouts[index]) != VK_SUCCESS)
      return failInit("cannot create a pipeline layout");
    return Error::Ok;
  }

  /// One pipeline per (shader, workgroup size), shared by the dispatches
  /// that use it.
  Error createPipelines() {
    const auto &dispatches = *blob.dispatches();
    for (uint32_t i = 0; i < dispatches.size(); ++i) {
      const Dispatch &dispatch = *dispatches.Get(i);
      handle.shaders.push_back(dispatch.shader());
      if (Error error = createLayouts(dispatch.shader()); error != Error::Ok)
        return error;
      bool same = false;
      for (uint32_t j = 0; j < i && !same; ++j) {
        const Dispatch &other = *dispatches.Get(j);
        same = other.shader() == dispatch.shader() &&
               other.local_size()->Get(0) == dispatch.local_size()->Get(0) &&
               other.local_size()->Get(1) == dispatch.local_size()->Get(1);
        if (same)
          handle.pipelines.push_back(handle.pipelines[j]);
      }
      if (same)
        continue;
      uint32_t sizes[2] = {dispatch.local_size()->Get(0),
                           dispatch.local_size()->Get(1)};
      VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {1, 4, 4}};
      VkSpecializationInfo specialization{2, entries, sizeof(sizes), sizes};
      VkComputePipelineCreateInfo info{
          VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
      info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
      info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
      info.stage.module =
          handle.context->modules[static_cast<size_t>(storage)]
                                 [static_cast<size_t>(dispatch.shader())];
      info.stage.pName = "main";
      info.stage.pSpecializationInfo = &specialization;
      info.layout =
          handle.pipelineLayouts[static_cast<size_t>(dispatch.shader())];
      VkPipeline pipeline = VK_NULL_HANDLE;
      if (vkCreateComputePipelines(device, handle.context->pipelineCache, 1,
                                   &info, nullptr, &pipeline) != VK_SUCCESS)
        return failInit("cannot create a compute pipeline");
      handle.ownedPipelines.push_back(pipeline);
      handle.pipelines.push_back(pipeline);
    }
    return Error::Ok;
  }

  Error createDescriptorSets(std::vector<VkDescriptorSet> &sets) {
    const auto &dispatches = *blob.dispatches();
    uint32_t descriptors = 0;
    for (const Dispatch *dispatch : dispatches)
      descriptors += dispatch->bindings()->size();
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptors};
    VkDescriptorPoolCreateInfo poolInfo{
        VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    poolInfo.maxSets = dispatches.size();
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &size;
    if (vkCreateDescriptorPool(device, &poolInfo, nullptr,
                               &handle.descriptorPool) != VK_SUCCESS)
      return failInit("cannot create the descriptor pool");
    sets.resize(dispatches.size());
    std::vector<VkDescriptorBufferInfo> buffers(descriptors);
    std::vector<VkWriteDescriptorSet> writes;
    uint32_t next = 0;
    for (uint32_t i = 0; i < dispatches.size(); ++i) {
      const Dispatch &dispatch = *dispatches.Get(i);
      VkDescriptorSetAllocateInfo info{
          VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      info.descriptorPool = handle.descriptorPool;
      info.descriptorSetCount = 1;
      info.pSetLayouts =
          &handle.setLayouts[static_cast<size_t>(dispatch.shader())];
      if (vkAllocateDescriptorSets(device, &info, &sets[i]) != VK_SUCCESS)
        return failInit("cannot allocate a descriptor set");
      for (uint32_t b = 0; b < dispatch.bindings()->size(); ++b) {
        const Region *region = dispatch.bindings()->Get(b);
        buffers[next] = {handle.arena.buffer, region->offset(), region->size()};
        VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        write.dstSet = sets[i];
        write.dstBinding = b;
        write.descriptorCount = 1;
        write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        write.pBufferInfo = &buffers[next++];
        writes.push_back(write);
      }
    }
    vkUpdateDescriptorSets(device, writes.size(), writes.data(), 0, nullptr);
    return Error::Ok;
  }

  //===--- the command buffer -------------------------------------------===//

  void barrier(VkPipelineStageFlags from, VkAccessFlags written,
               VkPipelineStageFlags to, VkAccessFlags read) {
    VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    memory.srcAccessMask = written;
    memory.dstAccessMask = read;
    vkCmdPipelineBarrier(handle.commands, from, to, 0, 1, &memory, 0, nullptr,
                         0, nullptr);
  }

  void copyRegions(const std::vector<HostRegion> &regions, bool toArena) {
    for (const HostRegion &region : regions) {
      VkBufferCopy copy{toArena ? region.hostOffset : region.arenaOffset,
                        toArena ? region.arenaOffset : region.hostOffset,
                        region.arenaBytes};
      vkCmdCopyBuffer(handle.commands,
                      toArena ? handle.staging.buffer : handle.arena.buffer,
                      toArena ? handle.arena.buffer : handle.staging.buffer, 1,
                      &copy);
    }
  }

  Error record() {
    std::vector<VkDescriptorSet> sets;
    if (Error error = createDescriptorSets(sets); error != Error::Ok)
      return error;
    const auto &dispatches = *blob.dispatches();
    bool profile =
        (options.profileDelegates || envSet("ETCH_VULKAN_PROFILE")) &&
        handle.context->timestamps;
    if (profile) {
      VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      info.queryType = VK_QUERY_TYPE_TIMESTAMP;
      info.queryCount = dispatches.size() + 1;
      if (vkCreateQueryPool(device, &info, nullptr, &handle.queries) !=
          VK_SUCCESS)
        return failInit("cannot create the timestamp query pool");
      handle.dispatchNanos.assign(dispatches.size(), 0);
      handle.stamps.assign(dispatches.size() + 1, 0);
    }
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(handle.commands, &begin);
    bool staged = !handle.arena.mapped;
    if (staged && !handle.inputs.empty()) {
      copyRegions(handle.inputs, true);
      barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    }
    if (profile) {
      vkCmdResetQueryPool(handle.commands, handle.queries, 0,
                          dispatches.size() + 1);
      vkCmdWriteTimestamp(handle.commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                          handle.queries, 0);
    }
    for (uint32_t i = 0; i < dispatches.size(); ++i) {
      const Dispatch &dispatch = *dispatches.Get(i);
      size_t shader = static_cast<size_t>(dispatch.shader());
      vkCmdBindPipeline(handle.commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                        handle.pipelines[i]);
      vkCmdBindDescriptorSets(handle.commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                              handle.pipelineLayouts[shader], 0, 1, &sets[i], 0,
                              nullptr);
      vkCmdPushConstants(handle.commands, handle.pipelineLayouts[shader],
                         VK_SHADER_STAGE_COMPUTE_BIT, 0,
                         dispatch.push()->size() * 4, dispatch.push()->data());
      vkCmdDispatch(handle.commands, dispatch.groups()->Get(0),
                    dispatch.groups()->Get(1), dispatch.groups()->Get(2));
      // Each dispatch may read what any earlier one wrote.
      barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      if (profile)
        vkCmdWriteTimestamp(handle.commands,
                            VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                            handle.queries, i + 1);
    }
    if (staged && !handle.outputs.empty()) {
      barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
      copyRegions(handle.outputs, false);
      barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
              VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    } else {
      barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    }
    if (vkEndCommandBuffer(handle.commands) != VK_SUCCESS)
      return failInit("cannot record the command buffer");
    return Error::Ok;
  }

  const Blob &blob;
  const runtime::FramedBlob &framed;
  Handle &handle;
  const runtime::LoadOptions &options;
  std::vector<uint64_t> bytes; // of each input, then each output
  VkDevice device;
  FloatStorage storage;
  DeviceLimits limits{};
};

} // namespace

Error buildHandle(const Blob &blob, const runtime::FramedBlob &framed,
                  Handle &handle, Span<TensorView *> inputs,
                  Span<TensorView *> outputs,
                  const runtime::LoadOptions &options) {
  return Builder(blob, framed, handle, options).build(inputs, outputs);
}

} // namespace etch::vulkan
