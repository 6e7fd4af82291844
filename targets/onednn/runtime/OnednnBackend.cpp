//===- OnednnBackend.cpp - Runs oneDNN delegate blobs ---------------------===//
//
// init: verifies the blob, gives every tensor memory (constants point into
// the mapped program, border tensors at the program's, the rest in buffers
// from the platform allocator), creates one primitive per node with its
// post-ops, reorders weights to the layouts the primitives prefer, and
// creates the border reorders (NCHW program tensors <-> NHWC). execute runs
// those steps in order. Primitives use a user scratchpad allocated here;
// oneDNN itself still allocates its argument map in every primitive call
// (docs/targets.md).
//
//===----------------------------------------------------------------------===//
#include "targets/onednn/schema/BlobFormat.h"
#include "targets/onednn/schema/onednn_blob_generated.h"

#include "runtime/backend/Backend.h"
#include "runtime/backend/BlobFraming.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/platform/Platform.h"
#include "runtime/program/VectorAlignment.h"

#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

// libgomp's, which Debian's oneDNN runs on (whatever OpenMP the compiler
// building etch would bring).
extern "C" void omp_set_num_threads(int threads);

namespace etch::onednn {
namespace {

using runtime::Error;
using runtime::Result;
using runtime::Span;
using runtime::TensorView;

Error fail(const char *what) {
  ET_LOG(Error, "onednn: %s", what);
  return Error::DelegateInvalidBlob;
}

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

struct PlatformBuffer {
  void *data = nullptr;
  explicit PlatformBuffer(size_t bytes)
      : data(runtime::platformAllocate(bytes ? bytes : 1, 64)) {}
  PlatformBuffer(PlatformBuffer &&other) : data(other.data) {
    other.data = nullptr;
  }
  ~PlatformBuffer() {
    if (data)
      runtime::platformDeallocate(data);
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
  std::vector<dnnl_memory_t> memories; // per tensor, then extra ones
  std::vector<PlatformBuffer> buffers;
  // Border reorders into the delegate and the nodes, then the border
  // reorders out of it.
  std::vector<Step> steps, outputSteps;
  uint64_t bytes = 0; // of buffers, against the method's memory limit
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
    if (size > runtime::memoryLimit() || bytes > runtime::memoryLimit() - size)
      return nullptr;
    buffers.emplace_back(size);
    if (!buffers.back().data)
      return nullptr;
    bytes += size;
    return buffers.back().data;
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

dnnl_alg_kind_t eltwiseAlgorithm(Eltwise eltwise) {
  switch (eltwise) {
  case Eltwise::Relu:
    return dnnl_eltwise_relu;
  case Eltwise::Clip:
    return dnnl_eltwise_clip;
  case Eltwise::Hardswish:
    return dnnl_eltwise_hardswish;
  case Eltwise::Logistic:
    return dnnl_eltwise_logistic;
  case Eltwise::Tanh:
    return dnnl_eltwise_tanh;
  case Eltwise::GeluErf:
    return dnnl_eltwise_gelu_erf;
  case Eltwise::GeluTanh:
    return dnnl_eltwise_gelu_tanh;
  case Eltwise::Swish:
    return dnnl_eltwise_swish;
  case Eltwise::Elu:
    return dnnl_eltwise_elu;
  case Eltwise::Abs:
    return dnnl_eltwise_abs;
  case Eltwise::Sqrt:
    return dnnl_eltwise_sqrt;
  case Eltwise::Exp:
    return dnnl_eltwise_exp;
  case Eltwise::Log:
    return dnnl_eltwise_log;
  case Eltwise::Linear:
    return dnnl_eltwise_linear;
  case Eltwise::Round:
    return dnnl_eltwise_round;
  }
  return dnnl_alg_kind_undef;
}

dnnl_alg_kind_t binaryAlgorithm(Binary binary) {
  switch (binary) {
  case Binary::Add:
    return dnnl_binary_add;
  case Binary::Sub:
    return dnnl_binary_sub;
  case Binary::Mul:
    return dnnl_binary_mul;
  case Binary::Div:
    return dnnl_binary_div;
  case Binary::Max:
    return dnnl_binary_max;
  case Binary::Min:
    return dnnl_binary_min;
  }
  return dnnl_alg_kind_undef;
}

using Dims = std::vector<int64_t>;

int64_t numel(const Dims &dims) {
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= dim;
  return count;
}

/// oneDNN's type for a blob data type, and its size.
dnnl_data_type_t dnnlType(DataType type) {
  return type == DataType::S8   ? dnnl_s8
         : type == DataType::U8 ? dnnl_u8
                                : dnnl_f32;
}
size_t elementBytes(DataType type) { return type == DataType::F32 ? 4 : 1; }
runtime::ScalarType scalarType(DataType type) {
  return type == DataType::S8   ? runtime::ScalarType::Int8
         : type == DataType::U8 ? runtime::ScalarType::UInt8
                                : runtime::ScalarType::Float32;
}

/// A descriptor of \p dims in \p layout (ChannelsLast: rank 4).
bool describe(const Dims &dims, Layout layout, dnnl_memory_desc_t &md,
              dnnl_data_type_t type = dnnl_f32) {
  static constexpr dnnl_format_tag_t kPlain[] = {
      dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde, dnnl_abcdef};
  if (dims.empty() || dims.size() > static_cast<size_t>(kMaxRank) ||
      (layout == Layout::ChannelsLast && dims.size() != 4))
    return false;
  dnnl_format_tag_t tag =
      layout == Layout::ChannelsLast ? dnnl_acdb : kPlain[dims.size() - 1];
  return dnnl_memory_desc_init_by_tag(&md, static_cast<int>(dims.size()),
                                      dims.data(), type, tag) == dnnl_success;
}

/// Whether a ChannelsLast tensor holds its plain twin's bytes (H = W = 1).
bool sameBytesEitherWay(const Dims &dims) {
  return dims.size() != 4 || (dims[2] == 1 && dims[3] == 1);
}

class Builder {
public:
  Builder(const Blob &blob, const uint8_t *data, uint64_t dataSize,
          Handle &handle, Span<TensorView *> inputs, Span<TensorView *> outputs)
      : blob(blob), data(data), dataSize(dataSize), handle(handle),
        inputs(inputs), outputs(outputs) {}

  Error build() {
    const auto &tensors = *blob.tensors();
    dims.resize(tensors.size());
    types.resize(tensors.size());
    mds.resize(tensors.size());
    pointers.assign(tensors.size(), nullptr);
    memories.assign(tensors.size(), nullptr);
    writer.assign(tensors.size(), -1);
    twins.assign(tensors.size(), BlockedTwin());
    for (uint32_t i = 0; i < tensors.size(); ++i)
      if (Error error = describeTensor(i, *tensors.Get(i)); error != Error::Ok)
        return error;
    if (Error error = checkWriters(); error != Error::Ok)
      return error;
    planTakeOvers();
    for (uint32_t i = 0; i < tensors.size(); ++i)
      if (takesOver[i] == kAbsentTensor)
        if (Error error = bindTensor(i, *tensors.Get(i)); error != Error::Ok)
          return error;
    // In node order: a taken-over operand may itself have taken over one.
    for (uint32_t n = 0; n < blob.nodes()->size(); ++n)
      if (uint32_t out = blob.nodes()->Get(n)->output();
          takesOver[out] != kAbsentTensor)
        if (Error error = bindTensor(out, *tensors.Get(out));
            error != Error::Ok)
          return error;
    for (uint32_t n = 0; n < blob.nodes()->size(); ++n)
      if (Error error = buildNode(*blob.nodes()->Get(n)); error != Error::Ok)
        return error;
    for (uint32_t i = 0; i < tensors.size(); ++i)
      if (tensors.Get(i)->output() >= 0)
        if (Error error = catchUp(i); error != Error::Ok)
          return error;
    return Error::Ok;
  }

  /// Tensor \p i's own bytes made current from its blocked twin (a reorder
  /// step here), for a reader that needs them.
  Error catchUp(uint32_t i) {
    if (i >= twins.size() || !twins[i].nhwcBehind)
      return Error::Ok;
    Step step;
    if (Error error = makeReorder(twins[i].memory, memories[i], step);
        error != Error::Ok)
      return error;
    handle.steps.push_back(step);
    twins[i].nhwcBehind = false;
    return Error::Ok;
  }

  /// catchUp for every tensor \p node reads but its source when
  /// \p exceptSource.
  Error catchUpReads(const Node &node, bool exceptSource = false) {
    for (uint32_t k = exceptSource ? 1 : 0; k < node.inputs()->size(); ++k)
      if (Error error = catchUp(node.inputs()->Get(k)); error != Error::Ok)
        return error;
    if (node.post_ops())
      for (const PostOp *post : *node.post_ops())
        if (Error error = catchUp(post->operand()); error != Error::Ok)
          return error;
    return Error::Ok;
  }

private:
  Error describeTensor(uint32_t i, const Tensor &tensor) {
    if (!tensor.dims() || !runtime::hasAlignedElements(tensor.dims()))
      return fail("a tensor has no dims or misaligned dims");
    dims[i].assign(tensor.dims()->begin(), tensor.dims()->end());
    int64_t count = 1;
    for (int64_t dim : dims[i]) {
      if (dim <= 0 || dim > (int64_t(1) << 40) / count)
        return fail("a tensor has a dim that is not positive or too large");
      count *= dim;
    }
    if (tensor.datatype() > DataType::MAX)
      return fail("a tensor has an unknown data type");
    types[i] = tensor.datatype();
    if (!describe(dims[i], tensor.layout(), mds[i], dnnlType(types[i])))
      return fail("a tensor has a rank over 6 or is ChannelsLast and not "
                  "rank 4");
    bool quantized = types[i] != DataType::F32;
    if (quantized && !(tensor.scale() > 0 && std::isfinite(tensor.scale())))
      return fail("an 8-bit tensor has a scale that is not positive");
    if (tensor.channel_scales() &&
        (!quantized || !tensor.data_size() ||
         tensor.channel_scales()->size() != static_cast<size_t>(dims[i][0]) ||
         !std::all_of(
             tensor.channel_scales()->begin(), tensor.channel_scales()->end(),
             [](float scale) { return scale > 0 && std::isfinite(scale); })))
      return fail("channel scales belong to an 8-bit constant, one positive "
                  "scale per index of dim 0");
    size_t element = elementBytes(types[i]);
    uint64_t bytes = uint64_t(count) * element;
    if (tensor.data_size() &&
        (tensor.data_size() != bytes || tensor.data_offset() > dataSize ||
         tensor.data_size() > dataSize - tensor.data_offset() ||
         tensor.data_offset() % element))
      return fail("a constant tensor lies outside the constant section or "
                  "has the wrong size");
    int input = tensor.input(), output = tensor.output();
    if ((input >= 0 && static_cast<size_t>(input) >= inputs.size()) ||
        (output >= 0 && static_cast<size_t>(output) >= outputs.size()) ||
        (input >= 0 && output >= 0) ||
        ((input >= 0 || output >= 0) && tensor.data_size()))
      return fail("a tensor's delegate input/output index is out of range "
                  "or it is bound twice");
    if (tensor.nchw() &&
        (tensor.layout() != Layout::ChannelsLast || (input < 0 && output < 0)))
      return fail("only a ChannelsLast border tensor may be NCHW in the "
                  "program");
    return Error::Ok;
  }

  /// Every node writes a tensor no other node writes, that is neither a
  /// constant nor a delegate input; every delegate output is written.
  Error checkWriters() {
    const auto &tensors = *blob.tensors();
    const auto &nodes = *blob.nodes();
    for (uint32_t n = 0; n < nodes.size(); ++n) {
      const Node &node = *nodes.Get(n);
      if (!node.inputs() || node.inputs()->size() == 0)
        return fail("a node has no inputs");
      uint32_t out = node.output();
      if (out >= tensors.size() || writer[out] >= 0 ||
          tensors.Get(out)->data_size() || tensors.Get(out)->input() >= 0)
        return fail("a node writes a tensor that does not exist, is a "
                    "constant or input, or has another writer");
      writer[out] = static_cast<int>(n);
      for (uint32_t index : *node.inputs())
        if (index >= tensors.size() && index != kAbsentTensor)
          return fail("a node reads a tensor that does not exist");
      if (node.post_ops())
        for (const PostOp *post : *node.post_ops())
          if (post->operand() != kAbsentTensor &&
              post->operand() >= tensors.size())
            return fail("a post-op reads a tensor that does not exist");
    }
    std::vector<bool> bound(inputs.size() + outputs.size(), false);
    for (uint32_t i = 0; i < tensors.size(); ++i) {
      int input = tensors.Get(i)->input(), output = tensors.Get(i)->output();
      if (input < 0 && output < 0)
        continue;
      size_t slot = input >= 0 ? input : inputs.size() + output;
      if (bound[slot] || (output >= 0 && writer[i] < 0))
        return fail("a delegate input/output is bound twice, or an output "
                    "is never written");
      bound[slot] = true;
    }
    for (bool isBound : bound)
      if (!isBound)
        return fail("a delegate input/output has no blob tensor");
    return Error::Ok;
  }

  /// The sum post-op of \p node, or null (more than one: the first).
  static const PostOp *sumOf(const Node &node) {
    if (node.post_ops())
      for (const PostOp *post : *node.post_ops())
        if (post->sum())
          return post;
    return nullptr;
  }

  /// The tensor whose buffer holds \p i's bytes (through reshapes).
  uint32_t storageOf(uint32_t i) const {
    for (size_t hops = 0;
         i < writer.size() && isAlias(i) && hops < writer.size(); ++hops)
      i = blob.nodes()->Get(writer[i])->inputs()->Get(0);
    return i;
  }

  /// Whether node \p n or a later one reads \p storage's bytes other than
  /// as node \p n's sum operand.
  bool readFrom(uint32_t n, uint32_t storage) const {
    auto reads = [&](uint32_t tensor) {
      return tensor < writer.size() && storageOf(tensor) == storage;
    };
    const auto &nodes = *blob.nodes();
    for (uint32_t m = n; m < nodes.size(); ++m) {
      const Node &node = *nodes.Get(m);
      for (uint32_t input : *node.inputs())
        if (reads(input))
          return true;
      if (node.post_ops())
        for (const PostOp *post : *node.post_ops())
          if (!(m == n && post->sum()) && reads(post->operand()))
            return true;
    }
    return false;
  }

  /// A sum post-op accumulates into its node's result: the result takes
  /// over the operand's buffer when that is an intermediate buffer of the
  /// same size that nothing reads from the node on (a residual block's
  /// input); otherwise execute copies the operand there first.
  void planTakeOvers() {
    const auto &tensors = *blob.tensors();
    takesOver.assign(tensors.size(), kAbsentTensor);
    std::vector<bool> taken(tensors.size(), false);
    for (uint32_t n = 0; n < blob.nodes()->size(); ++n) {
      const Node &node = *blob.nodes()->Get(n);
      const PostOp *sum = sumOf(node);
      uint32_t out = node.output(), operand = sum ? sum->operand() : 0;
      if (!sum || operand >= tensors.size() || operand == out ||
          taken[operand] || writer[operand] < 0 ||
          writer[operand] >= static_cast<int>(n) || isAlias(operand))
        continue;
      const Tensor &from = *tensors.Get(operand), &to = *tensors.Get(out);
      if (from.output() >= 0 || to.output() >= 0 ||
          from.layout() != to.layout() || dims[operand] != dims[out] ||
          elementBytes(types[operand]) != elementBytes(types[out]) ||
          readFrom(n, operand))
        continue;
      takesOver[out] = operand;
      taken[operand] = true;
    }
  }

  /// A reshape's result shares its input's bytes unless it leaves the
  /// delegate.
  bool isAlias(uint32_t i) const {
    if (writer[i] < 0 || blob.tensors()->Get(i)->output() >= 0)
      return false;
    return blob.nodes()->Get(writer[i])->params_type() == NodeParams::Reshape;
  }

  Error bindTensor(uint32_t i, const Tensor &tensor) {
    size_t bytes = numel(dims[i]) * elementBytes(types[i]);
    if (tensor.data_size()) {
      pointers[i] = const_cast<uint8_t *>(data + tensor.data_offset());
    } else if (tensor.input() >= 0 || tensor.output() >= 0) {
      TensorView *view = tensor.input() >= 0 ? inputs[tensor.input()]
                                             : outputs[tensor.output()];
      if (!view || view->scalarType() != scalarType(types[i]) ||
          view->numel() != numel(dims[i]) ||
          (tensor.nchw() && view->rank() != 4))
        return fail("a border tensor differs from the program's tensor");
      if (tensor.input() >= 0)
        handle.inputElements[tensor.input()] = numel(dims[i]);
      if (!tensor.nchw()) {
        pointers[i] = view->data();
      } else {
        pointers[i] = handle.allocate(bytes);
        if (!pointers[i])
          return fail("cannot allocate a border staging buffer (memory "
                      "limit)");
        if (Error error = addBorderReorder(i, *view, tensor.input() >= 0);
            error != Error::Ok)
          return error;
      }
    } else if (takesOver[i] != kAbsentTensor) {
      pointers[i] = pointers[takesOver[i]];
    } else if (!isAlias(i)) {
      pointers[i] = handle.allocate(bytes);
      if (!pointers[i])
        return fail("cannot allocate an intermediate tensor (memory limit)");
    }
    if (pointers[i] && !(memories[i] = handle.addMemory(mds[i], pointers[i])))
      return fail("oneDNN rejected a tensor's memory");
    return Error::Ok;
  }

  /// NCHW program tensor <-> NHWC staging (tensor \p i).
  Error addBorderReorder(uint32_t i, TensorView &view, bool intoDelegate) {
    dnnl_memory_desc_t programMd;
    if (!describe(dims[i], Layout::Plain, programMd, dnnlType(types[i])))
      return fail("cannot describe a border tensor");
    dnnl_memory_t program = handle.addMemory(programMd, view.data());
    dnnl_memory_t staging = handle.addMemory(mds[i], pointers[i]);
    if (!program || !staging)
      return fail("oneDNN rejected a border tensor's memory");
    Step step;
    if (Error error = makeReorder(intoDelegate ? program : staging,
                                  intoDelegate ? staging : program, step);
        error != Error::Ok)
      return error;
    if (intoDelegate)
      borderReorders[i] = {handle.steps.size(), program};
    (intoDelegate ? handle.steps : handle.outputSteps).push_back(step);
    return Error::Ok;
  }

  Error makeReorder(dnnl_memory_t from, dnnl_memory_t to, Step &step) {
    const dnnl_memory_desc_t *fromMd, *toMd;
    dnnl_memory_get_memory_desc(from, &fromMd);
    dnnl_memory_get_memory_desc(to, &toMd);
    Creation creation;
    if (dnnl_reorder_primitive_desc_create(
            &creation.pd, fromMd, handle.device->engine, toMd,
            handle.device->engine, nullptr) != dnnl_success ||
        dnnl_primitive_create(&step.primitive, creation.pd) != dnnl_success)
      return fail("oneDNN cannot reorder between two layouts");
    step.args = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    return Error::Ok;
  }

  /// The input memory at \p index of \p node (must exist).
  dnnl_memory_t inputMemory(const Node &node, size_t index) {
    uint32_t tensor = node.inputs()->Get(index);
    if (tensor == kAbsentTensor)
      return nullptr;
    if (!memories[tensor] && isAlias(tensor))
      return nullptr; // a reshape not yet run: ordering is broken
    return memories[tensor];
  }

  /// Tensor \p tensor as an operand of a primitive whose result has
  /// \p target dims: its own descriptor at that rank, its plain bytes under
  /// \p target (an inner product flattens its leading dims), or its plain
  /// dims padded with leading 1s (broadcast).
  bool operandMd(uint32_t tensor, const Dims &target, dnnl_memory_desc_t &md) {
    const Dims &own = dims[tensor];
    if (own.size() == target.size()) {
      md = mds[tensor];
      return true;
    }
    if (blob.tensors()->Get(tensor)->layout() != Layout::Plain)
      return false;
    dnnl_data_type_t type = dnnlType(types[tensor]);
    if (numel(own) == numel(target))
      return describe(target, Layout::Plain, md, type);
    if (own.size() > target.size())
      return false;
    Dims padded(target.size() - own.size(), 1);
    padded.insert(padded.end(), own.begin(), own.end());
    return describe(padded, Layout::Plain, md, type);
  }

  /// Post-ops of \p node, whose primitive's result has \p resultDims, into
  /// \p creation, their operands into \p step.
  Error addPostOps(const Node &node, const Dims &resultDims, Creation &creation,
                   Step &step) {
    if (dnnl_primitive_attr_create(&creation.attr) != dnnl_success ||
        dnnl_primitive_attr_set_scratchpad_mode(
            creation.attr, dnnl_scratchpad_mode_user) != dnnl_success)
      return fail("cannot create primitive attributes");
    if (!node.post_ops() || node.post_ops()->size() == 0)
      return Error::Ok;
    if (dnnl_post_ops_create(&creation.postOps) != dnnl_success)
      return fail("cannot create post-ops");
    for (uint32_t k = 0; k < node.post_ops()->size(); ++k) {
      const PostOp &post = *node.post_ops()->Get(k);
      if (post.sum()) {
        if (Error error = addSum(node, post, creation); error != Error::Ok)
          return error;
        continue;
      }
      if (post.operand() == kAbsentTensor) {
        dnnl_alg_kind_t algorithm = eltwiseAlgorithm(post.eltwise());
        if (algorithm == dnnl_alg_kind_undef ||
            dnnl_post_ops_append_eltwise(creation.postOps, 1.0f, algorithm,
                                         post.alpha(),
                                         post.beta()) != dnnl_success)
          return fail("a post-op has an unknown eltwise algorithm");
        continue;
      }
      dnnl_memory_desc_t md;
      dnnl_alg_kind_t algorithm = binaryAlgorithm(post.binary());
      if (!memories[post.operand()] || algorithm == dnnl_alg_kind_undef ||
          !operandMd(post.operand(), resultDims, md) ||
          dnnl_post_ops_append_binary(creation.postOps, algorithm, &md) !=
              dnnl_success)
        return fail("a binary post-op has an operand of the wrong rank or "
                    "layout, not computed yet, or an unknown algorithm");
      dnnl_memory_t operand = memories[post.operand()];
      if (!dnnl_memory_desc_equal(&md, &mds[post.operand()]) &&
          !(operand = handle.addMemory(md, pointers[post.operand()])))
        return fail("oneDNN rejected a post-op operand's memory");
      step.args.push_back(
          {int(DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_SRC_1), operand});
    }
    if (dnnl_primitive_attr_set_post_ops(creation.attr, creation.postOps) !=
        dnnl_success)
      return fail("oneDNN rejected a node's post-ops");
    return Error::Ok;
  }

  /// oneDNN's sum post-op: the operand, in its scale and zero point, is
  /// added to the result, whose buffer must hold the operand's bytes by
  /// then (taken over, or copied by a step before the node's).
  Error addSum(const Node &node, const PostOp &post, Creation &creation) {
    uint32_t operand = post.operand(), out = node.output();
    if (operand >= dims.size() || operand == out || !pointers[operand] ||
        sumOf(node) != &post || dims[operand] != dims[out] ||
        elementBytes(types[operand]) != elementBytes(types[out]) ||
        blob.tensors()->Get(operand)->layout() !=
            blob.tensors()->Get(out)->layout() ||
        (writer[operand] >= 0 &&
         (!memories[operand] || writer[operand] >= writer[out])))
      return fail("a sum post-op's operand is not a computed tensor of its "
                  "node's dims, layout and element size, or is not the "
                  "node's only sum");
    dnnl_data_type_t reinterpreted = types[operand] == types[out]
                                         ? dnnl_data_type_undef
                                         : dnnlType(types[operand]);
    if (dnnl_post_ops_append_sum_v3(
            creation.postOps, scaleOf(operand) / scaleOf(out),
            zeroPointOf(operand), reinterpreted) != dnnl_success)
      return fail("oneDNN rejects a sum post-op");
    pendingSum = operand; // finishPrimitive fills the result with it
    return Error::Ok;
  }

  /// Before a node with a sum post-op: \p operand's bytes into \p dst, the
  /// node's result memory (nothing when the result took its buffer over).
  Error fillSumDestination(uint32_t operand, dnnl_memory_t dst) {
    const dnnl_memory_desc_t *dstMd;
    dnnl_memory_get_memory_desc(dst, &dstMd);
    const BlockedTwin &twin = twins[operand];
    dnnl_memory_t from = memories[operand];
    if (twin.memory && (twin.nhwcBehind || sameLayout(twin.memory, *dstMd)))
      from = twin.memory;
    void *fromData = nullptr, *dstData = nullptr;
    dnnl_memory_get_data_handle(from, &fromData);
    dnnl_memory_get_data_handle(dst, &dstData);
    if (fromData == dstData)
      return Error::Ok;
    Step fill;
    if (sameLayout(from, *dstMd)) {
      fill.copyFrom = fromData;
      fill.copyTo = dstData;
      fill.copyBytes = dnnl_memory_desc_get_size(dstMd);
    } else if (Error error = makeReorder(from, dst, fill); error != Error::Ok) {
      return error;
    }
    handle.steps.push_back(fill);
    return Error::Ok;
  }

  static bool sameLayout(dnnl_memory_t memory, const dnnl_memory_desc_t &md) {
    const dnnl_memory_desc_t *own;
    dnnl_memory_get_memory_desc(memory, &own);
    return dnnl_memory_desc_equal(own, &md);
  }

  /// The primitive descriptor of \p desc (a oneDNN op descriptor) with
  /// \p node's post-ops and, for an int8 convolution, its requantization;
  /// \p missing says what oneDNN lacks when it has no implementation.
  Error describePrimitive(const Node &node, const Dims &resultDims,
                          const void *desc, Creation &creation, Step &step,
                          const char *missing, bool int8 = false,
                          const char *preferred = nullptr) {
    if (Error error = addPostOps(node, resultDims, creation, step);
        error != Error::Ok)
      return error;
    if (int8)
      if (Error error = addInt8Scaling(node, creation, step);
          error != Error::Ok)
        return error;
    if (preferred &&
        (creation.pd = preferredImplementation(desc, creation.attr, preferred)))
      return Error::Ok;
    if (dnnl_primitive_desc_create(&creation.pd, desc, creation.attr,
                                   handle.device->engine,
                                   nullptr) != dnnl_success)
      return fail(missing);
    return Error::Ok;
  }

  /// The descriptor of oneDNN's first implementation of \p desc whose name
  /// starts with \p prefix, or null (then its own first choice stands).
  dnnl_primitive_desc_t
  preferredImplementation(const void *desc, const_dnnl_primitive_attr_t attr,
                          const char *prefix) {
    dnnl_primitive_desc_iterator_t it = nullptr;
    if (dnnl_primitive_desc_iterator_create(
            &it, desc, attr, handle.device->engine, nullptr) != dnnl_success)
      return nullptr;
    dnnl_primitive_desc_t found = nullptr;
    do {
      dnnl_primitive_desc_t pd = dnnl_primitive_desc_iterator_fetch(it);
      const char *name = nullptr;
      if (pd &&
          dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) ==
              dnnl_success &&
          name && std::strncmp(name, prefix, std::strlen(prefix)) == 0)
        found = pd;
      else if (pd)
        dnnl_primitive_desc_destroy(pd);
    } while (!found && dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
    return found;
  }

  /// Creates the primitive of \p creation's descriptor and its scratchpad.
  Error finishPrimitive(Creation &creation, Step &step) {
    if (dnnl_primitive_create(&step.primitive, creation.pd) != dnnl_success)
      return fail("oneDNN cannot create a primitive");
    if (uint32_t operand = std::exchange(pendingSum, kAbsentTensor);
        operand != kAbsentTensor) {
      auto dst = std::find_if(
          step.args.begin(), step.args.end(),
          [](const dnnl_exec_arg_t &arg) { return arg.arg == DNNL_ARG_DST; });
      Error error = dst == step.args.end()
                        ? fail("a node with a sum post-op has no result")
                        : fillSumDestination(operand, dst->memory);
      if (error != Error::Ok) {
        dnnl_primitive_destroy(step.primitive);
        return error;
      }
    }
    handle.steps.push_back(step); // owns the primitive from here
    const dnnl_memory_desc_t *scratchpad =
        dnnl_primitive_desc_query_md(creation.pd, dnnl_query_scratchpad_md, 0);
    size_t bytes = scratchpad ? dnnl_memory_desc_get_size(scratchpad) : 0;
    if (bytes) {
      void *buffer = handle.allocate(bytes);
      dnnl_memory_t memory =
          buffer ? handle.addMemory(*scratchpad, buffer) : nullptr;
      if (!memory)
        return fail("cannot allocate a primitive's scratchpad");
      handle.steps.back().args.push_back({DNNL_ARG_SCRATCHPAD, memory});
    }
    return Error::Ok;
  }

  /// Weights as the primitive wants them: reordered once, here.
  Error weightsMemory(Creation &creation, const dnnl_memory_desc_t &userMd,
                      uint32_t tensor, dnnl_memory_t &memory) {
    const dnnl_memory_desc_t *wanted =
        dnnl_primitive_desc_query_md(creation.pd, dnnl_query_weights_md, 0);
    dnnl_memory_t user = handle.addMemory(userMd, pointers[tensor]);
    if (!wanted || !user)
      return fail("oneDNN rejected a weights tensor");
    if (dnnl_memory_desc_equal(wanted, &userMd)) {
      memory = user;
      return Error::Ok;
    }
    void *buffer = handle.allocate(dnnl_memory_desc_get_size(wanted));
    memory = buffer ? handle.addMemory(*wanted, buffer) : nullptr;
    if (!memory)
      return fail("cannot allocate reordered weights");
    Step reorder;
    if (Error error = makeReorder(user, memory, reorder); error != Error::Ok)
      return error;
    dnnl_status_t status = dnnl_primitive_execute(
        reorder.primitive, handle.device->stream,
        static_cast<int>(reorder.args.size()), reorder.args.data());
    dnnl_primitive_destroy(reorder.primitive);
    if (status != dnnl_success ||
        dnnl_stream_wait(handle.device->stream) != dnnl_success)
      return fail("reordering weights failed");
    return Error::Ok;
  }

  Error buildNode(const Node &node) {
    // The flatbuffers verifier accepts a union's type without its table.
    if (!node.params())
      return fail("a node has no parameters");
    if (node.params_type() != NodeParams::Convolution)
      if (Error error = catchUpReads(node); error != Error::Ok)
        return error;
    switch (node.params_type()) {
    case NodeParams::Convolution:
      return buildConvolution(node, *node.params_as_Convolution());
    case NodeParams::InnerProduct:
      return buildInnerProduct(node);
    case NodeParams::Pool:
      return buildPool(node, *node.params_as_Pool());
    case NodeParams::BinaryOp:
      return buildBinary(node, *node.params_as_BinaryOp());
    case NodeParams::EltwiseOp:
      return buildEltwise(node, *node.params_as_EltwiseOp());
    case NodeParams::Reshape:
      return buildReshape(node);
    case NodeParams::Convert:
      return buildConvert(node);
    default:
      return fail("a node has no parameters");
    }
  }

  /// Reads a pair of 2-D window values; \p offset is subtracted (ATen's
  /// dilation 1 is oneDNN's 0).
  static bool pair(const flatbuffers::Vector<int64_t> *values, int64_t low,
                   int64_t offset, dnnl_dims_t out) {
    if (!values || values->size() != 2)
      return false;
    for (int i = 0; i < 2; ++i) {
      if (values->Get(i) < low || values->Get(i) > (int64_t(1) << 30))
        return false;
      out[i] = values->Get(i) - offset;
    }
    return true;
  }

  Error buildConvolution(const Node &node, const Convolution &params) {
    if (node.inputs()->size() != 3)
      return fail("a convolution needs source, weights and bias");
    dnnl_memory_t src = inputMemory(node, 0);
    uint32_t weights = node.inputs()->Get(1), bias = node.inputs()->Get(2);
    uint32_t out = node.output();
    dnnl_dims_t strides, dilations, padBegin, padEnd;
    if (!src || weights == kAbsentTensor ||
        !blob.tensors()->Get(weights)->data_size() ||
        dims[weights].size() != 4 || dims[out].size() != 4 ||
        dims[node.inputs()->Get(0)].size() != 4 ||
        !pair(params.strides(), 1, 0, strides) ||
        !pair(params.dilations(), 1, 1, dilations) ||
        !pair(params.pad_begin(), 0, 0, padBegin) ||
        !pair(params.pad_end(), 0, 0, padEnd))
      return fail("a convolution has a missing or non-constant rank-4 "
                  "weight, ranks other than 4, or a bad window");
    int64_t groups = params.groups();
    const Dims &w = dims[weights];
    if (groups < 1 || w[0] % groups)
      return fail("a convolution's groups do not divide its output channels");
    // An 8-bit source makes an int8 convolution: int8 weights then.
    bool int8 = types[node.inputs()->Get(0)] != DataType::F32;
    if (types[weights] != (int8 ? DataType::S8 : DataType::F32))
      return fail("a convolution's weights are not int8 for an 8-bit source "
                  "or float for a float one");
    Dims logical = w;
    if (groups > 1)
      logical = {groups, w[0] / groups, w[1], w[2], w[3]};
    dnnl_memory_desc_t userWeights, anyWeights, biasMd;
    dnnl_data_type_t weightType = dnnlType(types[weights]);
    dnnl_memory_desc_init_by_tag(&userWeights, int(logical.size()),
                                 logical.data(), weightType,
                                 groups > 1 ? dnnl_abcde : dnnl_abcd);
    dnnl_memory_desc_init_by_tag(&anyWeights, int(logical.size()),
                                 logical.data(), weightType,
                                 dnnl_format_tag_any);
    bool hasBias = bias != kAbsentTensor;
    if (hasBias && (!blob.tensors()->Get(bias)->data_size() ||
                    dims[bias] != Dims{w[0]} || types[bias] != DataType::F32))
      return fail("a convolution's bias is not a float constant of its "
                  "output channels");
    if (hasBias)
      biasMd = mds[bias];
    if (winogradWins(int8, groups, w, strides, dilations)) {
      bool built = false;
      if (Error error =
              tryWinograd(node, userWeights, hasBias ? &biasMd : nullptr,
                          strides, padBegin, padEnd, built);
          error != Error::Ok || built)
        return error;
    }
    if (Error error = catchUpReads(node); error != Error::Ok)
      return error;
    dnnl_convolution_desc_t desc;
    Creation creation;
    Step step;
    if (dnnl_dilated_convolution_forward_desc_init(
            &desc, dnnl_forward_inference, dnnl_convolution_direct,
            &mds[node.inputs()->Get(0)], &anyWeights,
            hasBias ? &biasMd : nullptr, &mds[out], strides, dilations,
            padBegin, padEnd) != dnnl_success)
      return fail("oneDNN rejects the convolution's shapes");
    // Float depthwise: jit_dw beat brdgmm_dw, oneDNN's first choice, on
    // every mobilenet_v2 layer (docs/targets.md).
    bool depthwise = groups > 1 && w[0] == groups && w[1] == 1;
    if (Error error = describePrimitive(
            node, dims[out], &desc, creation, step,
            "oneDNN has no convolution for these shapes and post-ops", int8,
            depthwise && !int8 ? "jit_dw" : nullptr);
        error != Error::Ok)
      return error;
    dnnl_memory_t weightsMemory_;
    if (Error error =
            weightsMemory(creation, userWeights, weights, weightsMemory_);
        error != Error::Ok)
      return error;
    step.args.push_back({DNNL_ARG_SRC, src});
    step.args.push_back({DNNL_ARG_WEIGHTS, weightsMemory_});
    if (hasBias)
      step.args.push_back({DNNL_ARG_BIAS, memories[bias]});
    step.args.push_back({DNNL_ARG_DST, memories[out]});
    return finishPrimitive(creation, step);
  }

  /// Winograd (F(4x4, 3x3) / F(2x2, 3x3)) where it beat the direct brgconv
  /// kernels per layer on this project's AVX-512 machines (docs/targets.md:
  /// 1.5-3x on resnet18's 3x3 layers): float 3x3 stride-1 dense
  /// convolutions of at least 64 channels in and out. oneDNN transforms
  /// Winograd weights on one thread at init (4 ms for 128x128x3x3, 40 ms
  /// for 512x512x3x3), so by default only layers of at most 128x128
  /// channels, keeping load + init far below ORT's session creation;
  /// ETCH_ONEDNN_WINOGRAD=all takes every size, =0 none.
  static bool winogradWins(bool int8, int64_t groups, const Dims &weights,
                           const dnnl_dims_t strides,
                           const dnnl_dims_t dilations) {
    static const int64_t largest = [] {
      const char *setting = std::getenv("ETCH_ONEDNN_WINOGRAD");
      if (setting && std::strcmp(setting, "0") == 0)
        return int64_t(0);
      if (setting && std::strcmp(setting, "all") == 0)
        return std::numeric_limits<int64_t>::max();
      return int64_t(128 * 128);
    }();
    return !int8 && groups == 1 && weights[0] >= 64 && weights[1] >= 64 &&
           weights[0] * weights[1] <= largest && weights[2] == 3 &&
           weights[3] == 3 && strides[0] == 1 && strides[1] == 1 &&
           dilations[0] == 0 && dilations[1] == 0;
  }

  /// \p node as a Winograd convolution on blocked activations: the source
  /// from its blocked twin (made by a reorder if it has none), the result
  /// into a new twin. \p built stays false where oneDNN has no Winograd
  /// kernel for the shapes and post-ops.
  Error tryWinograd(const Node &node, const dnnl_memory_desc_t &userWeights,
                    const dnnl_memory_desc_t *biasMd, const dnnl_dims_t strides,
                    const dnnl_dims_t padBegin, const dnnl_dims_t padEnd,
                    bool &built) {
    uint32_t src = node.inputs()->Get(0), out = node.output();
    dnnl_memory_desc_t anySrc, anyDst, anyWeights;
    dnnl_memory_desc_init_by_tag(&anySrc, 4, dims[src].data(), dnnl_f32,
                                 dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&anyDst, 4, dims[out].data(), dnnl_f32,
                                 dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&anyWeights, 4, userWeights.dims, dnnl_f32,
                                 dnnl_format_tag_any);
    dnnl_convolution_desc_t desc;
    Creation creation;
    Step step;
    if (dnnl_convolution_forward_desc_init(
            &desc, dnnl_forward_inference, dnnl_convolution_winograd, &anySrc,
            &anyWeights, biasMd, &anyDst, strides, padBegin,
            padEnd) != dnnl_success)
      return Error::Ok;
    if (Error error = addPostOps(node, dims[out], creation, step);
        error != Error::Ok)
      return error;
    if (dnnl_primitive_desc_create(&creation.pd, &desc, creation.attr,
                                   handle.device->engine,
                                   nullptr) != dnnl_success) {
      pendingSum = kAbsentTensor;
      return Error::Ok;
    }
    // Every other read (post-op operands) wants the NHWC bytes.
    if (Error error = catchUpReads(node, /*exceptSource=*/true);
        error != Error::Ok)
      return error;
    const dnnl_memory_desc_t *srcMd =
        dnnl_primitive_desc_query_md(creation.pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *dstMd =
        dnnl_primitive_desc_query_md(creation.pd, dnnl_query_dst_md, 0);
    dnnl_memory_t source = twins[src].memory, result = nullptr;
    if (!source || !sameLayout(source, *srcMd)) {
      void *buffer = handle.allocate(dnnl_memory_desc_get_size(srcMd));
      source = buffer ? handle.addMemory(*srcMd, buffer) : nullptr;
      Step reorder;
      if (!source)
        return fail("cannot allocate a blocked source");
      if (Error error = catchUp(src); error != Error::Ok)
        return error;
      if (Error error = makeReorder(memories[src], source, reorder);
          error != Error::Ok)
        return error;
      handle.steps.push_back(reorder);
      if (!twins[src].memory)
        twins[src] = {source, false};
    }
    void *buffer = handle.allocate(dnnl_memory_desc_get_size(dstMd));
    if (!buffer || !(result = handle.addMemory(*dstMd, buffer)))
      return fail("cannot allocate a blocked result");
    dnnl_memory_t weightMemory;
    if (Error error = weightsMemory(creation, userWeights,
                                    node.inputs()->Get(1), weightMemory);
        error != Error::Ok)
      return error;
    step.args.push_back({DNNL_ARG_SRC, source});
    step.args.push_back({DNNL_ARG_WEIGHTS, weightMemory});
    if (biasMd)
      step.args.push_back({DNNL_ARG_BIAS, memories[node.inputs()->Get(2)]});
    step.args.push_back({DNNL_ARG_DST, result});
    if (Error error = finishPrimitive(creation, step); error != Error::Ok)
      return error;
    twins[out] = {result, true};
    built = true;
    return Error::Ok;
  }

  /// The scale of tensor \p i (1 for float values).
  float scaleOf(uint32_t i) const {
    return types[i] == DataType::F32 ? 1.0f : blob.tensors()->Get(i)->scale();
  }
  int32_t zeroPointOf(uint32_t i) const {
    return types[i] == DataType::F32 ? 0 : blob.tensors()->Get(i)->zero_point();
  }

  /// A zero point oneDNN reads at execute (its convolutions take only
  /// run-time ones): an s32 memory bound to \p arg's zero-point argument.
  Error addZeroPoint(Creation &creation, Step &step, int arg, int32_t value) {
    static const int32_t kRuntime = DNNL_RUNTIME_S32_VAL;
    if (!value)
      return Error::Ok;
    dnnl_memory_desc_t md;
    Dims one = {1};
    void *buffer = handle.allocate(sizeof(int32_t));
    if (!buffer ||
        dnnl_memory_desc_init_by_tag(&md, 1, one.data(), dnnl_s32, dnnl_a) !=
            dnnl_success ||
        dnnl_primitive_attr_set_zero_points(creation.attr, arg, 1, 0,
                                            &kRuntime) != dnnl_success)
      return fail("oneDNN rejects a zero point");
    std::memcpy(buffer, &value, sizeof(value));
    dnnl_memory_t memory = handle.addMemory(md, buffer);
    if (!memory)
      return fail("oneDNN rejected a zero point's memory");
    step.args.push_back({DNNL_ARG_ATTR_ZERO_POINTS | arg, memory});
    return Error::Ok;
  }

  /// An int8 convolution's or inner product's requantization: per output
  /// channel, source scale * weight scale / result scale, and the zero points.
  Error addInt8Scaling(const Node &node, Creation &creation, Step &step) {
    uint32_t src = node.inputs()->Get(0), weights = node.inputs()->Get(1);
    uint32_t out = node.output();
    const Convolution *conv = node.params_as_Convolution();
    float resultScale = conv && conv->requantize_scale() != 0
                            ? conv->requantize_scale()
                            : scaleOf(out);
    if (!(resultScale > 0 && std::isfinite(resultScale)))
      return fail("an int8 convolution's requantization scale is not "
                  "positive");
    const Tensor &weightTensor = *blob.tensors()->Get(weights);
    std::vector<float> scales(dims[weights][0], weightTensor.scale());
    if (weightTensor.channel_scales())
      scales.assign(weightTensor.channel_scales()->begin(),
                    weightTensor.channel_scales()->end());
    for (float &scale : scales)
      scale *= scaleOf(src) / resultScale;
    if (weightTensor.zero_point() ||
        dnnl_primitive_attr_set_output_scales(
            creation.attr, static_cast<dnnl_dim_t>(scales.size()), 1 << 1,
            scales.data()) != dnnl_success)
      return fail("an int8 convolution's weights are not symmetric, or "
                  "oneDNN rejects its scales");
    if (Error error =
            addZeroPoint(creation, step, DNNL_ARG_SRC, zeroPointOf(src));
        error != Error::Ok)
      return error;
    return addZeroPoint(creation, step, DNNL_ARG_DST, zeroPointOf(out));
  }

  /// Quantize, dequantize or requantize: a reorder that scales by the
  /// input's scale over the output's and moves the zero points.
  Error buildConvert(const Node &node) {
    uint32_t in = node.inputs()->Get(0), out = node.output();
    if (node.inputs()->size() != 1 || in == kAbsentTensor || !memories[in] ||
        dims[in] != dims[out] || (node.post_ops() && node.post_ops()->size()))
      return fail("a conversion needs one computed input of its result's "
                  "dims");
    // An NCHW program input read only here: one reorder from the
    // program's tensor, in place of the border reorder's.
    dnnl_memory_t from = memories[in];
    int replaces = -1;
    if (auto it = borderReorders.find(in);
        it != borderReorders.end() && readerCount(in) == 1) {
      replaces = it->second.step;
      from = it->second.program;
    }
    const dnnl_memory_desc_t *fromMd;
    dnnl_memory_get_memory_desc(from, &fromMd);
    Creation creation;
    float scale = scaleOf(in) / scaleOf(out);
    int32_t inZero = zeroPointOf(in), outZero = zeroPointOf(out);
    if (dnnl_primitive_attr_create(&creation.attr) != dnnl_success ||
        dnnl_primitive_attr_set_output_scales(creation.attr, 1, 0, &scale) !=
            dnnl_success ||
        (inZero &&
         dnnl_primitive_attr_set_zero_points(creation.attr, DNNL_ARG_SRC, 1, 0,
                                             &inZero) != dnnl_success) ||
        (outZero &&
         dnnl_primitive_attr_set_zero_points(creation.attr, DNNL_ARG_DST, 1, 0,
                                             &outZero) != dnnl_success))
      return fail("oneDNN rejects a conversion's scale or zero points");
    Step step;
    if (dnnl_reorder_primitive_desc_create(
            &creation.pd, fromMd, handle.device->engine, &mds[out],
            handle.device->engine, creation.attr) != dnnl_success ||
        dnnl_primitive_create(&step.primitive, creation.pd) != dnnl_success)
      return fail("oneDNN has no conversion between these data types");
    step.args = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, memories[out]}};
    if (replaces < 0) {
      handle.steps.push_back(step);
      return Error::Ok;
    }
    dnnl_primitive_destroy(handle.steps[replaces].primitive);
    handle.steps[replaces] = step;
    return Error::Ok;
  }

  /// How many times nodes read tensor \p i (inputs and post-op operands).
  size_t readerCount(uint32_t i) const {
    size_t count = 0;
    for (const Node *node : *blob.nodes()) {
      count += std::count(node->inputs()->begin(), node->inputs()->end(), i);
      if (node->post_ops())
        for (const PostOp *post : *node->post_ops())
          count += post->operand() == i;
    }
    return count;
  }

  Error buildInnerProduct(const Node &node) {
    if (node.inputs()->size() != 3)
      return fail("an inner product needs source, weights and bias");
    uint32_t in = node.inputs()->Get(0), weights = node.inputs()->Get(1),
             bias = node.inputs()->Get(2), out = node.output();
    // An 8-bit source makes an int8 inner product: int8 weights then.
    bool int8 = inputMemory(node, 0) && types[in] != DataType::F32;
    if (!inputMemory(node, 0) || weights == kAbsentTensor ||
        !blob.tensors()->Get(weights)->data_size() ||
        dims[weights].size() != 2 ||
        types[weights] != (int8 ? DataType::S8 : DataType::F32))
      return fail("an inner product needs a source and constant [out, in] "
                  "weights, int8 for an 8-bit source and float otherwise");
    int64_t outChannels = dims[weights][0], inChannels = dims[weights][1];
    int64_t rows = numel(dims[in]) / inChannels;
    if (dims[in].back() != inChannels || dims[out].back() != outChannels ||
        numel(dims[out]) != rows * outChannels ||
        !sameBytesEitherWay(dims[in]) || !sameBytesEitherWay(dims[out]))
      return fail("an inner product's source, weights and result disagree");
    bool hasBias = bias != kAbsentTensor;
    if (hasBias &&
        (!blob.tensors()->Get(bias)->data_size() ||
         dims[bias] != Dims{outChannels} || types[bias] != DataType::F32))
      return fail("an inner product's bias is not a constant of its outputs");
    Dims srcDims = {rows, inChannels}, dstDims = {rows, outChannels};
    dnnl_memory_desc_t srcMd, dstMd, userWeights, anyWeights;
    dnnl_data_type_t weightType = dnnlType(types[weights]);
    describe(srcDims, Layout::Plain, srcMd, dnnlType(types[in]));
    describe(dstDims, Layout::Plain, dstMd, dnnlType(types[out]));
    describe(dims[weights], Layout::Plain, userWeights, weightType);
    dnnl_memory_desc_init_by_tag(&anyWeights, 2, dims[weights].data(),
                                 weightType, dnnl_format_tag_any);
    dnnl_inner_product_desc_t desc;
    Creation creation;
    Step step;
    if (dnnl_inner_product_forward_desc_init(
            &desc, dnnl_forward_inference, &srcMd, &anyWeights,
            hasBias ? &mds[bias] : nullptr, &dstMd) != dnnl_success)
      return fail("oneDNN rejects the inner product's shapes");
    if (Error error = describePrimitive(
            node, dstDims, &desc, creation, step,
            "oneDNN has no inner product for these shapes, types and post-ops",
            int8);
        error != Error::Ok)
      return error;
    dnnl_memory_t weightsMemory_;
    if (Error error =
            weightsMemory(creation, userWeights, weights, weightsMemory_);
        error != Error::Ok)
      return error;
    dnnl_memory_t src = handle.addMemory(srcMd, pointers[in]);
    dnnl_memory_t dst = handle.addMemory(dstMd, pointers[out]);
    if (!src || !dst)
      return fail("oneDNN rejected an inner product's memory");
    step.args.push_back({DNNL_ARG_SRC, src});
    step.args.push_back({DNNL_ARG_WEIGHTS, weightsMemory_});
    if (hasBias)
      step.args.push_back({DNNL_ARG_BIAS, memories[bias]});
    step.args.push_back({DNNL_ARG_DST, dst});
    return finishPrimitive(creation, step);
  }

  Error buildPool(const Node &node, const Pool &params) {
    uint32_t out = node.output();
    dnnl_memory_t src = inputMemory(node, 0);
    dnnl_dims_t kernel, strides, dilations, padBegin, padEnd;
    static constexpr dnnl_alg_kind_t kAlgorithms[] = {
        dnnl_pooling_max, dnnl_pooling_avg_include_padding,
        dnnl_pooling_avg_exclude_padding};
    if (node.inputs()->size() != 1 || !src ||
        dims[node.inputs()->Get(0)].size() != 4 || dims[out].size() != 4 ||
        params.algorithm() > Pooling::MAX ||
        !pair(params.kernel(), 1, 0, kernel) ||
        !pair(params.strides(), 1, 0, strides) ||
        !pair(params.dilations(), 1, 1, dilations) ||
        !pair(params.pad_begin(), 0, 0, padBegin) ||
        !pair(params.pad_end(), 0, 0, padEnd))
      return fail("a pooling has other than one rank-4 input or a bad "
                  "window");
    uint32_t in = node.inputs()->Get(0);
    if ((types[in] != DataType::F32 || types[out] != DataType::F32) &&
        (types[in] != types[out] || scaleOf(in) != scaleOf(out) ||
         zeroPointOf(in) != zeroPointOf(out)))
      return fail("an 8-bit pooling must keep its input's data type, scale "
                  "and zero point");
    dnnl_pooling_v2_desc_t desc;
    Creation creation;
    Step step;
    if (dnnl_pooling_v2_forward_desc_init(
            &desc, dnnl_forward_inference,
            kAlgorithms[static_cast<int>(params.algorithm())],
            &mds[node.inputs()->Get(0)], &mds[out], strides, kernel, dilations,
            padBegin, padEnd) != dnnl_success)
      return fail("oneDNN rejects the pooling's shapes");
    if (Error error =
            describePrimitive(node, dims[out], &desc, creation, step,
                              "oneDNN has no pooling for these shapes");
        error != Error::Ok)
      return error;
    step.args.push_back({DNNL_ARG_SRC, src});
    step.args.push_back({DNNL_ARG_DST, memories[out]});
    return finishPrimitive(creation, step);
  }

  Error buildBinary(const Node &node, const BinaryOp &params) {
    uint32_t out = node.output();
    dnnl_memory_t lhs =
        node.inputs()->size() == 2 ? inputMemory(node, 0) : nullptr;
    dnnl_memory_t rhs = lhs ? inputMemory(node, 1) : nullptr;
    dnnl_alg_kind_t algorithm = binaryAlgorithm(params.algorithm());
    dnnl_memory_desc_t rhsMd;
    uint32_t rhsTensor = rhs ? node.inputs()->Get(1) : 0;
    if (!rhs || algorithm == dnnl_alg_kind_undef ||
        dims[node.inputs()->Get(0)] != dims[out] ||
        !operandMd(rhsTensor, dims[out], rhsMd))
      return fail("a binary op needs two inputs, the first of the result's "
                  "dims, the second broadcastable to them");
    if (!dnnl_memory_desc_equal(&rhsMd, &mds[rhsTensor]) &&
        !(rhs = handle.addMemory(rhsMd, pointers[rhsTensor])))
      return fail("oneDNN rejected a binary operand's memory");
    dnnl_binary_desc_t desc;
    Creation creation;
    Step step;
    if (dnnl_binary_desc_init(&desc, algorithm, &mds[node.inputs()->Get(0)],
                              &rhsMd, &mds[out]) != dnnl_success)
      return fail("oneDNN rejects the binary op's shapes");
    if (Error error =
            describePrimitive(node, dims[out], &desc, creation, step,
                              "oneDNN has no binary op for these shapes");
        error != Error::Ok)
      return error;
    step.args.push_back({DNNL_ARG_SRC_0, lhs});
    step.args.push_back({DNNL_ARG_SRC_1, rhs});
    step.args.push_back({DNNL_ARG_DST, memories[out]});
    return finishPrimitive(creation, step);
  }

  Error buildEltwise(const Node &node, const EltwiseOp &params) {
    uint32_t out = node.output();
    dnnl_memory_t src =
        node.inputs()->size() == 1 ? inputMemory(node, 0) : nullptr;
    dnnl_alg_kind_t algorithm = eltwiseAlgorithm(params.algorithm());
    if (!src || algorithm == dnnl_alg_kind_undef ||
        !dnnl_memory_desc_equal(&mds[node.inputs()->Get(0)], &mds[out]))
      return fail("an eltwise op needs one input laid out as its result");
    dnnl_eltwise_desc_t desc;
    Creation creation;
    Step step;
    if (dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference, algorithm,
                                       &mds[out], params.alpha(),
                                       params.beta()) != dnnl_success)
      return fail("oneDNN rejects the eltwise op");
    if (Error error =
            describePrimitive(node, dims[out], &desc, creation, step,
                              "oneDNN has no eltwise op for this algorithm");
        error != Error::Ok)
      return error;
    step.args.push_back({DNNL_ARG_SRC, src});
    step.args.push_back({DNNL_ARG_DST, memories[out]});
    return finishPrimitive(creation, step);
  }

  /// The result views the input's bytes; one leaving the delegate is a
  /// copy.
  Error buildReshape(const Node &node) {
    uint32_t in = node.inputs()->Get(0), out = node.output();
    if (node.inputs()->size() != 1 || in == kAbsentTensor || !pointers[in] ||
        (node.post_ops() && node.post_ops()->size()) ||
        numel(dims[in]) != numel(dims[out]) || !sameBytesEitherWay(dims[in]) ||
        !sameBytesEitherWay(dims[out]) || types[in] != types[out] ||
        scaleOf(in) != scaleOf(out) || zeroPointOf(in) != zeroPointOf(out))
      return fail("a reshape needs one computed input of as many elements "
                  "and the same data type, scale and zero point, whose "
                  "layouts hold the same bytes");
    if (pointers[out]) {
      Step copy;
      copy.copyFrom = pointers[in];
      copy.copyTo = pointers[out];
      copy.copyBytes = numel(dims[out]) * elementBytes(types[out]);
      handle.steps.push_back(copy);
      return Error::Ok;
    }
    pointers[out] = pointers[in];
    if (!(memories[out] = handle.addMemory(mds[out], pointers[out])))
      return fail("oneDNN rejected a reshape's memory");
    return Error::Ok;
  }

  const Blob &blob;
  const uint8_t *data; // the constant section
  uint64_t dataSize;
  Handle &handle;
  Span<TensorView *> inputs, outputs;
  std::vector<Dims> dims;
  std::vector<DataType> types;
  std::vector<dnnl_memory_desc_t> mds;
  std::vector<void *> pointers;
  std::vector<dnnl_memory_t> memories;
  std::vector<int> writer; // the node writing each tensor, or -1
  // The sum operand whose buffer each result takes over, or kAbsentTensor.
  std::vector<uint32_t> takesOver;
  // Set by a sum post-op, consumed by finishPrimitive.
  uint32_t pendingSum = kAbsentTensor;
  /// A tensor's copy in the blocked layout Winograd convolutions read and
  /// write (oneDNN offers Winograd only on blocked activations). A
  /// Winograd result lives there first: its own (NHWC) bytes are behind
  /// until a reader needs them (catchUp).
  struct BlockedTwin {
    dnnl_memory_t memory = nullptr;
    bool nhwcBehind = false;
  };
  std::vector<BlockedTwin> twins; // per tensor
  struct BorderReorder {
    size_t step;           // in handle.steps
    dnnl_memory_t program; // the NCHW program tensor
  };
  std::unordered_map<uint32_t, BorderReorder> borderReorders; // by tensor
};

/// One thread (oneDNN then runs on the caller, no OpenMP team) when the
/// method mixes targets or XNNPACK's pool already runs etch's kernels: two
/// pools spinning on the same cores made a mixed encoder block 120x slower
/// (docs/targets.md); otherwise delegateThreadCount.
int preferredThreads(Span<const runtime::CompileSpec> specs) {
  for (const runtime::CompileSpec &spec : specs)
    if (std::strcmp(spec.key, "mixed_targets") == 0)
      return 1;
  if (runtime::optimized::ThreadPool::shared().isLent())
    return 1;
  return static_cast<int>(runtime::delegateThreadCount(specs));
}

class OnednnBackend : public runtime::Backend {
public:
  Result<void *> init(Span<const uint8_t> bytes,
                      Span<const runtime::CompileSpec> specs,
                      Span<TensorView *> inputs,
                      Span<TensorView *> outputs) override {
    runtime::FramedBlob framed;
    if (std::string problem = runtime::openBlob<VerifyBlobBuffer>(
            bytes, kBlobMagic, kBlobVersion, framed);
        !problem.empty())
      return fail(problem.c_str());
    const Blob *blob = GetBlob(framed.flatbuffer);
    if (!blob->tensors() || !blob->nodes() ||
        blob->input_count() != inputs.size() ||
        blob->output_count() != outputs.size())
      return fail("blob inputs/outputs differ from the delegate call's");
    std::unique_ptr<Handle> handle(new Handle());
    handle->device = Device::get();
    if (!handle->device)
      return fail("cannot create the oneDNN CPU engine");
    handle->threads = preferredThreads(specs);
    handle->inputElements.resize(inputs.size());
    omp_set_num_threads(handle->threads);
    Builder builder(*blob, framed.constants, framed.constantsSize, *handle,
                    inputs, outputs);
    if (Error error = builder.build(); error != Error::Ok)
      return error;
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

  void destroy(void *opaque) override { delete static_cast<Handle *>(opaque); }

private:
  static Error run(Handle &handle) {
    omp_set_num_threads(handle.threads);
    for (const auto *list : {&handle.steps, &handle.outputSteps})
      for (const Step &step : *list) {
        if (!step.primitive) {
          std::memcpy(step.copyTo, step.copyFrom, step.copyBytes);
          continue;
        }
        if (dnnl_primitive_execute(step.primitive, handle.device->stream,
                                   static_cast<int>(step.args.size()),
                                   step.args.data()) != dnnl_success) {
          ET_LOG(Error, "onednn: a primitive failed to execute");
          return Error::DelegateExecuteFailed;
        }
      }
    return Error::Ok;
  }
};

} // namespace
} // namespace etch::onednn

/// Called from the generated backend registration (targets/CMakeLists.txt).
bool etchRegisterBackend_onednn() {
  static etch::onednn::OnednnBackend backend;
  return etch::runtime::registerBackend("onednn", &backend);
}
