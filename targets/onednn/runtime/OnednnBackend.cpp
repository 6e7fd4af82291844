//===- OnednnBackend.cpp - Runs oneDNN delegate blobs ---------------------===//
//
// init: the Builder (Builder.h) verifies the blob, gives every tensor
// memory, creates one primitive per node with its post-ops, reorders
// weights to the layouts the primitives prefer, and creates the border
// reorders (NCHW program tensors <-> NHWC). execute runs those steps in
// order. Primitives use a user scratchpad allocated at init; oneDNN itself
// still allocates its argument map in every primitive call
// (docs/targets.md).
//
//===----------------------------------------------------------------------===//
#include "Builder.h"

#include "runtime/backend/BlobFraming.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/platform/Platform.h"

#include <oneapi/dnnl/dnnl_debug.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

// libgomp's, which Debian's oneDNN runs on (whatever OpenMP the compiler
// building etch would bring).
extern "C" void omp_set_num_threads(int threads);

namespace etch::onednn {
namespace {

using namespace backend;

/// One thread (oneDNN then runs on the caller, no OpenMP team) when the
/// method mixes targets or XNNPACK's pool already runs etch's kernels: two
/// pools spinning on the same cores made a mixed encoder block 120x slower
/// (docs/targets.md); otherwise delegateThreadCount.
int preferredThreads(Span<const runtime::CompileSpec> specs,
                     const runtime::LoadOptions &options) {
  for (const runtime::CompileSpec &spec : specs)
    if (std::strcmp(spec.key, "mixed_targets") == 0)
      return 1;
  if (runtime::optimized::ThreadPool::shared().isLent())
    return 1;
  return static_cast<int>(runtime::delegateThreadCount(specs, options));
}

/// oneDNN's name for the instruction set it runs on here (its view of the
/// CPU, lowered by DNNL_MAX_CPU_ISA), and whether that set has VNNI.
struct CpuIsa {
  const char *name;
  bool vnni;
};

/// ETCH_CPU_ISA's cap as oneDNN's, set once before oneDNN picks kernels,
/// unless DNNL_MAX_CPU_ISA (oneDNN's own setting) already says.
void capOnednnIsa() {
  static const bool capped = [] {
    using runtime::optimized::isaAllowed;
    if (std::getenv("DNNL_MAX_CPU_ISA") || isaAllowed("avx512vnni"))
      return false;
    dnnl_cpu_isa_t cap = isaAllowed("avx512") ? dnnl_cpu_isa_avx512_core
                         : isaAllowed("avx2") ? dnnl_cpu_isa_avx2
                                              : dnnl_cpu_isa_sse41;
    return dnnl_set_max_cpu_isa(cap) == dnnl_success;
  }();
  (void)capped;
}

CpuIsa effectiveIsa() {
  switch (dnnl_get_effective_cpu_isa()) {
  case dnnl_cpu_isa_sse41:
    return {"SSE4.1", false};
  case dnnl_cpu_isa_avx:
    return {"AVX", false};
  case dnnl_cpu_isa_avx2:
    return {"AVX2", false};
  case dnnl_cpu_isa_avx2_vnni:
    return {"AVX2 with AVX-VNNI", true};
  case dnnl_cpu_isa_avx512_mic:
  case dnnl_cpu_isa_avx512_mic_4ops:
    return {"AVX-512 (Xeon Phi)", false};
  case dnnl_cpu_isa_avx512_core:
    return {"AVX-512", false};
  case dnnl_cpu_isa_avx512_core_vnni:
    return {"AVX-512 with VNNI", true};
  case dnnl_cpu_isa_avx512_core_bf16:
    return {"AVX-512 with VNNI and BF16", true};
  case dnnl_cpu_isa_avx512_core_amx:
    return {"AVX-512 with AMX", true};
  default:
    return {"no JIT instruction set (reference kernels)", false};
  }
}

/// Whether the blob's int8 convolutions and linear layers (BlobFormat.h:
/// multipliesInt8) compute in float here: without VNNI oneDNN's int8
/// results drift from the Q/DQ graph's (rel-L2 up to 1.2e-1 on the
/// quantized e2e models, docs/targets.md); ETCH_ONEDNN_INT8=float asks
/// for it anywhere (read at each load). Said once per process.
bool int8AsFloat(const Blob &blob) {
  if (!multipliesInt8(blob))
    return false;
  const char *setting = std::getenv("ETCH_ONEDNN_INT8");
  bool asked = setting && std::strcmp(setting, "float") == 0;
  CpuIsa isa = effectiveIsa();
  if (isa.vnni && !asked)
    return false;
  // Loads may run on several threads at once.
  static std::atomic<bool> said{false};
  if (said.exchange(true))
    return true;
  if (asked)
    ET_LOG(Info, "onednn: ETCH_ONEDNN_INT8=float: int8 convolutions and "
                 "linear layers compute in float on dequantized weights");
  else
    ET_LOG(Info,
           "onednn: no VNNI here (oneDNN sees %s, where its int8 kernels "
           "sum pairs of products in saturating 16 bits): int8 "
           "convolutions and linear layers compute in float on dequantized "
           "weights",
           isa.name);
  return true;
}

class OnednnBackend : public runtime::Backend {
public:
  Result<void *> init(const runtime::DelegateBlob &bytes,
                      Span<const runtime::CompileSpec> specs,
                      Span<TensorView *> inputs, Span<TensorView *> outputs,
                      const runtime::LoadOptions &options) override {
    capOnednnIsa();
    runtime::FramedBlob framed;
    const Blob *blob = runtime::openBlobRoot<Blob, VerifyBlobBuffer, GetBlob>(
        "onednn", bytes, kBlobMagic, kBlobVersion, inputs.size(),
        outputs.size(), framed);
    if (!blob)
      return Error::DelegateInvalidBlob;
    std::unique_ptr<Handle> handle(new Handle());
    handle->int8AsFloat = int8AsFloat(*blob);
    handle->device = Device::get();
    if (!handle->device)
      return fail("cannot create the oneDNN CPU engine");
    handle->threads = preferredThreads(specs, options);
    handle->memoryLimit = options.memoryLimit;
    handle->inputElements.resize(inputs.size());
    omp_set_num_threads(handle->threads);
    Builder builder(*blob, framed.constants, framed.constantsSize, *handle,
                    inputs, outputs);
    if (Error error = builder.build(); error != Error::Ok)
      return error;
    if (options.profileDelegates)
      handle->stepNanos.assign(
          handle->steps.size() + handle->outputSteps.size(), 0);
    return static_cast<void *>(handle.release());
  }

  Error execute(void *opaque, Span<TensorView *>, Span<TensorView *>) override {
    return run(*static_cast<Handle *>(opaque));
  }

  /// Another input of the method changed shape: this delegate's shapes
  /// are static (the rules admit no dynamic dim), so its inputs must not.
  Error resize(void *opaque, Span<TensorView *> inputs,
               Span<TensorView *>) override {
    const Handle &handle = *static_cast<Handle *>(opaque);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i]->numel() != handle.inputElements[i]) {
        ET_LOG(Error,
               "onednn: delegate input %zu changed from %lld to %lld "
               "elements; the delegate has static shapes",
               i, static_cast<long long>(handle.inputElements[i]),
               static_cast<long long>(inputs[i]->numel()));
        return Error::InvalidShape;
      }
    return Error::Ok;
  }

  /// Each step's wall time (oneDNN's CPU primitives finish before
  /// execute returns), named by its primitive kind.
  size_t profile(void *opaque, Span<runtime::DelegateEvent> out) override {
    const Handle &handle = *static_cast<Handle *>(opaque);
    size_t index = 0;
    for (const auto *list : {&handle.steps, &handle.outputSteps})
      for (const Step &step : *list) {
        if (index < out.size() && index < handle.stepNanos.size())
          out[index] = {stepName(step), handle.stepNanos[index]};
        ++index;
      }
    return handle.stepNanos.empty() ? 0 : index;
  }

  void destroy(void *opaque) override { delete static_cast<Handle *>(opaque); }

private:
  static const char *stepName(const Step &step) {
    const_dnnl_primitive_desc_t pd = nullptr;
    dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
    if (!step.primitive ||
        dnnl_primitive_get_primitive_desc(step.primitive, &pd) !=
            dnnl_success ||
        dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &kind) !=
            dnnl_success)
      return "copy";
    return dnnl_prim_kind2str(kind); // static storage
  }

  static Error run(Handle &handle) {
    if (handle.threads > 1)
      runtime::optimized::ThreadPool::shared().rest();
    omp_set_num_threads(handle.threads);
    bool timing = !handle.stepNanos.empty();
    size_t index = 0;
    for (const auto *list : {&handle.steps, &handle.outputSteps})
      for (const Step &step : *list) {
        uint64_t start = timing ? runtime::nowNanoseconds() : 0;
        if (!step.primitive) {
          std::memcpy(step.copyTo, step.copyFrom, step.copyBytes);
        } else if (dnnl_primitive_execute(step.primitive, handle.device->stream,
                                          static_cast<int>(step.args.size()),
                                          step.args.data()) != dnnl_success) {
          ET_LOG(Error, "onednn: a primitive failed to execute");
          return Error::DelegateExecuteFailed;
        }
        if (timing)
          handle.stepNanos[index] = runtime::nowNanoseconds() - start;
        ++index;
      }
    return Error::Ok;
  }
};

} // namespace
} // namespace etch::onednn

ETCH_REGISTER_BACKEND(onednn, etch::onednn::OnednnBackend)
