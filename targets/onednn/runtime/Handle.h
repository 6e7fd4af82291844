//===- Handle.h - oneDNN objects a delegate owns, and shared helpers -*- C++
//-*-===//
//
// The process's engine and stream, a delegate's handle (its memories,
// buffers and the steps execute runs) and the small translations from the
// blob's enums and dims to oneDNN's, shared by the Builder's files and the
// backend.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "targets/onednn/schema/BlobFormat.h"
#include "targets/onednn/schema/onednn_blob_generated.h"

#include "runtime/backend/Backend.h"
#include "runtime/platform/Platform.h"

#include <dnnl.h>

#include <cstdint>
#include <vector>

namespace etch::onednn::backend {

using runtime::Error;
using runtime::Result;
using runtime::Span;
using runtime::TensorView;

/// Logs "onednn: <what>" and returns the invalid-blob error.
Error fail(const char *what);

/// One engine and stream for the process: a CPU engine holds no state a
/// delegate could disturb, and in-order execution is all etch needs.
struct Device {
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  static Device *get() {
    static Device device = [] {
      Device created;
      if (dnnl_engine_create(&created.engine, dnnl_cpu, 0) != dnnl_success ||
          dnnl_stream_create(&created.stream, created.engine,
                             dnnl_stream_default_flags) != dnnl_success)
        created.stream = nullptr;
      return created;
    }();
    return device.stream ? &device : nullptr;
  }
};

/// One thing execute does: a primitive with its arguments, or a copy (a
/// reshape whose result leaves the delegate).
struct Step {
  dnnl_primitive_t primitive = nullptr;
  std::vector<dnnl_exec_arg_t> args;
  const void *copyFrom = nullptr;
  void *copyTo = nullptr;
  size_t copyBytes = 0;
};

struct Handle {
  Device *device = nullptr;
  int threads = 1;
  // No VNNI here: int8 convolutions and inner products compute in float
  // (BuilderInt8AsFloat.cpp).
  bool int8AsFloat = false;
  std::vector<dnnl_memory_t> memories; // per tensor, then extra ones
  std::vector<runtime::PlatformBlock> buffers;
  // Border reorders into the delegate and the nodes, then the border
  // reorders out of it.
  std::vector<Step> steps, outputSteps;
  // Each step's last time (steps, then outputSteps); sized at load only
  // when delegate profiling is on.
  std::vector<uint64_t> stepNanos;
  uint64_t bytes = 0;                 // of buffers, against memoryLimit
  uint64_t memoryLimit = 0;           // the loading method's LoadOptions
  std::vector<int64_t> inputElements; // the blob's static input sizes
  ~Handle() {
    for (const auto *list : {&steps, &outputSteps})
      for (const Step &step : *list)
        if (step.primitive)
          dnnl_primitive_destroy(step.primitive);
    for (dnnl_memory_t memory : memories)
      if (memory)
        dnnl_memory_destroy(memory);
  }
  /// A buffer of \p size bytes, counted against the memory limit.
  void *allocate(size_t size) {
    if (size > memoryLimit || bytes > memoryLimit - size)
      return nullptr;
    runtime::PlatformBlock buffer = runtime::allocatePlatformBlock(size, 64);
    if (!buffer)
      return nullptr;
    bytes += size;
    buffers.push_back(std::move(buffer));
    return buffers.back().get();
  }
  dnnl_memory_t addMemory(const dnnl_memory_desc_t &md, void *data) {
    dnnl_memory_t memory = nullptr;
    if (dnnl_memory_create(&memory, &md, device->engine, data) != dnnl_success)
      return nullptr;
    memories.push_back(memory);
    return memory;
  }
};

/// Owns what creating a primitive needs, whatever way it returns.
struct Creation {
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_post_ops_t postOps = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  ~Creation() {
    if (pd)
      dnnl_primitive_desc_destroy(pd);
    if (postOps)
      dnnl_post_ops_destroy(postOps);
    if (attr)
      dnnl_primitive_attr_destroy(attr);
  }
};

/// \p creation's attribute for a conversion (a reorder between data
/// types): result = scale * (value - \p sourceZero) + \p resultZero,
/// rounded and saturated to the result's type.
Error conversionAttr(Creation &creation, float scale, int32_t sourceZero,
                     int32_t resultZero);

dnnl_alg_kind_t eltwiseAlgorithm(Eltwise eltwise);

dnnl_alg_kind_t binaryAlgorithm(Binary binary);

using Dims = std::vector<int64_t>;

int64_t numel(const Dims &dims);

/// oneDNN's type for a blob data type, and its size.
dnnl_data_type_t dnnlType(DataType type);
size_t elementBytes(DataType type);
runtime::ScalarType scalarType(DataType type);

/// A descriptor of \p dims in \p layout (ChannelsLast: rank 4).
bool describe(const Dims &dims, Layout layout, dnnl_memory_desc_t &md,
              dnnl_data_type_t type = dnnl_f32);

/// Calls visit(tensor, post) for every tensor \p node reads: each input
/// (post null), then each post-op's operand (kAbsentTensor for an eltwise).
template <typename Visit> void forEachRead(const Node &node, Visit &&visit) {
  for (uint32_t input : *node.inputs())
    visit(input, static_cast<const PostOp *>(nullptr));
  if (node.post_ops())
    for (const PostOp *post : *node.post_ops())
      visit(post->operand(), post);
}

/// Whether a ChannelsLast tensor holds its plain twin's bytes (H = W = 1).
bool sameBytesEitherWay(const Dims &dims);

} // namespace etch::onednn::backend
