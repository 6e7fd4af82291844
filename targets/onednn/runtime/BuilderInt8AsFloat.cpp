//===- BuilderInt8AsFloat.cpp - int8 products in float without VNNI -------===//
//
// On a CPU without VNNI oneDNN's int8 kernels sum pairs of u8 x s8
// products in saturating 16 bits, and their results drift from the Q/DQ
// graph's (docs/targets.md). There an int8 convolution or inner product
// runs as a float primitive on stand-ins that compute the values the int8
// one would: the source less its zero point (exact small integers), the
// weights and bias times the node's output scales, made once at init, and
// a float result in the result's units before its zero point. Post-ops
// see the same values as in int8; a conversion step rounds, offsets and
// saturates the result into its 8-bit tensor as the int8 kernel does.
// Where only other int8 layers read that tensor, the node's own post-ops
// round and saturate instead, and its float result is their source.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"

#include <algorithm>
#include <utility>

namespace etch::onednn::backend {

Builder::Arithmetic Builder::arithmeticOf(const Node &node) const {
  uint32_t source = node.inputs()->Get(0);
  if (source == kAbsentTensor || types[source] == DataType::F32)
    return Arithmetic::Float;
  return handle.int8AsFloat ? Arithmetic::Int8AsFloat : Arithmetic::Int8;
}

namespace {

/// \p md with float elements (the same strides, counted in elements).
dnnl_memory_desc_t asFloat(dnnl_memory_desc_t md) {
  md.data_type = dnnl_f32;
  return md;
}

dnnl_memory_desc_t asFloat(dnnl_memory_t memory) {
  const dnnl_memory_desc_t *md = nullptr;
  dnnl_memory_get_memory_desc(memory, &md);
  return asFloat(*md);
}

/// The float range of \p type's values less \p zeroPoint.
std::pair<float, float> rangeLess(DataType type, int32_t zeroPoint) {
  bool isUnsigned = type == DataType::U8;
  return {(isUnsigned ? 0.0f : -128.0f) - zeroPoint,
          (isUnsigned ? 255.0f : 127.0f) - zeroPoint};
}

bool isClip(const PostOp &post) {
  return !post.sum() && post.operand() == kAbsentTensor &&
         post.eltwise() == Eltwise::Clip;
}

} // namespace

Error Builder::floatCopyOf(uint32_t i, void *&copy) {
  if ((copy = floatCopies[i]))
    return Error::Ok;
  void *buffer = handle.allocate(numel(dims[i]) * sizeof(float));
  dnnl_memory_t floats =
      buffer ? handle.addMemory(asFloat(memories[i]), buffer) : nullptr;
  if (!floats)
    return fail("cannot allocate the float copy of an int8 source "
                "(memory limit)");
  if (Error error = addConversion(memories[i], floats, 1.0f, zeroPointOf(i), 0);
      error != Error::Ok)
    return error;
  copy = floatCopies[i] = buffer;
  return Error::Ok;
}

Error Builder::standInFloat(const Node &node, ProductOperands &operands) {
  uint32_t source = node.inputs()->Get(0), weights = node.inputs()->Get(1);
  uint32_t bias = node.inputs()->Get(2);
  std::vector<float> scales;
  if (Error error = outputScales(node, scales); error != Error::Ok)
    return error;
  void *sourceCopy;
  if (Error error = floatCopyOf(source, sourceCopy); error != Error::Ok)
    return error;
  // The node may view its source under other dims (an inner product
  // flattens it): the copy holds the same elements in the same order.
  operands.source = handle.addMemory(asFloat(operands.source), sourceCopy);
  int64_t channels = dims[weights][0];
  int64_t perChannel = numel(dims[weights]) / channels;
  auto *scaled = static_cast<float *>(
      handle.allocate(numel(dims[weights]) * sizeof(float)));
  auto *scaledBias = static_cast<float *>(
      bias == kAbsentTensor ? nullptr
                            : handle.allocate(channels * sizeof(float)));
  if (!operands.source || !scaled || (bias != kAbsentTensor && !scaledBias))
    return fail("cannot allocate an int8 node's float weights (memory "
                "limit)");
  const auto *values = static_cast<const int8_t *>(operands.weights);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k = 0; k < perChannel; ++k)
      scaled[c * perChannel + k] = values[c * perChannel + k] * scales[c];
  operands.weights = scaled;
  if (scaledBias) {
    const auto *accumulatorBias = static_cast<const float *>(pointers[bias]);
    for (int64_t c = 0; c < channels; ++c)
      scaledBias[c] = accumulatorBias[c] * scales[c];
    if (!(operands.bias = handle.addMemory(mds[bias], scaledBias)))
      return fail("oneDNN rejected an int8 node's float bias");
  }
  uint32_t out = node.output();
  if (types[out] == DataType::F32)
    return Error::Ok;
  void *result = handle.allocate(numel(dims[out]) * sizeof(float));
  operands.result =
      result ? handle.addMemory(asFloat(operands.result), result) : nullptr;
  if (!operands.result)
    return fail("cannot allocate an int8 node's float result (memory limit)");
  // A quantized float result is what its readers as a source take: no
  // conversion to 8 bits and back between two such nodes.
  if (quantizesInFloat(node))
    floatCopies[out] = result;
  return Error::Ok;
}

bool Builder::quantizesInFloat(const Node &node) const {
  uint32_t out = node.output();
  if (types[out] == DataType::F32)
    return false;
  auto [low, high] = rangeLess(types[out], zeroPointOf(out));
  uint32_t count = node.post_ops() ? node.post_ops()->size() : 0;
  for (uint32_t k = 0; k + 1 < count; ++k) {
    const PostOp &post = *node.post_ops()->Get(k);
    if (isClip(post) && (post.alpha() != low || post.beta() != high))
      return false;
  }
  return true;
}

void Builder::narrowToResultRange(const Node &node, float &low,
                                  float &high) const {
  auto [lowest, highest] =
      rangeLess(types[node.output()], zeroPointOf(node.output()));
  low = std::max(low, lowest);
  high = std::min(high, highest);
}

Error Builder::quantizeResultInFloat(const Node &node, Creation &creation) {
  uint32_t count = node.post_ops() ? node.post_ops()->size() : 0;
  bool clipped = count && isClip(*node.post_ops()->Get(count - 1));
  auto [low, high] =
      rangeLess(types[node.output()], zeroPointOf(node.output()));
  if ((!clipped &&
       dnnl_post_ops_append_eltwise(creation.postOps, 1.0f, dnnl_eltwise_clip,
                                    low, high) != dnnl_success) ||
      dnnl_post_ops_append_eltwise(creation.postOps, 1.0f, dnnl_eltwise_round,
                                   0.0f, 0.0f) != dnnl_success)
    return fail("oneDNN rejects an int8 node's quantization post-ops");
  return Error::Ok;
}

bool Builder::readAsBytes(uint32_t i) const {
  if (blob.tensors()->Get(i)->output() >= 0)
    return true;
  for (const Node *node : *blob.nodes()) {
    bool product = node->params_type() == NodeParams::Convolution ||
                   node->params_type() == NodeParams::InnerProduct;
    size_t reads = 0;
    forEachRead(*node,
                [&](uint32_t tensor, const PostOp *) { reads += tensor == i; });
    if (reads > (product && node->inputs()->Get(0) == i ? 1u : 0u))
      return true;
  }
  return false;
}

Error Builder::convertFloatResult(const Node &node, dnnl_memory_t floatResult,
                                  dnnl_memory_t result) {
  if (floatResult == result ||
      (quantizesInFloat(node) && !readAsBytes(node.output())))
    return Error::Ok;
  return addConversion(floatResult, result, 1.0f, 0,
                       zeroPointOf(node.output()));
}

Error Builder::addSumInFloat(const Node &node, const PostOp &post,
                             uint32_t position, const Dims &resultDims,
                             Creation &creation, Step &step) {
  if (Error error = checkSum(node, post); error != Error::Ok)
    return error;
  uint32_t operand = post.operand();
  dnnl_memory_desc_t operandView;
  if (!operandMd(operand, resultDims, operandView))
    return fail("a sum post-op's operand cannot be viewed as its node's "
                "result");
  dnnl_memory_t from = handle.addMemory(operandView, pointers[operand]);
  dnnl_memory_desc_t floatView = asFloat(operandView);
  void *buffer = handle.allocate(numel(resultDims) * sizeof(float));
  dnnl_memory_t converted =
      from && buffer ? handle.addMemory(floatView, buffer) : nullptr;
  if (!converted)
    return fail("cannot allocate a sum operand's float copy (memory limit)");
  if (Error error = addConversion(from, converted,
                                  scaleOf(operand) / scaleOf(node.output()),
                                  zeroPointOf(operand), 0);
      error != Error::Ok)
    return error;
  if (dnnl_post_ops_append_binary(creation.postOps, dnnl_binary_add,
                                  &floatView) != dnnl_success)
    return fail("oneDNN rejects a sum operand as a binary post-op");
  step.args.push_back(
      {int(DNNL_ARG_ATTR_MULTIPLE_POST_OP(position) | DNNL_ARG_SRC_1),
       converted});
  return Error::Ok;
}

} // namespace etch::onednn::backend
