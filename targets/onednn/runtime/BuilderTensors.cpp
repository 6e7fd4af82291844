//===- BuilderTensors.cpp - Blob tensors: checks, buffers, borders --------===//
//
// The Builder's tensor side: each tensor's descriptor and checks, one
// writer per tensor, buffers (constants in the mapped program, border
// tensors at the program's, the rest from the platform allocator, a sum's
// result taking over its operand's buffer where nothing reads it later),
// border reorders, and the blocked twins of Winograd results.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"

#include "runtime/program/VectorAlignment.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace etch::onednn::backend {

Error Builder::build() {
  const auto &tensors = *blob.tensors();
  dims.resize(tensors.size());
  types.resize(tensors.size());
  mds.resize(tensors.size());
  pointers.assign(tensors.size(), nullptr);
  memories.assign(tensors.size(), nullptr);
  writer.assign(tensors.size(), -1);
  twins.assign(tensors.size(), BlockedTwin());
  floatCopies.assign(tensors.size(), nullptr);
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
      if (Error error = bindTensor(out, *tensors.Get(out)); error != Error::Ok)
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

Error Builder::catchUp(uint32_t i) {
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

Error Builder::catchUpReads(const Node &node, bool exceptSource) {
  bool skip = exceptSource; // the source is the first read
  Error result = Error::Ok;
  forEachRead(node, [&](uint32_t tensor, const PostOp *) {
    if (!std::exchange(skip, false) && result == Error::Ok)
      result = catchUp(tensor);
  });
  return result;
}

Error Builder::describeTensor(uint32_t i, const Tensor &tensor) {
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

Error Builder::checkWriters() {
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

const PostOp *Builder::sumOf(const Node &node) {
  if (node.post_ops())
    for (const PostOp *post : *node.post_ops())
      if (post->sum())
        return post;
  return nullptr;
}

uint32_t Builder::storageOf(uint32_t i) const {
  for (size_t hops = 0; i < writer.size() && isAlias(i) && hops < writer.size();
       ++hops)
    i = blob.nodes()->Get(writer[i])->inputs()->Get(0);
  return i;
}

bool Builder::readFrom(uint32_t n, uint32_t storage) const {
  bool read = false;
  for (uint32_t m = n; m < blob.nodes()->size() && !read; ++m)
    forEachRead(
        *blob.nodes()->Get(m), [&](uint32_t tensor, const PostOp *post) {
          read |= !(m == n && post && post->sum()) && tensor < writer.size() &&
                  storageOf(tensor) == storage;
        });
  return read;
}

void Builder::planTakeOvers() {
  const auto &tensors = *blob.tensors();
  takesOver.assign(tensors.size(), kAbsentTensor);
  for (uint32_t n = 0; n < blob.nodes()->size(); ++n) {
    const Node &node = *blob.nodes()->Get(n);
    const PostOp *sum = sumOf(node);
    uint32_t out = node.output(), operand = sum ? sum->operand() : 0;
    if (!sum || operand >= tensors.size() || operand == out ||
        writer[operand] < 0 || writer[operand] >= static_cast<int>(n) ||
        isAlias(operand))
      continue;
    const Tensor &from = *tensors.Get(operand), &to = *tensors.Get(out);
    if (from.output() >= 0 || to.output() >= 0 ||
        from.layout() != to.layout() || dims[operand] != dims[out] ||
        elementBytes(types[operand]) != elementBytes(types[out]) ||
        readFrom(n, operand))
      continue;
    takesOver[out] = operand;
  }
}

bool Builder::isAlias(uint32_t i) const {
  if (writer[i] < 0 || blob.tensors()->Get(i)->output() >= 0)
    return false;
  return blob.nodes()->Get(writer[i])->params_type() == NodeParams::Reshape;
}

Error Builder::bindTensor(uint32_t i, const Tensor &tensor) {
  size_t bytes = numel(dims[i]) * elementBytes(types[i]);
  if (tensor.data_size()) {
    pointers[i] = const_cast<uint8_t *>(data + tensor.data_offset());
  } else if (tensor.input() >= 0 || tensor.output() >= 0) {
    TensorView *view =
        tensor.input() >= 0 ? inputs[tensor.input()] : outputs[tensor.output()];
    if (!view || view->scalarType() != scalarType(types[i]) ||
        view->numel() != numel(dims[i]) || (tensor.nchw() && view->rank() != 4))
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

Error Builder::addBorderReorder(uint32_t i, TensorView &view,
                                bool intoDelegate) {
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

Error conversionAttr(Creation &creation, float scale, int32_t sourceZero,
                     int32_t resultZero) {
  if (dnnl_primitive_attr_create(&creation.attr) != dnnl_success ||
      dnnl_primitive_attr_set_output_scales(creation.attr, 1, 0, &scale) !=
          dnnl_success ||
      (sourceZero &&
       dnnl_primitive_attr_set_zero_points(creation.attr, DNNL_ARG_SRC, 1, 0,
                                           &sourceZero) != dnnl_success) ||
      (resultZero &&
       dnnl_primitive_attr_set_zero_points(creation.attr, DNNL_ARG_DST, 1, 0,
                                           &resultZero) != dnnl_success))
    return fail("oneDNN rejects a conversion's scale or zero points");
  return Error::Ok;
}

Error Builder::addConversion(dnnl_memory_t from, dnnl_memory_t to, float scale,
                             int32_t fromZero, int32_t toZero) {
  Creation creation;
  Step step;
  if (Error error = conversionAttr(creation, scale, fromZero, toZero);
      error != Error::Ok)
    return error;
  if (Error error = makeReorder(from, to, step, creation.attr);
      error != Error::Ok)
    return error;
  handle.steps.push_back(step);
  return Error::Ok;
}

Error Builder::makeReorder(dnnl_memory_t from, dnnl_memory_t to, Step &step,
                           const_dnnl_primitive_attr_t attr) {
  const dnnl_memory_desc_t *fromMd, *toMd;
  dnnl_memory_get_memory_desc(from, &fromMd);
  dnnl_memory_get_memory_desc(to, &toMd);
  Creation creation;
  if (dnnl_reorder_primitive_desc_create(
          &creation.pd, fromMd, handle.device->engine, toMd,
          handle.device->engine, attr) != dnnl_success ||
      dnnl_primitive_create(&step.primitive, creation.pd) != dnnl_success)
    return fail(attr ? "oneDNN has no conversion between these data types"
                     : "oneDNN cannot reorder between two layouts");
  step.args = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  return Error::Ok;
}

dnnl_memory_t Builder::inputMemory(const Node &node, size_t index) {
  uint32_t tensor = node.inputs()->Get(index);
  if (tensor == kAbsentTensor)
    return nullptr;
  if (!memories[tensor] && isAlias(tensor))
    return nullptr; // a reshape not yet run: ordering is broken
  return memories[tensor];
}

bool Builder::operandMd(uint32_t tensor, const Dims &target,
                        dnnl_memory_desc_t &md) {
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

float Builder::scaleOf(uint32_t i) const {
  return types[i] == DataType::F32 ? 1.0f : blob.tensors()->Get(i)->scale();
}

int32_t Builder::zeroPointOf(uint32_t i) const {
  return types[i] == DataType::F32 ? 0 : blob.tensors()->Get(i)->zero_point();
}

size_t Builder::readerCount(uint32_t i) const {
  size_t count = 0;
  for (const Node *node : *blob.nodes())
    forEachRead(*node,
                [&](uint32_t tensor, const PostOp *) { count += tensor == i; });
  return count;
}

} // namespace etch::onednn::backend
