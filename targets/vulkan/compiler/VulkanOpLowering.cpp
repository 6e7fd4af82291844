//===- VulkanOpLowering.cpp - Edge ops -> Vulkan dispatches ---------------===//
#include "VulkanDelegateCompiler.h"

namespace etch::vulkan::lowering {

LogicalResult DelegateCompiler::lowerActivation(Operation *op,
                                                const ActivationForm &form) {
  Value input = op->getOperand(0), out = op->getResult(0);
  // The epilogue of the GEMM or convolution that computed the input.
  if (auto it = epilogues.find(input);
      it != epilogues.end() && input.hasOneUse() && !returned.count(input)) {
    auto [dispatch, at] = it->second;
    std::vector<uint32_t> &push = dispatches[dispatch].push;
    push[at] = static_cast<uint32_t>(form.activation);
    push[at + 1] = floatBits(form.alpha);
    push[at + 2] = floatBits(form.beta);
    Stored fused = stored.lookup(input); // a copy: insertion may rehash
    stored[out] = fused;
    epilogues.erase(it);
    return success();
  }
  FailureOr<Stored> in = operand(op, input);
  if (failed(in))
    return failure();
  Stored to = result(out);
  int64_t count = product(to.shape);
  emitLine(Shader::Unary, {in->buffer, to.buffer},
           {uint32_t(count), uint32_t(form.activation), floatBits(form.alpha),
            floatBits(form.beta)},
           count);
  return success();
}

LogicalResult DelegateCompiler::lowerBinary(Operation *op,
                                            const BinaryForm &form) {
  FailureOr<Stored> a = operand(op, op->getOperand(0));
  FailureOr<Stored> b = operand(op, op->getOperand(1));
  if (failed(a) || failed(b))
    return failure();
  Stored to = result(op->getResult(0));
  Walk walk(to.shape, broadcastStrides(a->shape, to.shape),
            broadcastStrides(b->shape, to.shape));
  std::vector<uint32_t> push = walk.words();
  push.push_back(static_cast<uint32_t>(form.op));
  push.push_back(floatBits(form.alpha));
  emitLine(Shader::Binary, {a->buffer, b->buffer, to.buffer}, std::move(push),
           product(to.shape));
  return success();
}

LogicalResult DelegateCompiler::lowerGemm(Operation *op, Value lhs, Value rhs,
                                          Value bias, GemmForm g,
                                          bool packRhs) {
  FailureOr<Stored> a = operand(op, lhs);
  FailureOr<int> b =
      packRhs ? transposedConstant(op, rhs) : FailureOr<int>(failure());
  if (!packRhs) {
    FailureOr<Stored> rhsStored = operand(op, rhs);
    if (failed(rhsStored))
      return failure();
    b = rhsStored->buffer;
  }
  int biasBuffer = -1;
  if (bias) {
    FailureOr<Stored> biasStored = operand(op, bias);
    if (failed(biasStored))
      return failure();
    biasBuffer = biasStored->buffer;
    // The bias broadcast to [M, N] (rank <= 2 by ATen's rules).
    SmallVector<int64_t> shape(biasStored->shape);
    while (shape.size() < 2)
      shape.insert(shape.begin(), 1);
    g.biasRow = shape[0] == 1 ? 0 : shape[1];
    g.biasCol = shape[1] == 1 ? 0 : 1;
  }
  if (failed(a) || failed(b))
    return failure();
  Stored to = result(op->getResult(0));
  FailureOr<int> dispatch =
      emitGemm(op, a->buffer, *b, biasBuffer, to.buffer, g);
  if (failed(dispatch))
    return failure();
  epilogues[op->getResult(0)] = {*dispatch, kGemmActivation};
  return success();
}

LogicalResult DelegateCompiler::lowerLinear(LinearOp linear) {
  ArrayRef<int64_t> in = shapeOf(linear.getInput());
  ArrayRef<int64_t> weight = shapeOf(linear.getWeight());
  GemmForm g;
  g.K = in.back();
  g.M = product(in) / g.K;
  g.N = weight[0];
  g.aRow = g.K;
  bool pack = quantization::isConstant(linear.getWeight());
  g.bRow = pack ? g.N : 1;
  g.bCol = pack ? 1 : g.K;
  return lowerGemm(linear, linear.getInput(), linear.getWeight(),
                   linear.getBias(), g, pack);
}

LogicalResult DelegateCompiler::lowerMatrixProduct(Operation *op, Value lhs,
                                                   Value rhs, Value bias) {
  ArrayRef<int64_t> a = shapeOf(lhs), b = shapeOf(rhs);
  size_t rank = a.size();
  GemmForm g;
  g.M = a[rank - 2];
  g.K = a[rank - 1];
  g.N = b[rank - 1];
  g.batch = rank == 3 ? a[0] : 1;
  g.aRow = g.K;
  g.bRow = g.N;
  g.aBatch = g.M * g.K;
  g.bBatch = g.K * g.N;
  return lowerGemm(op, lhs, rhs, bias, g, false);
}

LogicalResult DelegateCompiler::lowerConvolution(ConvolutionOp conv) {
  FailureOr<Stored> in = operand(conv, conv.getInput());
  FailureOr<Stored> weight = operand(conv, conv.getWeight());
  FailureOr<Stored> bias = conv.getBias() ? operand(conv, conv.getBias())
                                          : FailureOr<Stored>(Stored{-1});
  if (failed(in) || failed(weight) || failed(bias))
    return failure();
  auto pair = [](ArrayRef<int64_t> values) {
    return std::array<int64_t, 2>{values[0], values[values.size() - 1]};
  };
  ArrayRef<int64_t> x = in->shape, w = weight->shape;
  ArrayRef<int64_t> y = shapeOf(conv.getResult());
  auto stride = pair(conv.getStride());
  auto padding = pair(conv.getPadding());
  auto dilation = pair(conv.getDilation());
  int64_t groups = conv.getGroups();
  int64_t KH = w[2], KW = w[3], H = x[2], W = x[3];
  Stored to = result(conv.getResult());
  // 1x1, dense, unpadded, unit stride: per image [O, C] x [C, H*W].
  if (KH == 1 && KW == 1 && groups == 1 &&
      stride == std::array<int64_t, 2>{1, 1} &&
      padding == std::array<int64_t, 2>{0, 0}) {
    GemmForm g;
    g.M = w[0];
    g.K = x[1];
    g.N = H * W;
    g.batch = x[0];
    g.aRow = g.K;
    g.bBatch = g.K * g.N;
    g.bRow = g.N;
    g.biasRow = 1;
    g.biasCol = 0;
    FailureOr<int> dispatch =
        emitGemm(conv, weight->buffer, in->buffer, bias->buffer, to.buffer, g);
    if (failed(dispatch))
      return failure();
    epilogues[conv.getResult()] = {*dispatch, kGemmActivation};
    return success();
  }
  std::vector<uint32_t> push = {uint32_t(x[0]),
                                uint32_t(x[1]),
                                uint32_t(H),
                                uint32_t(W),
                                uint32_t(y[1]),
                                uint32_t(y[2]),
                                uint32_t(y[3]),
                                uint32_t(KH),
                                uint32_t(KW),
                                uint32_t(stride[0]),
                                uint32_t(stride[1]),
                                uint32_t(padding[0]),
                                uint32_t(padding[1]),
                                uint32_t(dilation[0]),
                                uint32_t(dilation[1]),
                                uint32_t(groups),
                                uint32_t(bias->buffer >= 0),
                                uint32_t(Activation::None),
                                0,
                                0};
  std::vector<int> bound = {in->buffer, weight->buffer,
                            bias->buffer >= 0 ? bias->buffer : to.buffer,
                            to.buffer};
  int64_t pixels = product(y.drop_front(2));
  int dispatch =
      emitLine(Shader::Conv2d, std::move(bound), std::move(push),
               x[0] * groups * ceilDiv(y[1] / groups, kConvBlock) * pixels);
  epilogues[conv.getResult()] = {dispatch, kConvActivation};
  return success();
}

LogicalResult DelegateCompiler::lowerPool(Operation *op, PoolMode mode,
                                          ArrayRef<int64_t> kernel,
                                          ArrayRef<int64_t> stride,
                                          ArrayRef<int64_t> padding,
                                          ArrayRef<int64_t> dilation,
                                          float divisor) {
  FailureOr<Stored> in = operand(op, op->getOperand(0));
  if (failed(in))
    return failure();
  Stored to = result(op->getResult(0));
  ArrayRef<int64_t> x = in->shape, y = to.shape;
  auto at = [](ArrayRef<int64_t> values, size_t i, int64_t otherwise) {
    return uint32_t(values.empty() ? otherwise
                                   : values[values.size() > 1 ? i : 0]);
  };
  std::vector<uint32_t> push = {uint32_t(x[0] * x[1]),
                                uint32_t(x[2]),
                                uint32_t(x[3]),
                                uint32_t(y[2]),
                                uint32_t(y[3]),
                                at(kernel, 0, 1),
                                at(kernel, 1, 1),
                                at(stride, 0, at(kernel, 0, 1)),
                                at(stride, 1, at(kernel, 1, 1)),
                                at(padding, 0, 0),
                                at(padding, 1, 0),
                                at(dilation, 0, 1),
                                at(dilation, 1, 1),
                                uint32_t(mode),
                                floatBits(divisor)};
  emitLine(Shader::Pool2d, {in->buffer, to.buffer}, std::move(push),
           product(y));
  return success();
}

LogicalResult DelegateCompiler::lowerPooling(Operation *op) {
  if (auto pool = dyn_cast<MaxPool2dOp>(op))
    return lowerPool(op, PoolMode::Max, pool.getKernelSize(), pool.getStride(),
                     pool.getPadding(), pool.getDilation(), 0);
  if (auto pool = dyn_cast<AvgPool2dOp>(op)) {
    float divisor =
        pool.getDivisorOverride() ? float(*pool.getDivisorOverride()) : 0.0f;
    return lowerPool(op,
                     pool.getCountIncludePad() ? PoolMode::AvgIncludePad
                                               : PoolMode::AvgExcludePad,
                     pool.getKernelSize(), pool.getStride(), pool.getPadding(),
                     {}, divisor);
  }
  return lowerPool(op, PoolMode::AdaptiveAvg, {}, {}, {}, {}, 0);
}

std::array<int64_t, 3> DelegateCompiler::around(ArrayRef<int64_t> shape,
                                                int64_t dim) {
  return {product(shape.take_front(dim)), shape[dim],
          product(shape.drop_front(dim + 1))};
}

LogicalResult DelegateCompiler::lowerSoftmax(Operation *op, int64_t dim,
                                             bool logarithm) {
  FailureOr<Stored> in = operand(op, op->getOperand(0));
  if (failed(in))
    return failure();
  Stored to = result(op->getResult(0));
  int64_t rank = to.shape.size();
  auto [outer, D, inner] = around(
      to.shape,
      rank ? *normalizeDim(std::nullopt, "softmax", "dim", dim, rank) : 0);
  emitLine(Shader::Softmax, {in->buffer, to.buffer},
           {uint32_t(outer), uint32_t(D), uint32_t(inner), uint32_t(logarithm)},
           outer * inner);
  return success();
}

LogicalResult DelegateCompiler::lowerLayerNorm(LayerNormOp norm) {
  FailureOr<Stored> in = operand(norm, norm.getInput());
  FailureOr<Stored> weight = norm.getWeight() ? operand(norm, norm.getWeight())
                                              : FailureOr<Stored>(Stored{-1});
  FailureOr<Stored> bias = norm.getBias() ? operand(norm, norm.getBias())
                                          : FailureOr<Stored>(Stored{-1});
  if (failed(in) || failed(weight) || failed(bias))
    return failure();
  Stored to = result(norm.getResult());
  int64_t D = product(norm.getNormalizedShape());
  int64_t rows = product(to.shape) / D;
  uint32_t groups = std::min<int64_t>(rows, kMaxGroups);
  emit(Shader::LayerNorm,
       {in->buffer, weight->buffer >= 0 ? weight->buffer : to.buffer,
        bias->buffer >= 0 ? bias->buffer : to.buffer, to.buffer},
       {uint32_t(rows), uint32_t(D),
        floatBits(float(norm.getEps().convertToDouble())),
        uint32_t(weight->buffer >= 0), uint32_t(bias->buffer >= 0)},
       {groups, 1, 1}, {kLineWidth, 1});
  return success();
}

LogicalResult
DelegateCompiler::lowerReduction(Operation *op, ReduceMode mode,
                                 std::optional<ArrayRef<int64_t>> dims) {
  FailureOr<Stored> in = operand(op, op->getOperand(0));
  if (failed(in))
    return failure();
  int64_t rank = in->shape.size();
  SmallVector<int64_t> reduced;
  if (!dims || dims->empty())
    for (int64_t d = 0; d < rank; ++d)
      reduced.push_back(d);
  else
    for (int64_t dim : *dims)
      reduced.push_back(
          *normalizeDim(std::nullopt, "reduction", "dim", dim, rank));
  llvm::sort(reduced);
  reduced.erase(std::unique(reduced.begin(), reduced.end()), reduced.end());
  Stored to = result(op->getResult(0));
  SmallVector<int64_t> shape(in->shape);
  int from = in->buffer;
  for (size_t i = reduced.size(); i-- > 0;) {
    auto [outer, R, inner] = around(shape, reduced[i]);
    shape[reduced[i]] = 1;
    int into = i == 0 ? to.buffer : newBuffer(shape);
    emitLine(Shader::Reduce, {from, into},
             {uint32_t(outer), uint32_t(R), uint32_t(inner), uint32_t(mode)},
             outer * inner);
    from = into;
  }
  if (reduced.empty()) // a rank-0 input: a copy
    emitCopy(from, to.buffer, Walk({1}, {0}, {0}), 0, 0);
  return success();
}

LogicalResult DelegateCompiler::lowerView(Operation *op) {
  FailureOr<Stored> in = operand(op, op->getOperand(0));
  if (failed(in))
    return failure();
  stored[op->getResult(0)] = {in->buffer,
                              SmallVector<int64_t>(shapeOf(op->getResult(0)))};
  return success();
}

LogicalResult DelegateCompiler::lowerGather(Operation *op,
                                            ArrayRef<int64_t> sourceStrides,
                                            int64_t offset) {
  FailureOr<Stored> in = operand(op, op->getOperand(0));
  if (failed(in))
    return failure();
  Stored to = result(op->getResult(0));
  emitCopy(in->buffer, to.buffer,
           Walk(to.shape, sourceStrides, contiguousStrides(to.shape)), offset,
           0);
  return success();
}

LogicalResult DelegateCompiler::lowerPermute(Operation *op,
                                             ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> inStrides =
      contiguousStrides(shapeOf(op->getOperand(0)));
  SmallVector<int64_t> strides;
  for (int64_t d : permutation)
    strides.push_back(inStrides[d]);
  return lowerGather(op, strides, 0);
}

LogicalResult DelegateCompiler::lowerSlice(SliceOp slice) {
  ArrayRef<int64_t> in = shapeOf(slice.getSelf());
  int64_t dim =
      *normalizeDim(std::nullopt, "slice", "dim", slice.getDim(), in.size());
  int64_t start = slice.getStart().value_or(0);
  if (start < 0)
    start += in[dim];
  start = std::clamp<int64_t>(start, 0, in[dim]);
  SmallVector<int64_t> strides = contiguousStrides(in);
  int64_t offset = start * strides[dim];
  strides[dim] *= slice.getStep();
  return lowerGather(slice, strides, offset);
}

LogicalResult DelegateCompiler::lowerSelect(SelectOp select) {
  ArrayRef<int64_t> in = shapeOf(select.getSelf());
  int64_t dim =
      *normalizeDim(std::nullopt, "select", "dim", select.getDim(), in.size());
  int64_t index = static_cast<int64_t>(select.getIndex()); // I64Attr
  if (index < 0)
    index += in[dim];
  SmallVector<int64_t> strides = contiguousStrides(in);
  int64_t offset = index * strides[dim];
  strides.erase(strides.begin() + dim);
  return lowerGather(select, strides, offset);
}

LogicalResult DelegateCompiler::lowerCat(CatOp cat) {
  Stored to = result(cat.getResult());
  int64_t dim =
      *normalizeDim(std::nullopt, "cat", "dim", cat.getDim(), to.shape.size());
  SmallVector<int64_t> outStrides = contiguousStrides(to.shape);
  int64_t at = 0;
  for (Value piece : cat.getTensors()) {
    FailureOr<Stored> in = operand(cat, piece);
    if (failed(in))
      return failure();
    emitCopy(in->buffer, to.buffer,
             Walk(in->shape, contiguousStrides(in->shape), outStrides), 0,
             at * outStrides[dim]);
    at += in->shape[dim];
  }
  return success();
}

FailureOr<std::pair<Stored, MaskKind>>
DelegateCompiler::attentionMask(Operation *op, Value mask) {
  if (!isBool(mask) || !quantization::isConstant(mask)) {
    FailureOr<Stored> stored = operand(op, mask);
    if (failed(stored))
      return failure();
    return std::make_pair(*stored,
                          isBool(mask) ? MaskKind::Bool : MaskKind::Additive);
  }
  SmallVector<char> storage;
  auto constant = mask.getDefiningOp<ConstantOp>();
  std::optional<ArrayRef<char>> keep =
      constant ? getConstantBytes(constant.getValue(), storage) : std::nullopt;
  if (!keep)
    return op->emitOpError("vulkan: mask payload is not available");
  std::vector<float> added;
  for (char value : *keep)
    added.push_back(value != 0 ? 0.0f
                               : -std::numeric_limits<float>::infinity());
  return std::make_pair(Stored{constantBuffer(shapeOf(mask), added),
                               SmallVector<int64_t>(shapeOf(mask))},
                        MaskKind::Additive);
}

LogicalResult
DelegateCompiler::lowerAttention(ScaledDotProductAttentionOp attention) {
  FailureOr<Stored> q = operand(attention, attention.getQuery());
  FailureOr<Stored> k = operand(attention, attention.getKey());
  FailureOr<Stored> v = operand(attention, attention.getValue());
  if (failed(q) || failed(k) || failed(v))
    return failure();
  Stored to = result(attention.getResult());
  bool heads = q->shape.size() == 4;
  int64_t B = q->shape[0], H = heads ? q->shape[1] : 1,
          KVH = heads ? k->shape[1] : 1;
  int64_t L = q->shape.end()[-2], E = q->shape.back(), S = k->shape.end()[-2],
          Ev = v->shape.back();
  float scale = attention.getScale()
                    ? float(attention.getScale()->convertToDouble())
                    : 1.0f / std::sqrt(float(E));
  MaskKind kind = MaskKind::None;
  int maskBuffer = to.buffer; // unread without a mask
  SmallVector<int64_t> strides = {0, 0, 0, 0};
  if (Value mask = attention.getAttnMask()) {
    auto found = attentionMask(attention, mask);
    if (failed(found))
      return failure();
    kind = found->second;
    maskBuffer = found->first.buffer;
    // Broadcast to [B, H, L, S] ([B, L, S] for a query without heads).
    SmallVector<int64_t> target = {B, H, L, S};
    if (!heads)
      target.erase(target.begin() + 1);
    strides = broadcastStrides(found->first.shape, target);
    if (!heads)
      strides.insert(strides.begin() + 1, 0);
  }
  std::vector<uint32_t> push = {uint32_t(B),
                                uint32_t(H),
                                uint32_t(KVH),
                                uint32_t(L),
                                uint32_t(S),
                                uint32_t(E),
                                uint32_t(Ev),
                                uint32_t(kind),
                                uint32_t(strides[0]),
                                uint32_t(strides[1]),
                                uint32_t(strides[2]),
                                uint32_t(strides[3]),
                                uint32_t(attention.getIsCausal()),
                                floatBits(scale)};
  emitLine(Shader::Attention,
           {q->buffer, k->buffer, v->buffer, maskBuffer, to.buffer},
           std::move(push), B * H * L);
  return success();
}

} // namespace etch::vulkan::lowering
