//===- XnnpackBackend.cpp - Runs XNNPACK delegate blobs -------------------===//
//
// init: verifies the blob, defines an xnn_subgraph per run of nodes between
// concatenations, the nodes etch's GEMM kernels take on this CPU and the
// SiLUs (sigmoid, multiply) etch runs in one pass (GemmSteps.h, Stages.h;
// weights point into the mapped program; XNNPACK packs them once when the
// runtime is created), creates the runtimes on a pthreadpool, creates a copy
// operator per concatenation input and binds every external buffer. execute:
// converts NCHW border tensors to/from NHWC staging buffers (allocated at
// init), then runs the steps in node order (runtimes, copies, GEMMs, SiLU
// passes). No allocation in execute. resize (inputs with dynamic dims took new
// sizes): computes every tensor's shape with the blob validator's shape rules
// and, when they changed, makes a new XNNPACK runtime for them (XNNPACK 2022
// cannot reshape a runtime).
//
//===----------------------------------------------------------------------===//
#include "BlobValidator.h"
#include "GemmSteps.h"
#include "NodeDefinitions.h"
#include "Stages.h"
#include "targets/xnnpack/schema/BlobFormat.h"
#include "targets/xnnpack/schema/xnnpack_blob_generated.h"

#include "runtime/backend/Backend.h"
#include "runtime/kernels/optimized/Activations.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/optimized/Transpose.h"
#include "runtime/platform/Platform.h"
#include "runtime/program/VectorAlignment.h"

#include <cpuinfo.h>
#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace etch::xnnpack {
namespace {

using runtime::Error;
using runtime::Result;
using runtime::Span;
using runtime::TensorView;

struct Border {
  TensorView *tensor;           // the program's (NCHW) tensor
  std::vector<uint8_t> staging; // NHWC copy, when nchw
  bool nchw;
};

using Pool = std::shared_ptr<std::remove_pointer_t<pthreadpool_t>>;
using KernelPool = runtime::optimized::ThreadPool;

/// A kernel job on the pthreadpool: pthreadpool hands out [start, start +
/// tile) with the last tile cut at the range's end.
struct KernelJob {
  KernelPool::Task task;
  const void *context;
};

void runKernelTile(void *job, size_t start, size_t tile) {
  auto *kernel = static_cast<const KernelJob *>(job);
  kernel->task(kernel->context, static_cast<int64_t>(start),
               static_cast<int64_t>(start + tile));
}

void parallelizeKernel(void *pool, int64_t count, int64_t chunk,
                       KernelPool::Task task, const void *context) {
  KernelJob job{task, context};
  pthreadpool_parallelize_1d_tile_1d(
      static_cast<pthreadpool_t>(pool), runKernelTile, &job,
      static_cast<size_t>(count), static_cast<size_t>(chunk), 0);
}

/// One pool for every delegate of the process: pools spin while waiting, so
/// one per delegate would oversubscribe the cores. For the same reason the
/// optimized kernels borrow it while it lives. A delegate that asks for
/// another thread count gets a new pool; runtimes made on the old one keep
/// it alive (they hold it until they are deleted).
Pool sharedPool(size_t threads) {
  static std::weak_ptr<std::remove_pointer_t<pthreadpool_t>> current;
  static size_t currentThreads = 0;
  Pool pool = current.lock();
  if (!pool || currentThreads != threads) {
    pool = Pool(pthreadpool_create(threads), [](pthreadpool_t dying) {
      KernelPool::shared().giveBack(dying);
      pthreadpool_destroy(dying);
    });
    if (pool)
      KernelPool::shared().borrow({pool.get(),
                                   pthreadpool_get_threads_count(pool.get()),
                                   parallelizeKernel});
    current = pool;
    currentThreads = threads;
  }
  return pool;
}

/// One step of a delegate (Stages.h): an XNNPACK runtime, the copies of
/// one concatenation's inputs into their slices, or a node on etch's GEMM
/// kernels.
struct Step {
  xnn_runtime_t runtime = nullptr;
  std::vector<xnn_operator_t> copies;
  std::unique_ptr<GemmStep> gemm;
  struct SiluPass {
    const float *input;
    float *output;
    int64_t count;
  };
  std::optional<SiluPass> silu;
  Step() = default;
  Step(const Step &) = delete;
  Step(Step &&other) noexcept
      : runtime(other.runtime), copies(std::move(other.copies)),
        gemm(std::move(other.gemm)), silu(other.silu) {
    other.runtime = nullptr;
    other.copies.clear();
  }
  ~Step() {
    if (runtime)
      xnn_delete_runtime(runtime);
    for (xnn_operator_t copy : copies)
      xnn_delete_operator(copy);
  }
};

/// What one set of extents built: the steps and the buffer they share.
struct Built {
  std::vector<Step> steps;
  runtime::PlatformBlock buffer; // the values passed between steps
};

struct Handle {
  const Blob *blob = nullptr;    // in the program, which outlives the method
  const uint8_t *data = nullptr; // the blob's constant section
  std::vector<Dims> dims;        // every tensor's dims in the current steps
  Pool pool; // outlives the runtimes: declared before they are deleted
  Built built;
  std::vector<Border> inputs, outputs;
};

/// xnn_initialize, with ETCH_CPU_ISA's cap applied first: XNNPACK picks its
/// kernels once, from the shared libcpuinfo's view of the CPU
/// (cpuinfo_isa), so clearing the capped features there makes it run the
/// kernels of the ISA etch's own kernels are held to (avx2: its AVX2/FMA3
/// kernels on an AVX-512 CPU; scalar: its SSE kernels).
bool initializeXnnpack() {
  static const bool initialized = [] {
#if defined(__x86_64__)
    using runtime::optimized::isaAllowed;
    if (cpuinfo_initialize()) {
      cpuinfo_x86_isa &isa = cpuinfo_isa;
      if (!isaAllowed("avx512vnni"))
        isa.avx512vnni = false;
      if (!isaAllowed("avx512"))
        isa.avx512f = isa.avx512cd = isa.avx512dq = isa.avx512bw =
            isa.avx512vl = isa.avx512ifma = isa.avx512vbmi = isa.avx512vbmi2 =
                isa.avx512bitalg = isa.avx512vpopcntdq = isa.avx512vnni =
                    isa.avx512bf16 = false;
      if (!isaAllowed("avx2"))
        isa.avx = isa.avx2 = isa.fma3 = isa.fma4 = isa.xop = isa.f16c = false;
    }
#endif
    return xnn_initialize(nullptr) == xnn_status_success;
  }();
  return initialized;
}

/// Converts a rank-4 border between the program's NCHW and XNNPACK's NHWC:
/// per batch, a [C][H*W] <-> [H*W][C] transpose in cache-sized tiles.
void convertBorder(const TensorView &tensor, const void *in, void *out,
                   bool toXnnpack) {
  const int64_t *d = tensor.sizes();
  int64_t channels = d[1], pixels = d[2] * d[3];
  runtime::optimized::transposeBatched(
      in, out, d[0], toXnnpack ? channels : pixels,
      toXnnpack ? pixels : channels, runtime::elementSize(tensor.scalarType()));
}

/// The program's element type for a border tensor of \p datatype.
runtime::ScalarType borderScalarType(Datatype datatype) {
  return datatype == Datatype::Qint8 ? runtime::ScalarType::Int8
                                     : runtime::ScalarType::Float32;
}

class XnnpackBackend : public runtime::Backend {
public:
  Result<void *> init(const runtime::DelegateBlob &bytes,
                      Span<const runtime::CompileSpec> specs,
                      Span<TensorView *> inputs, Span<TensorView *> outputs,
                      const runtime::LoadOptions &options) override {
    // Framing and flatbuffer verification.
    runtime::FramedBlob framed;
    const Blob *blob = runtime::openBlobRoot<Blob, VerifyBlobBuffer, GetBlob>(
        "xnnpack", bytes, kBlobMagic, kBlobVersion, inputs.size(),
        outputs.size(), framed);
    if (!blob)
      return Error::DelegateInvalidBlob;
    const uint8_t *data = framed.constants;
    uint64_t dataSize = framed.constantsSize;

    // Tensors: bounds of constants, dims, border tensors vs program tensors.
    const auto &tensors = *blob->tensors();
    std::unique_ptr<Handle> handle(new Handle());
    handle->inputs.resize(inputs.size());
    handle->outputs.resize(outputs.size());
    for (const Tensor *tensor : tensors) {
      if (!tensor->dims() || tensor->dims()->size() > XNN_MAX_TENSOR_DIMS)
        return fail("tensor rank exceeds XNNPACK's maximum");
      if (!runtime::hasAlignedElements(tensor->dims()))
        return fail("tensor dims vector is misaligned");
      uint64_t numel = 1;
      for (uint64_t dim : *tensor->dims())
        numel = dim && numel > (UINT64_MAX / 8) / dim ? UINT64_MAX / 8
                                                      : numel * dim;
      uint64_t element = elementBytes(tensor->datatype());
      if (tensor->data_size()) {
        if (tensor->data_size() != numel * element ||
            tensor->data_offset() > dataSize ||
            tensor->data_size() > dataSize - tensor->data_offset() ||
            tensor->data_offset() % element)
          return fail("constant tensor lies outside the constant section");
      }
      int input = tensor->input(), output = tensor->output();
      if ((input >= 0 && static_cast<size_t>(input) >= inputs.size()) ||
          (output >= 0 && static_cast<size_t>(output) >= outputs.size()))
        return fail("external tensor index out of range");
      if (input >= 0 || output >= 0) {
        TensorView *view = input >= 0 ? inputs[input] : outputs[output];
        bool borderType = tensor->datatype() == Datatype::Fp32 ||
                          tensor->datatype() == Datatype::Qint8;
        if (!view || !borderType ||
            view->scalarType() != borderScalarType(tensor->datatype()) ||
            static_cast<uint64_t>(view->numel()) != numel ||
            (tensor->nchw() && view->rank() != 4))
          return fail("border tensor differs from the program's tensor");
        Border &border =
            input >= 0 ? handle->inputs[input] : handle->outputs[output];
        if (border.tensor)
          return fail("two blob tensors claim the same delegate input/output");
        border.tensor = view;
        border.nchw = tensor->nchw();
        if (border.nchw)
          border.staging.resize(numel * element);
      }
    }
    for (const auto *list : {&handle->inputs, &handle->outputs})
      for (const Border &border : *list)
        if (!border.tensor)
          return fail("a delegate input/output has no blob tensor");

    // Node inputs/outputs exist before semantic checks index with them.
    for (const Node *node : *blob->nodes()) {
      if (!node->inputs() || !node->outputs() || node->outputs()->size() != 1)
        return fail("a node lacks inputs or has other than one output");
      for (const auto *list : {node->inputs(), node->outputs()})
        for (uint32_t index : *list)
          if (index >= tensors.size() &&
              !(list == node->inputs() && index == kAbsentTensor))
            return fail("a node refers to a tensor that does not exist");
      if (node->kind() > NodeKind::MAX || !hasItsParams(*node))
        return fail("a node has an unknown kind or the wrong kind of "
                    "parameters");
    }
    if (std::string problem = validateBlob(*blob, options.memoryLimit);
        !problem.empty()) {
      ET_LOG(Error, "xnnpack: %s", problem.c_str());
      return Error::DelegateInvalidBlob;
    }
    if (!initializeXnnpack())
      return fail("xnn_initialize failed");
    handle->blob = blob;
    handle->data = data;
    handle->pool = sharedPool(runtime::delegateThreadCount(specs, options));
    if (!handle->pool)
      return fail("cannot create the thread pool");
    std::vector<Dims> dims;
    for (const Tensor *tensor : tensors)
      dims.emplace_back(tensor->dims()->begin(), tensor->dims()->end());
    if (Error error = createRuntime(*handle, std::move(dims));
        error != Error::Ok)
      return error;
    return static_cast<void *>(handle.release());
  }

  Error resize(void *opaque, Span<TensorView *>, Span<TensorView *>) override {
    Handle &handle = *static_cast<Handle *>(opaque);
    const auto &tensors = *handle.blob->tensors();
    std::vector<Dims> dims = handle.dims;
    // The inputs' new shapes (NHWC for rank-4 border tensors)...
    for (uint32_t i = 0; i < tensors.size(); ++i) {
      int input = tensors.Get(i)->input();
      if (input < 0)
        continue;
      const Border &border = handle.inputs[input];
      if (Error error = borderDims(border, *tensors.Get(i), dims[i]);
          error != Error::Ok)
        return error;
    }
    // ...then every node's output by its shape rule.
    const auto &nodes = *handle.blob->nodes();
    for (size_t n = 0; n < nodes.size(); ++n) {
      const Node &node = *nodes.Get(n);
      std::vector<const Dims *> in;
      for (uint32_t index : *node.inputs())
        in.push_back(index == kAbsentTensor ? nullptr : &dims[index]);
      Dims &out = dims[node.outputs()->Get(0)];
      std::string problem = nodeOutputDims(n, node, in, out);
      if (problem.empty())
        problem = nodeScalesProblem(n, node, *handle.blob, dims);
      if (!problem.empty()) {
        ET_LOG(Error, "xnnpack: at the new input shapes, %s", problem.c_str());
        return Error::InvalidShape;
      }
    }
    for (uint32_t i = 0; i < tensors.size(); ++i) {
      int output = tensors.Get(i)->output();
      if (output >= 0)
        if (Error error = setOutputShape(handle.outputs[output],
                                         *tensors.Get(i), dims[i]);
            error != Error::Ok)
          return error;
    }
    if (dims == handle.dims)
      return Error::Ok;
    return createRuntime(handle, std::move(dims));
  }

  Error execute(void *opaque, Span<TensorView *>, Span<TensorView *>) override {
    Handle &handle = *static_cast<Handle *>(opaque);
    for (Border &border : handle.inputs)
      if (border.nchw)
        convertBorder(*border.tensor, border.tensor->data(),
                      border.staging.data(), /*toXnnpack=*/true);
    for (Step &step : handle.built.steps) {
      if (step.runtime &&
          xnn_invoke_runtime(step.runtime) != xnn_status_success) {
        ET_LOG(Error, "xnnpack: xnn_invoke_runtime failed");
        return Error::DelegateExecuteFailed;
      }
      for (xnn_operator_t copy : step.copies)
        if (xnn_run_operator(copy, handle.pool.get()) != xnn_status_success) {
          ET_LOG(Error, "xnnpack: a concatenation copy failed");
          return Error::DelegateExecuteFailed;
        }
      if (step.gemm)
        step.gemm->run();
      if (step.silu)
        runtime::optimized::siluParallel(step.silu->input, step.silu->output,
                                         step.silu->count);
    }
    for (Border &border : handle.outputs)
      if (border.nchw)
        convertBorder(*border.tensor, border.staging.data(),
                      border.tensor->data(), /*toXnnpack=*/false);
    return Error::Ok;
  }

  void destroy(void *opaque) override { delete static_cast<Handle *>(opaque); }

private:
  /// The XNNPACK dims of a border input as the program's tensor has it now
  /// (NCHW -> NHWC), within what the blob planned.
  static Error borderDims(const Border &border, const Tensor &tensor,
                          Dims &dims) {
    const TensorView &view = *border.tensor;
    if (static_cast<size_t>(view.rank()) != tensor.dims()->size())
      return fail("a delegate input changed rank");
    const int64_t *sizes = view.sizes();
    dims.assign(sizes, sizes + view.rank());
    if (border.nchw)
      dims = {dims[0], dims[2], dims[3], dims[1]};
    Dims planned(tensor.dims()->begin(), tensor.dims()->end());
    if (numel(dims) > numel(planned)) {
      ET_LOG(Error, "xnnpack: a delegate input holds more elements than "
                    "planned");
      return Error::InvalidShape;
    }
    return Error::Ok;
  }

  /// Gives a border output the shape its node computed (NHWC -> NCHW).
  static Error setOutputShape(Border &border, const Tensor &tensor,
                              const Dims &dims) {
    Dims planned(tensor.dims()->begin(), tensor.dims()->end());
    if (dims.size() != planned.size() || numel(dims) > numel(planned)) {
      ET_LOG(Error, "xnnpack: a delegate output outgrows its planned shape");
      return Error::InvalidShape;
    }
    std::vector<int64_t> sizes(dims.begin(), dims.end());
    if (border.nchw)
      sizes = {sizes[0], sizes[3], sizes[1], sizes[2]};
    if (!border.tensor->resize(sizes.data(), static_cast<int>(sizes.size()))) {
      ET_LOG(Error, "xnnpack: a delegate output does not fit its tensor");
      return Error::InvalidShape;
    }
    return Error::Ok;
  }

  /// Builds the blob's steps at \p dims (Stages.h) in place of the handle's
  /// current ones, which are kept when this fails.
  static Error createRuntime(Handle &handle, std::vector<Dims> dims) {
    const Blob &blob = *handle.blob;
    // The nodes etch's GEMM kernels run on this CPU (GemmSteps.h).
    std::vector<bool> gemm(blob.nodes()->size(), false);
    if (etchGemmPreferred())
      for (uint32_t n = 0; n < gemm.size(); ++n)
        gemm[n] = gemmGeometry(blob, *blob.nodes()->Get(n), dims).has_value();
    StagePlan plan = planStages(blob, dims, gemm, fusedSiluPreferred());
    Built built;
    if (plan.bytes &&
        !(built.buffer = runtime::allocatePlatformBlock(plan.bytes, 64)))
      return fail("cannot allocate the values passed between steps");
    // Where each tensor's bytes are, unless XNNPACK keeps it internally.
    std::vector<void *> addresses(blob.tensors()->size(), nullptr);
    for (uint32_t i = 0; i < addresses.size(); ++i) {
      const Tensor *tensor = blob.tensors()->Get(i);
      if (tensor->data_size())
        addresses[i] = const_cast<uint8_t *>(handle.data) +
                       tensor->data_offset(); // read only: an input
      else if (tensor->input() >= 0 || tensor->output() >= 0) {
        Border &border = tensor->input() >= 0
                             ? handle.inputs[tensor->input()]
                             : handle.outputs[tensor->output()];
        addresses[i] =
            border.nchw ? border.staging.data() : border.tensor->data();
      } else if (plan.offsets[i] >= 0)
        addresses[i] = built.buffer.get() + plan.offsets[i];
    }
    for (const StepPlan &stepPlan : plan.steps) {
      Step step;
      const Node &first = *blob.nodes()->Get(stepPlan.first);
      Error error =
          stepPlan.kind == StepKind::Concatenation
              ? createCopies(handle, first, dims, addresses, step)
          : stepPlan.kind == StepKind::Gemm
              ? createGemm(blob, first, dims, addresses, step)
          : stepPlan.kind == StepKind::Silu
              ? createSilu(blob, stepPlan, dims, addresses, step)
              : createStepRuntime(handle, stepPlan, dims, addresses, step);
      if (error != Error::Ok)
        return error;
      built.steps.push_back(std::move(step));
    }
    handle.built = std::move(built);
    handle.dims = std::move(dims);
    return Error::Ok;
  }

  /// One XNNPACK runtime for nodes [first, end): the tensors they use, with
  /// those whose bytes live outside it (borders, values passed between
  /// steps) as external values bound to \p addresses.
  static Error createStepRuntime(Handle &handle, const StepPlan &stepPlan,
                                 const std::vector<Dims> &dims,
                                 const std::vector<void *> &addresses,
                                 Step &step) {
    const Blob &blob = *handle.blob;
    const auto &tensors = *blob.tensors();
    std::vector<bool> used(tensors.size(), false),
        written(tensors.size(), false);
    for (uint32_t n = stepPlan.first; n < stepPlan.end; ++n) {
      const Node &node = *blob.nodes()->Get(n);
      for (uint32_t index : *node.inputs())
        if (index != kAbsentTensor)
          used[index] = true;
      used[node.outputs()->Get(0)] = true;
      written[node.outputs()->Get(0)] = true;
    }
    uint32_t externalCount = 0;
    for (uint32_t i = 0; i < tensors.size(); ++i)
      externalCount += used[i] && addresses[i] && !tensors.Get(i)->data_size();
    xnn_subgraph_t subgraph = nullptr;
    if (xnn_create_subgraph(externalCount, 0, &subgraph) != xnn_status_success)
      return fail("xnn_create_subgraph failed");
    std::unique_ptr<xnn_subgraph, decltype(&xnn_delete_subgraph)> owner(
        subgraph, xnn_delete_subgraph);
    std::vector<uint32_t> ids(tensors.size(), XNN_INVALID_VALUE_ID - 1);
    std::vector<xnn_external_value> externals;
    for (uint32_t i = 0; i < tensors.size(); ++i) {
      if (!used[i])
        continue;
      const Tensor *tensor = tensors.Get(i);
      std::vector<size_t> shape(dims[i].begin(), dims[i].end());
      const void *constant = tensor->data_size() ? addresses[i] : nullptr;
      uint32_t external = XNN_INVALID_VALUE_ID, flags = 0;
      if (addresses[i] && !constant) {
        external = externals.size();
        flags = written[i] ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT
                           : XNN_VALUE_FLAG_EXTERNAL_INPUT;
        externals.push_back({external, addresses[i]});
      }
      if (defineTensor(subgraph, *tensor, shape, constant, external, flags,
                       &ids[i]) != xnn_status_success)
        return fail("XNNPACK rejected a tensor definition");
    }
    for (uint32_t n = stepPlan.first; n < stepPlan.end; ++n)
      if (Error error = defineNode(subgraph, *blob.nodes()->Get(n), ids, dims);
          error != Error::Ok)
        return error;
    if (xnn_create_runtime_v2(subgraph, handle.pool.get(), 0, &step.runtime) !=
        xnn_status_success)
      return fail("xnn_create_runtime_v2 failed (inconsistent subgraph)");
    if (xnn_setup_runtime(step.runtime, externals.size(), externals.data()) !=
        xnn_status_success)
      return fail("xnn_setup_runtime failed");
    return Error::Ok;
  }

  /// A node on etch's GEMM kernels: its weights packed now, its input and
  /// output at their addresses (the delegate buffer or a border).
  static Error createGemm(const Blob &blob, const Node &node,
                          const std::vector<Dims> &dims,
                          const std::vector<void *> &addresses, Step &step) {
    std::optional<runtime::optimized::ConvGeometry> geometry =
        gemmGeometry(blob, node, dims);
    uint32_t bias = node.inputs()->Get(2);
    if (!geometry)
      return fail("a GEMM step's node changed under it");
    step.gemm = GemmStep::create(
        *geometry, static_cast<const float *>(addresses[node.inputs()->Get(1)]),
        bias == kAbsentTensor ? nullptr
                              : static_cast<const float *>(addresses[bias]),
        static_cast<const float *>(addresses[node.inputs()->Get(0)]),
        static_cast<float *>(addresses[node.outputs()->Get(0)]),
        node.output_min(), node.output_max());
    if (!step.gemm) {
      ET_LOG(Error, "xnnpack: cannot allocate a convolution's packed weights");
      return Error::MemoryAllocationFailed;
    }
    return Error::Ok;
  }

  /// A fused SiLU: the sigmoid's input in, the multiply's output out.
  static Error createSilu(const Blob &blob, const StepPlan &stepPlan,
                          const std::vector<Dims> &dims,
                          const std::vector<void *> &addresses, Step &step) {
    uint32_t input = blob.nodes()->Get(stepPlan.first)->inputs()->Get(0);
    uint32_t output = blob.nodes()->Get(stepPlan.first + 1)->outputs()->Get(0);
    if (!addresses[input] || !addresses[output])
      return fail("a SiLU step's values have no memory");
    step.silu = Step::SiluPass{static_cast<const float *>(addresses[input]),
                               static_cast<float *>(addresses[output]),
                               static_cast<int64_t>(numel(dims[input]))};
    return Error::Ok;
  }

  /// A concatenation as one copy per input: rows of the input's inner
  /// extent (the axis and the dims after it) into the output's rows, at the
  /// input's offset along the axis.
  static Error createCopies(Handle &handle, const Node &node,
                            const std::vector<Dims> &dims,
                            const std::vector<void *> &addresses, Step &step) {
    uint32_t axis = node.params_as_ConcatenateParams()->axis();
    uint32_t outIndex = node.outputs()->Get(0);
    const Dims &out = dims[outIndex];
    auto product = [](const Dims &d, size_t from, size_t to) {
      uint64_t count = 1;
      for (size_t i = from; i < to; ++i)
        count *= d[i];
      return count;
    };
    uint64_t rows = product(out, 0, axis);
    uint64_t outRow = product(out, axis, out.size());
    auto *output = static_cast<float *>(addresses[outIndex]);
    uint64_t offset = 0;
    for (uint32_t index : *node.inputs()) {
      uint64_t row = product(dims[index], axis, dims[index].size());
      xnn_operator_t copy = nullptr;
      if (xnn_create_copy_nc_x32(row, row, outRow, 0, &copy) !=
          xnn_status_success)
        return fail("xnn_create_copy_nc_x32 failed");
      step.copies.push_back(copy);
      if (xnn_setup_copy_nc_x32(copy, rows, addresses[index], output + offset,
                                handle.pool.get()) != xnn_status_success)
        return fail("xnn_setup_copy_nc_x32 failed");
      offset += row;
    }
    return Error::Ok;
  }

  /// Defines \p tensor with its datatype (validated by tensorTypeProblem).
  static xnn_status defineTensor(xnn_subgraph_t subgraph, const Tensor &tensor,
                                 const std::vector<size_t> &shape,
                                 const void *constant, uint32_t external,
                                 uint32_t flags, uint32_t *id) {
    switch (tensor.datatype()) {
    case Datatype::Fp32:
      return xnn_define_tensor_value(subgraph, xnn_datatype_fp32, shape.size(),
                                     shape.data(), constant, external, flags,
                                     id);
    case Datatype::Qint8:
    case Datatype::Qint32:
      return xnn_define_quantized_tensor_value(
          subgraph,
          tensor.datatype() == Datatype::Qint8 ? xnn_datatype_qint8
                                               : xnn_datatype_qint32,
          tensor.zero_point(), tensor.scale(), shape.size(), shape.data(),
          constant, external, flags, id);
    case Datatype::Qcint8:
    case Datatype::Qcint32:
      return xnn_define_channelwise_quantized_tensor_value(
          subgraph,
          tensor.datatype() == Datatype::Qcint8 ? xnn_datatype_qcint8
                                                : xnn_datatype_qcint32,
          tensor.channel_scales()->data(), shape.size(), tensor.channel_dim(),
          shape.data(), constant, external, flags, id);
    }
    return xnn_status_invalid_parameter;
  }
};

} // namespace
} // namespace etch::xnnpack

ETCH_REGISTER_BACKEND(xnnpack, etch::xnnpack::XnnpackBackend)
