//===- BuilderPrimitives.cpp - Primitive attributes and creation ----------===//
//
// What every node's primitive shares: post-ops (eltwise, binary, sum),
// int8 requantization and zero points, the implementation choice, weight
// reorders at init and the scratchpad.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace etch::onednn::backend {

Error Builder::addPostOps(const Node &node, const Dims &resultDims,
                          Creation &creation, Step &step,
                          Arithmetic arithmetic) {
  if (dnnl_primitive_attr_create(&creation.attr) != dnnl_success ||
      dnnl_primitive_attr_set_scratchpad_mode(
          creation.attr, dnnl_scratchpad_mode_user) != dnnl_success)
    return fail("cannot create primitive attributes");
  bool quantize =
      arithmetic == Arithmetic::Int8AsFloat && quantizesInFloat(node);
  uint32_t count = node.post_ops() ? node.post_ops()->size() : 0;
  if (count == 0 && !quantize)
    return Error::Ok;
  if (dnnl_post_ops_create(&creation.postOps) != dnnl_success)
    return fail("cannot create post-ops");
  for (uint32_t k = 0; k < count; ++k) {
    const PostOp &post = *node.post_ops()->Get(k);
    if (post.sum()) {
      // oneDNN's AVX2 float convolutions take a sum only as the first
      // post-op (else its reference kernel runs, 200x slower on resnet18):
      // a node computed in float adds its operand as a binary post-op.
      Error error =
          arithmetic == Arithmetic::Int8AsFloat
              ? addSumInFloat(node, post, k, resultDims, creation, step)
              : addSum(node, post, creation);
      if (error != Error::Ok)
        return error;
      continue;
    }
    if (post.operand() == kAbsentTensor) {
      dnnl_alg_kind_t algorithm = eltwiseAlgorithm(post.eltwise());
      float alpha = post.alpha(), beta = post.beta();
      if (quantize && k + 1 == count && post.eltwise() == Eltwise::Clip)
        narrowToResultRange(node, alpha, beta);
      if (algorithm == dnnl_alg_kind_undef ||
          dnnl_post_ops_append_eltwise(creation.postOps, 1.0f, algorithm, alpha,
                                       beta) != dnnl_success)
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
  if (quantize)
    if (Error error = quantizeResultInFloat(node, creation); error != Error::Ok)
      return error;
  if (dnnl_primitive_attr_set_post_ops(creation.attr, creation.postOps) !=
      dnnl_success)
    return fail("oneDNN rejected a node's post-ops");
  return Error::Ok;
}

Error Builder::checkSum(const Node &node, const PostOp &post) {
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
  return Error::Ok;
}

Error Builder::addSum(const Node &node, const PostOp &post,
                      Creation &creation) {
  if (Error error = checkSum(node, post); error != Error::Ok)
    return error;
  uint32_t operand = post.operand(), out = node.output();
  dnnl_data_type_t reinterpreted = types[operand] == types[out]
                                       ? dnnl_data_type_undef
                                       : dnnlType(types[operand]);
  if (dnnl_post_ops_append_sum_v3(
          creation.postOps, scaleOf(operand) / scaleOf(out),
          zeroPointOf(operand), reinterpreted) != dnnl_success)
    return fail("oneDNN rejects a sum post-op");
  return Error::Ok;
}

Error Builder::fillSumDestination(uint32_t operand, dnnl_memory_t dst) {
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

bool Builder::sameLayout(dnnl_memory_t memory, const dnnl_memory_desc_t &md) {
  const dnnl_memory_desc_t *own;
  dnnl_memory_get_memory_desc(memory, &own);
  return dnnl_memory_desc_equal(own, &md);
}

Error Builder::describePrimitive(const Node &node, const Dims &resultDims,
                                 const void *desc, Creation &creation,
                                 Step &step, const char *missing,
                                 Arithmetic arithmetic, const char *preferred) {
  if (Error error = addPostOps(node, resultDims, creation, step, arithmetic);
      error != Error::Ok)
    return error;
  if (arithmetic == Arithmetic::Int8)
    if (Error error = addInt8Scaling(node, creation, step); error != Error::Ok)
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

Error Builder::addPrimitive(const Node &node, const Dims &resultDims,
                            const void *desc, const char *missing,
                            std::initializer_list<dnnl_exec_arg_t> args) {
  Creation creation;
  Step step;
  if (Error error =
          describePrimitive(node, resultDims, desc, creation, step, missing);
      error != Error::Ok)
    return error;
  step.args.insert(step.args.end(), args);
  return finishPrimitive(node, creation, step);
}

dnnl_primitive_desc_t Builder::preferredImplementation(
    const void *desc, const_dnnl_primitive_attr_t attr, const char *prefix) {
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

Error Builder::finishPrimitive(const Node &node, Creation &creation, Step &step,
                               Arithmetic arithmetic) {
  if (dnnl_primitive_create(&step.primitive, creation.pd) != dnnl_success)
    return fail("oneDNN cannot create a primitive");
  if (const PostOp *sum = sumOf(node);
      sum && arithmetic != Arithmetic::Int8AsFloat) {
    auto dst = std::find_if(
        step.args.begin(), step.args.end(),
        [](const dnnl_exec_arg_t &arg) { return arg.arg == DNNL_ARG_DST; });
    Error error = dst == step.args.end()
                      ? fail("a node with a sum post-op has no result")
                      : fillSumDestination(sum->operand(), dst->memory);
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

Error Builder::weightsMemory(Creation &creation,
                             const dnnl_memory_desc_t &userMd, void *values,
                             dnnl_memory_t &memory) {
  const dnnl_memory_desc_t *wanted =
      dnnl_primitive_desc_query_md(creation.pd, dnnl_query_weights_md, 0);
  dnnl_memory_t user = handle.addMemory(userMd, values);
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

Error Builder::addZeroPoint(Creation &creation, Step &step, int arg,
                            int32_t value) {
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

Error Builder::outputScales(const Node &node, std::vector<float> &scales) {
  uint32_t src = node.inputs()->Get(0), weights = node.inputs()->Get(1);
  const Convolution *conv = node.params_as_Convolution();
  float resultScale = conv && conv->requantize_scale() != 0
                          ? conv->requantize_scale()
                          : scaleOf(node.output());
  if (!(resultScale > 0 && std::isfinite(resultScale)))
    return fail("an int8 convolution's requantization scale is not "
                "positive");
  const Tensor &weightTensor = *blob.tensors()->Get(weights);
  if (weightTensor.zero_point())
    return fail("an int8 convolution's weights are not symmetric");
  scales.assign(dims[weights][0], weightTensor.scale());
  if (weightTensor.channel_scales())
    scales.assign(weightTensor.channel_scales()->begin(),
                  weightTensor.channel_scales()->end());
  for (float &scale : scales)
    scale *= scaleOf(src) / resultScale;
  return Error::Ok;
}

Error Builder::addInt8Scaling(const Node &node, Creation &creation,
                              Step &step) {
  std::vector<float> scales;
  if (Error error = outputScales(node, scales); error != Error::Ok)
    return error;
  if (dnnl_primitive_attr_set_output_scales(
          creation.attr, static_cast<dnnl_dim_t>(scales.size()), 1 << 1,
          scales.data()) != dnnl_success)
    return fail("oneDNN rejects an int8 convolution's scales");
  uint32_t src = node.inputs()->Get(0), out = node.output();
  if (Error error =
          addZeroPoint(creation, step, DNNL_ARG_SRC, zeroPointOf(src));
      error != Error::Ok)
    return error;
  return addZeroPoint(creation, step, DNNL_ARG_DST, zeroPointOf(out));
}

} // namespace etch::onednn::backend
