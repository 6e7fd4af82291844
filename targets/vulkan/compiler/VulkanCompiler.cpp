//===- VulkanCompiler.cpp - Delegate body -> Vulkan blob ------------------===//
//
// A delegate's buffers, its dispatches and the blob they become; the ops
// themselves are lowered in VulkanOpLowering.cpp.
//
//===----------------------------------------------------------------------===//
#include "VulkanDelegateCompiler.h"

#include "etch/Target/DelegateLowering.h"

using namespace mlir;
using namespace etch::edge;

namespace etch::vulkan {
namespace lowering {

FailureOr<CompiledDelegate> DelegateCompiler::run() {
  Block &body = delegate.getBody().front();
  for (BlockArgument argument : body.getArguments()) {
    int buffer = newBuffer(shapeOf(argument), true, isBool(argument));
    stored[argument] = {buffer, SmallVector<int64_t>(shapeOf(argument))};
  }
  argumentBuffers = buffers.size();
  auto terminator = cast<DelegateReturnOp>(body.getTerminator());
  for (Value value : terminator.getOperands())
    returned.insert(value);
  // A dequantized constant is float weights to its readers (operand()).
  if (failed(lowerDelegateBody(
          body, [](Operation &) { return false; },
          /*dequantizedConstantsAreWeights=*/true,
          [&](Operation *op) { return lower(op); })))
    return failure();
  for (Value value : terminator.getOperands()) {
    auto it = stored.find(value);
    if (it == stored.end())
      return delegate.emitOpError(
          "vulkan: a delegate result is not computed inside the delegate");
    Stored output = it->second;
    // A view of an input or a constant (a delegate of views alone) gets
    // bytes of its own.
    if (size_t(output.buffer) < argumentBuffers ||
        !data[output.buffer].empty()) {
      SmallVector<int64_t> strides = contiguousStrides(output.shape);
      Stored copy{newBuffer(output.shape), output.shape};
      emitCopy(output.buffer, copy.buffer, Walk(output.shape, strides, strides),
               0, 0);
      output = copy;
    }
    buffers[output.buffer].pinned = true;
    outputs.push_back(output);
  }
  return finish();
}

int DelegateCompiler::newBuffer(ArrayRef<int64_t> shape, bool pinned,
                                bool bytes) {
  PlannedBuffer buffer;
  buffer.bytes = wordBytes(product(shape) * (bytes ? 1 : elementSize));
  buffer.pinned = pinned;
  buffers.push_back(buffer);
  data.emplace_back();
  return static_cast<int>(buffers.size()) - 1;
}

int DelegateCompiler::constantBuffer(ArrayRef<int64_t> shape,
                                     std::vector<float> values) {
  int buffer = newBuffer(shape, true);
  data[buffer] = std::move(values);
  return buffer;
}

FailureOr<Stored> DelegateCompiler::operand(Operation *user, Value value) {
  if (auto it = stored.find(value); it != stored.end())
    return it->second;
  std::optional<SmallVector<float>> values =
      quantization::constantRealValues(value);
  if (!values)
    return user->emitOpError("vulkan: operand is neither computed in the "
                             "delegate nor a constant");
  Stored result{
      constantBuffer(shapeOf(value),
                     std::vector<float>(values->begin(), values->end())),
      SmallVector<int64_t>(shapeOf(value))};
  stored[value] = result;
  return result;
}

FailureOr<int> DelegateCompiler::transposedConstant(Operation *user,
                                                    Value value) {
  if (auto it = transposed.find(value); it != transposed.end())
    return it->second;
  std::optional<SmallVector<float>> values =
      quantization::constantRealValues(value);
  if (!values)
    return user->emitOpError("vulkan: weight payload is not available");
  ArrayRef<int64_t> shape = shapeOf(value);
  std::vector<float> packed = permuteData<float>(
      std::vector<float>(values->begin(), values->end()), shape, {1, 0});
  int buffer = constantBuffer({shape[1], shape[0]}, std::move(packed));
  transposed[value] = buffer;
  return buffer;
}

Stored DelegateCompiler::result(Value value) {
  Stored out{newBuffer(shapeOf(value)), SmallVector<int64_t>(shapeOf(value))};
  stored[value] = out;
  return out;
}

int DelegateCompiler::emit(Shader shader, std::vector<int> bound,
                           std::vector<uint32_t> push,
                           std::array<uint32_t, 3> groups,
                           std::array<uint32_t, 2> local) {
  int index = static_cast<int>(dispatches.size());
  for (int buffer : bound)
    buffers[buffer].lastUse = index;
  PlannedBuffer &written = buffers[bound.back()];
  if (written.firstWrite < 0)
    written.firstWrite = index;
  dispatches.push_back(
      {shader, std::move(bound), std::move(push), groups, local});
  return index;
}

int DelegateCompiler::emitLine(Shader shader, std::vector<int> bound,
                               std::vector<uint32_t> push, int64_t count) {
  uint32_t groups = std::min<int64_t>(ceilDiv(count, kLineWidth), kMaxGroups);
  return emit(shader, std::move(bound), std::move(push), {groups, 1, 1},
              {kLineWidth, 1});
}

void DelegateCompiler::emitCopy(int from, int to, const Walk &walk,
                                int64_t fromOffset, int64_t toOffset) {
  std::vector<uint32_t> push = walk.words();
  push.push_back(static_cast<uint32_t>(fromOffset));
  push.push_back(static_cast<uint32_t>(toOffset));
  emitLine(Shader::Copy, {from, to}, std::move(push), elementCount(walk));
}

int64_t DelegateCompiler::elementCount(const Walk &walk) {
  int64_t count = 1;
  for (uint32_t dim : walk.dims)
    count *= dim;
  return count;
}

FailureOr<int> DelegateCompiler::emitGemm(Operation *op, int a, int b, int bias,
                                          int out, const GemmForm &g) {
  if (g.batch > kMaxGroups || ceilDiv(g.M, kTile) > kMaxGroups ||
      ceilDiv(g.N, kTile) > kMaxGroups)
    return op->emitOpError("vulkan: matrix product too large for one "
                           "dispatch");
  std::vector<uint32_t> push = {uint32_t(g.M),
                                uint32_t(g.N),
                                uint32_t(g.K),
                                uint32_t(g.aBatch),
                                uint32_t(g.aRow),
                                uint32_t(g.aCol),
                                uint32_t(g.bBatch),
                                uint32_t(g.bRow),
                                uint32_t(g.bCol),
                                uint32_t(g.biasRow),
                                uint32_t(g.biasCol),
                                uint32_t(bias >= 0),
                                uint32_t(Activation::None),
                                0,
                                0};
  int dispatch =
      emit(Shader::Gemm, {a, b, bias >= 0 ? bias : out, out}, std::move(push),
           {ceilDiv(g.N, kTile), ceilDiv(g.M, kTile), uint32_t(g.batch)},
           {kTile, kTile});
  return dispatch;
}

LogicalResult DelegateCompiler::lower(Operation *op) {
  if (auto attention = dyn_cast<ScaledDotProductAttentionOp>(op))
    return lowerAttention(attention);
  if (std::optional<ActivationForm> form = activationForm(op))
    return lowerActivation(op, *form);
  if (std::optional<BinaryForm> form = binaryForm(op))
    return lowerBinary(op, *form);
  if (auto conv = dyn_cast<ConvolutionOp>(op))
    return lowerConvolution(conv);
  if (auto linear = dyn_cast<LinearOp>(op))
    return lowerLinear(linear);
  if (auto addmm = dyn_cast<AddmmOp>(op))
    return lowerMatrixProduct(op, addmm.getMat1(), addmm.getMat2(),
                              addmm.getSelf());
  if (isa<MmOp, BmmOp>(op))
    return lowerMatrixProduct(op, op->getOperand(0), op->getOperand(1),
                              Value());
  if (isa<MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp>(op))
    return lowerPooling(op);
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return lowerSoftmax(op, softmax.getDim(), false);
  if (auto softmax = dyn_cast<LogSoftmaxOp>(op))
    return lowerSoftmax(op, softmax.getDim(), true);
  if (auto norm = dyn_cast<LayerNormOp>(op))
    return lowerLayerNorm(norm);
  if (auto mean = dyn_cast<MeanOp>(op))
    return lowerReduction(op, ReduceMode::Mean, mean.getDim());
  if (auto sum = dyn_cast<SumOp>(op))
    return lowerReduction(op, ReduceMode::Sum, sum.getDim());
  if (auto amax = dyn_cast<AmaxOp>(op))
    return lowerReduction(op, ReduceMode::Max, amax.getDim());
  if (auto amin = dyn_cast<AminOp>(op))
    return lowerReduction(op, ReduceMode::Min, amin.getDim());
  if (isa<ViewOp, SqueezeOp, UnsqueezeOp>(op))
    return lowerView(op);
  if (auto permute = dyn_cast<PermuteOp>(op)) {
    SmallVector<int64_t> dims;
    for (int64_t d : permute.getDims())
      dims.push_back(*normalizeDim(std::nullopt, "permute", "dim", d,
                                   permute.getDims().size()));
    return lowerPermute(op, dims);
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    int64_t rank = shapeOf(transpose.getSelf()).size();
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    std::swap(dims[*normalizeDim(std::nullopt, "transpose", "dim",
                                 transpose.getDim0(), rank)],
              dims[*normalizeDim(std::nullopt, "transpose", "dim",
                                 transpose.getDim1(), rank)]);
    return lowerPermute(op, dims);
  }
  if (auto expand = dyn_cast<ExpandOp>(op))
    return lowerGather(op,
                       broadcastStrides(shapeOf(expand.getSelf()),
                                        shapeOf(expand.getResult())),
                       0);
  if (auto slice = dyn_cast<SliceOp>(op))
    return lowerSlice(slice);
  if (auto select = dyn_cast<SelectOp>(op))
    return lowerSelect(select);
  if (auto cat = dyn_cast<CatOp>(op))
    return lowerCat(cat);
  return op->emitOpError("vulkan: ") << whyUnsupported(op);
}

FailureOr<CompiledDelegate> DelegateCompiler::finish() {
  if (dispatches.empty())
    return delegate.emitOpError("vulkan: the delegate computes nothing "
                                "(views only)");
  BlobT blob;
  blob.version = kBlobVersion;
  blob.float_storage = storage;
  blob.arena_size = planArena(buffers, dispatches.size(), kRegionAlignment);
  auto region = [&](int buffer) {
    return Region(buffers[buffer].offset, buffers[buffer].bytes);
  };
  std::string constants;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (data[i].empty())
      continue;
    auto upload = std::make_unique<UploadT>();
    upload->region = std::make_unique<Region>(region(i));
    upload->data_offset = constants.size();
    appendStored(constants, data[i]);
    constants.resize(upload->data_offset + buffers[i].bytes, '\0');
    constants.append(runtime::blobConstantPadding(constants.size()), '\0');
    blob.uploads.push_back(std::move(upload));
  }
  auto binding = [&](const Stored &value, bool boolean) {
    auto out = std::make_unique<BindingT>();
    out->region = std::make_unique<Region>(
        buffers[value.buffer].offset,
        wordBytes(product(value.shape) * (boolean ? 1 : elementSize)));
    out->dims.assign(value.shape.begin(), value.shape.end());
    out->datatype = boolean ? DataType::Bool : DataType::F32;
    return out;
  };
  Block &body = delegate.getBody().front();
  for (BlockArgument argument : body.getArguments())
    blob.inputs.push_back(binding(stored[argument], isBool(argument)));
  for (const Stored &output : outputs)
    blob.outputs.push_back(binding(output, false));
  for (const Draft &draft : dispatches) {
    auto dispatch = std::make_unique<DispatchT>();
    dispatch->shader = draft.shader;
    for (int buffer : draft.bound)
      dispatch->bindings.push_back(region(buffer));
    dispatch->push = draft.push;
    dispatch->groups.assign(draft.groups.begin(), draft.groups.end());
    dispatch->local_size.assign(draft.local.begin(), draft.local.end());
    blob.dispatches.push_back(std::move(dispatch));
  }
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(Blob::Pack(builder, &blob));
  CompiledDelegate compiled;
  compiled.blob =
      runtime::frameBlob(kBlobMagic, kBlobVersion, builder.GetBufferPointer(),
                         builder.GetSize(), constants);
  return compiled;
}

void DelegateCompiler::appendStored(std::string &out,
                                    const std::vector<float> &values) const {
  if (storage == FloatStorage::F32) {
    out.append(reinterpret_cast<const char *>(values.data()),
               values.size() * 4);
    return;
  }
  for (float value : values) {
    uint16_t half = runtime::floatToHalf(value);
    out.append(reinterpret_cast<const char *>(&half), 2);
  }
}

} // namespace lowering

FailureOr<CompiledDelegate> compileDelegate(DelegateOp delegate,
                                            FloatStorage storage) {
  return lowering::DelegateCompiler(delegate, storage).run();
}

} // namespace etch::vulkan
