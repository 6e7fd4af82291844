//===- BuilderNodes.cpp - One primitive per blob node ---------------------===//
//
// A builder per node kind (convolution, Winograd included, inner product,
// pooling, binary, eltwise, reshape, conversion): checks the node against
// its tensors and creates its primitive through BuilderPrimitives.cpp.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"

#include "runtime/program/VectorAlignment.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace etch::onednn::backend {

Error Builder::buildNode(const Node &node) {
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

bool Builder::pair(const flatbuffers::Vector<int64_t> *values, int64_t low,
                   int64_t offset, dnnl_dims_t out) {
  // A vector of 64-bit values at a 4-byte boundary cannot be read in place.
  if (!values || values->size() != 2 || !runtime::hasAlignedElements(values))
    return false;
  for (int i = 0; i < 2; ++i) {
    if (values->Get(i) < low || values->Get(i) > (int64_t(1) << 30))
      return false;
    out[i] = values->Get(i) - offset;
  }
  return true;
}

Error Builder::buildConvolution(const Node &node, const Convolution &params) {
  if (node.inputs()->size() != 3)
    return fail("a convolution needs source, weights and bias");
  dnnl_memory_t src = inputMemory(node, 0);
  uint32_t weights = node.inputs()->Get(1), bias = node.inputs()->Get(2);
  uint32_t out = node.output();
  dnnl_dims_t strides, dilations, padBegin, padEnd;
  if (!src || weights == kAbsentTensor ||
      !blob.tensors()->Get(weights)->data_size() || dims[weights].size() != 4 ||
      dims[out].size() != 4 || dims[node.inputs()->Get(0)].size() != 4 ||
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
  Arithmetic arithmetic = arithmeticOf(node);
  bool int8 = arithmetic != Arithmetic::Float;
  if (types[weights] != (int8 ? DataType::S8 : DataType::F32))
    return fail("a convolution's weights are not int8 for an 8-bit source "
                "or float for a float one");
  Dims logical = w;
  if (groups > 1)
    logical = {groups, w[0] / groups, w[1], w[2], w[3]};
  dnnl_memory_desc_t userWeights, anyWeights, biasMd;
  dnnl_data_type_t weightType =
      arithmetic == Arithmetic::Int8 ? dnnl_s8 : dnnl_f32;
  dnnl_memory_desc_init_by_tag(&userWeights, int(logical.size()),
                               logical.data(), weightType,
                               groups > 1 ? dnnl_abcde : dnnl_abcd);
  dnnl_memory_desc_init_by_tag(&anyWeights, int(logical.size()), logical.data(),
                               weightType, dnnl_format_tag_any);
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
            tryWinograd(node, userWeights, hasBias ? &biasMd : nullptr, strides,
                        padBegin, padEnd, built);
        error != Error::Ok || built)
      return error;
  }
  if (Error error = catchUpReads(node); error != Error::Ok)
    return error;
  // Depthwise: jit_dw (float) and jit_int8 (8-bit) beat brdgmm_dw,
  // oneDNN's first choice, on mobilenet_v2 (docs/targets.md).
  bool depthwise = groups > 1 && w[0] == groups && w[1] == 1;
  const char *preferred = !depthwise                       ? nullptr
                          : arithmetic == Arithmetic::Int8 ? "jit_int8"
                                                           : "jit_dw";
  ProductOperands operands = {src, memories[out],
                              hasBias ? memories[bias] : nullptr,
                              pointers[weights]};
  return addProduct<dnnl_convolution_desc_t>(
      node, dims[out], operands, userWeights,
      [&](const dnnl_memory_desc_t *srcMd, const dnnl_memory_desc_t *biasMd,
          const dnnl_memory_desc_t *dstMd, dnnl_convolution_desc_t &desc) {
        return dnnl_dilated_convolution_forward_desc_init(
            &desc, dnnl_forward_inference, dnnl_convolution_direct, srcMd,
            &anyWeights, biasMd, dstMd, strides, dilations, padBegin, padEnd);
      },
      "oneDNN rejects the convolution's shapes",
      "oneDNN has no convolution for these shapes and post-ops", preferred);
}

template <typename Desc, typename Describe>
Error Builder::addProduct(const Node &node, const Dims &resultDims,
                          ProductOperands operands,
                          const dnnl_memory_desc_t &userWeights,
                          Describe describe, const char *rejected,
                          const char *missing, const char *preferred) {
  Arithmetic arithmetic = arithmeticOf(node);
  dnnl_memory_t result = operands.result;
  if (arithmetic == Arithmetic::Int8AsFloat)
    if (Error error = standInFloat(node, operands); error != Error::Ok)
      return error;
  const dnnl_memory_desc_t *srcMd, *dstMd, *biasMd = nullptr;
  dnnl_memory_get_memory_desc(operands.source, &srcMd);
  dnnl_memory_get_memory_desc(operands.result, &dstMd);
  if (operands.bias)
    dnnl_memory_get_memory_desc(operands.bias, &biasMd);
  Desc desc;
  Creation creation;
  Step step;
  if (describe(srcMd, biasMd, dstMd, desc) != dnnl_success)
    return fail(rejected);
  if (Error error = describePrimitive(node, resultDims, &desc, creation, step,
                                      missing, arithmetic, preferred);
      error != Error::Ok)
    return error;
  dnnl_memory_t weights;
  if (Error error =
          weightsMemory(creation, userWeights, operands.weights, weights);
      error != Error::Ok)
    return error;
  step.args.push_back({DNNL_ARG_SRC, operands.source});
  step.args.push_back({DNNL_ARG_WEIGHTS, weights});
  if (operands.bias)
    step.args.push_back({DNNL_ARG_BIAS, operands.bias});
  step.args.push_back({DNNL_ARG_DST, operands.result});
  if (Error error = finishPrimitive(node, creation, step, arithmetic);
      error != Error::Ok)
    return error;
  return convertFloatResult(node, operands.result, result);
}

bool Builder::winogradWins(bool int8, int64_t groups, const Dims &weights,
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

Error Builder::tryWinograd(const Node &node,
                           const dnnl_memory_desc_t &userWeights,
                           const dnnl_memory_desc_t *biasMd,
                           const dnnl_dims_t strides,
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
  if (dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference,
                                         dnnl_convolution_winograd, &anySrc,
                                         &anyWeights, biasMd, &anyDst, strides,
                                         padBegin, padEnd) != dnnl_success)
    return Error::Ok;
  if (Error error = addPostOps(node, dims[out], creation, step);
      error != Error::Ok)
    return error;
  if (dnnl_primitive_desc_create(&creation.pd, &desc, creation.attr,
                                 handle.device->engine,
                                 nullptr) != dnnl_success)
    return Error::Ok;
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
  if (Error error = weightsMemory(
          creation, userWeights, pointers[node.inputs()->Get(1)], weightMemory);
      error != Error::Ok)
    return error;
  step.args.push_back({DNNL_ARG_SRC, source});
  step.args.push_back({DNNL_ARG_WEIGHTS, weightMemory});
  if (biasMd)
    step.args.push_back({DNNL_ARG_BIAS, memories[node.inputs()->Get(2)]});
  step.args.push_back({DNNL_ARG_DST, result});
  if (Error error = finishPrimitive(node, creation, step); error != Error::Ok)
    return error;
  twins[out] = {result, true};
  built = true;
  return Error::Ok;
}

Error Builder::buildConvert(const Node &node) {
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
  Creation creation;
  if (Error error = conversionAttr(creation, scaleOf(in) / scaleOf(out),
                                   zeroPointOf(in), zeroPointOf(out));
      error != Error::Ok)
    return error;
  Step step;
  if (Error error = makeReorder(from, memories[out], step, creation.attr);
      error != Error::Ok)
    return error;
  if (replaces < 0) {
    handle.steps.push_back(step);
    return Error::Ok;
  }
  dnnl_primitive_destroy(handle.steps[replaces].primitive);
  handle.steps[replaces] = step;
  return Error::Ok;
}

Error Builder::buildInnerProduct(const Node &node) {
  if (node.inputs()->size() != 3)
    return fail("an inner product needs source, weights and bias");
  uint32_t in = node.inputs()->Get(0), weights = node.inputs()->Get(1),
           bias = node.inputs()->Get(2), out = node.output();
  // An 8-bit source makes an int8 inner product: int8 weights then.
  bool int8 = inputMemory(node, 0) && arithmeticOf(node) != Arithmetic::Float;
  if (!inputMemory(node, 0) || weights == kAbsentTensor ||
      !blob.tensors()->Get(weights)->data_size() || dims[weights].size() != 2 ||
      types[weights] != (int8 ? DataType::S8 : DataType::F32))
    return fail("an inner product needs a source and constant [out, in] "
                "weights, int8 for an 8-bit source and float otherwise");
  int64_t outChannels = dims[weights][0], inChannels = dims[weights][1];
  int64_t rows = numel(dims[in]) / inChannels;
  if (dims[in].back() != inChannels || dims[out].back() != outChannels ||
      numel(dims[out]) != rows * outChannels || !sameBytesEitherWay(dims[in]) ||
      !sameBytesEitherWay(dims[out]))
    return fail("an inner product's source, weights and result disagree");
  bool hasBias = bias != kAbsentTensor;
  if (hasBias &&
      (!blob.tensors()->Get(bias)->data_size() ||
       dims[bias] != Dims{outChannels} || types[bias] != DataType::F32))
    return fail("an inner product's bias is not a constant of its outputs");
  Dims srcDims = {rows, inChannels}, dstDims = {rows, outChannels};
  dnnl_memory_desc_t srcMd, dstMd, userWeights, anyWeights;
  dnnl_data_type_t weightType =
      arithmeticOf(node) == Arithmetic::Int8 ? dnnl_s8 : dnnl_f32;
  describe(srcDims, Layout::Plain, srcMd, dnnlType(types[in]));
  describe(dstDims, Layout::Plain, dstMd, dnnlType(types[out]));
  describe(dims[weights], Layout::Plain, userWeights, weightType);
  dnnl_memory_desc_init_by_tag(&anyWeights, 2, dims[weights].data(), weightType,
                               dnnl_format_tag_any);
  ProductOperands operands = {handle.addMemory(srcMd, pointers[in]),
                              handle.addMemory(dstMd, pointers[out]),
                              hasBias ? memories[bias] : nullptr,
                              pointers[weights]};
  if (!operands.source || !operands.result)
    return fail("oneDNN rejected an inner product's memory");
  return addProduct<dnnl_inner_product_desc_t>(
      node, dstDims, operands, userWeights,
      [&](const dnnl_memory_desc_t *srcMd, const dnnl_memory_desc_t *biasMd,
          const dnnl_memory_desc_t *dstMd, dnnl_inner_product_desc_t &desc) {
        return dnnl_inner_product_forward_desc_init(
            &desc, dnnl_forward_inference, srcMd, &anyWeights, biasMd, dstMd);
      },
      "oneDNN rejects the inner product's shapes",
      "oneDNN has no inner product for these shapes, types and post-ops");
}

Error Builder::buildPool(const Node &node, const Pool &params) {
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
  if (dnnl_pooling_v2_forward_desc_init(
          &desc, dnnl_forward_inference,
          kAlgorithms[static_cast<int>(params.algorithm())],
          &mds[node.inputs()->Get(0)], &mds[out], strides, kernel, dilations,
          padBegin, padEnd) != dnnl_success)
    return fail("oneDNN rejects the pooling's shapes");
  return addPrimitive(node, dims[out], &desc,
                      "oneDNN has no pooling for these shapes",
                      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, memories[out]}});
}

Error Builder::buildBinary(const Node &node, const BinaryOp &params) {
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
  if (dnnl_binary_desc_init(&desc, algorithm, &mds[node.inputs()->Get(0)],
                            &rhsMd, &mds[out]) != dnnl_success)
    return fail("oneDNN rejects the binary op's shapes");
  return addPrimitive(node, dims[out], &desc,
                      "oneDNN has no binary op for these shapes",
                      {{DNNL_ARG_SRC_0, lhs},
                       {DNNL_ARG_SRC_1, rhs},
                       {DNNL_ARG_DST, memories[out]}});
}

Error Builder::buildEltwise(const Node &node, const EltwiseOp &params) {
  uint32_t out = node.output();
  dnnl_memory_t src =
      node.inputs()->size() == 1 ? inputMemory(node, 0) : nullptr;
  dnnl_alg_kind_t algorithm = eltwiseAlgorithm(params.algorithm());
  if (!src || algorithm == dnnl_alg_kind_undef ||
      !dnnl_memory_desc_equal(&mds[node.inputs()->Get(0)], &mds[out]))
    return fail("an eltwise op needs one input laid out as its result");
  dnnl_eltwise_desc_t desc;
  if (dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference, algorithm,
                                     &mds[out], params.alpha(),
                                     params.beta()) != dnnl_success)
    return fail("oneDNN rejects the eltwise op");
  return addPrimitive(node, dims[out], &desc,
                      "oneDNN has no eltwise op for this algorithm",
                      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, memories[out]}});
}

Error Builder::buildReshape(const Node &node) {
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

} // namespace etch::onednn::backend
