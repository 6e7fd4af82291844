//===- OnednnCompiler.cpp - Delegate body -> oneDNN blob ------------------===//
#include "OnednnCompiler.h"

#include "BlobWriter.h"
#include "OnednnRules.h"

#include "edge/ConstantData.h"
#include "etch/Quantization/QdqPattern.h"
#include "etch/Target/ChannelsLast.h"
#include "etch/Target/DelegateLowering.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace etch::edge;
using etch::quantization::QuantizedOp;

namespace etch::onednn {
namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

std::vector<int64_t> pairOf(ArrayRef<int64_t> values) {
  return {values[0], values[values.size() > 1 ? 1 : 0]};
}

/// A value's element type as oneDNN stores it: f32, or per-tensor 8-bit
/// with its scale and zero point (the rules admit no other).
void setElementType(TensorT &tensor, Type type) {
  auto element = cast<ShapedType>(type).getElementType();
  auto uniform = dyn_cast<quant::UniformQuantizedType>(element);
  if (!uniform)
    return;
  tensor.datatype = uniform.isSigned() ? DataType::S8 : DataType::U8;
  tensor.scale = static_cast<float>(uniform.getScale());
  tensor.zero_point = static_cast<int32_t>(uniform.getZeroPoint());
}

/// Symmetric int8 weights, per tensor or per output channel (dim 0).
bool isSymmetricInt8Weight(quant::QuantizedType type) {
  if (!type || type.getStorageTypeIntegralWidth() != 8 || !type.isSigned())
    return false;
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(type))
    return uniform.getZeroPoint() == 0;
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type);
  return perAxis && perAxis.getQuantizedDimension() == 0 &&
         llvm::all_of(perAxis.getZeroPoints(),
                      [](int64_t zero) { return zero == 0; });
}

/// The scale of each of \p channels output channels.
std::vector<float> weightScales(quant::QuantizedType type, int64_t channels) {
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(type))
    return std::vector<float>(channels, uniform.getScale());
  auto scales = cast<quant::UniformQuantizedPerAxisType>(type).getScales();
  return std::vector<float>(scales.begin(), scales.end());
}

class DelegateCompiler : DelegateLowering {
public:
  explicit DelegateCompiler(DelegateOp delegate)
      : DelegateLowering(delegate, "onednn") {}

  FailureOr<CompiledDelegate> run() {
    if (failed(collectBorders(keepsChannelsLast(delegate))))
      return failure();
    for (auto [index, argument] : llvm::enumerate(body().getArguments()))
      bindArgument(argument, index);
    planInt8(body());
    if (failed(lowerDelegateBody(
            body(),
            [&](Operation &op) {
              return views.permutes.count(&op) || fused.count(&op);
            },
            /*dequantizedConstantsAreWeights=*/true,
            [&](Operation *op) {
              auto int8 = int8Convolutions.find(op);
              return int8 != int8Convolutions.end() ? lowerInt8(int8->second)
                                                    : lower(op);
            })))
      return failure();
    if (failed(bindResults(
            [&](uint32_t id) {
              const TensorT &tensor = blob.tensor(id);
              return tensor.input >= 0 || tensor.output >= 0 ||
                     tensor.data_size;
            },
            [&](uint32_t id, size_t index, Value value) {
              TensorT &tensor = blob.tensor(id);
              tensor.output = index;
              tensor.nchw = tensor.layout == Layout::ChannelsLast &&
                            !views.viewed.count(value);
            })))
      return failure();
    CompiledDelegate compiled;
    compiled.blob =
        blob.finish(body().getNumArguments(), terminator().getNumOperands());
    return compiled;
  }

private:
  Layout layoutOf(Value value) const {
    return channelsLast && shapeOf(value).size() == 4 ? Layout::ChannelsLast
                                                      : Layout::Plain;
  }

  /// An argument is NCHW in the program (reordered at the border) unless it
  /// arrives NHWC through border views: then its tensor has the views'
  /// logical dims and is bound as it is.
  void bindArgument(BlockArgument argument, size_t index) {
    bool nhwc = views.viewed.count(argument);
    Value logical =
        nhwc ? Value((*argument.getUsers().begin())->getResult(0)) : argument;
    uint32_t id = blob.addTensor(shapeOf(logical), layoutOf(logical));
    setElementType(blob.tensor(id), argument.getType());
    blob.tensor(id).input = index;
    blob.tensor(id).nchw = !nhwc && layoutOf(logical) == Layout::ChannelsLast;
    ids[argument] = id;
    if (nhwc)
      for (Operation *view : argument.getUsers())
        ids[view->getResult(0)] = id;
  }

  /// Weights and biases: row-major, reordered by the runtime at init.
  FailureOr<uint32_t> weightId(Operation *user, Value constant,
                               bool transpose = false) {
    FailureOr<std::vector<float>> values = floats(user, constant);
    if (failed(values))
      return failure();
    SmallVector<int64_t> shape(shapeOf(constant));
    if (transpose) {
      *values = permuteData<float>(*values, shape, {1, 0});
      std::swap(shape[0], shape[1]);
    }
    return blob.addConstant(shape, Layout::Plain, *values);
  }

  /// The tensor of an operand of an op whose result has rank \p rank: a
  /// constant gets leading 1s up to the rank and, when the result is NHWC,
  /// NHWC bytes.
  FailureOr<uint32_t> operandId(Operation *user, Value value, int64_t rank) {
    if (auto it = ids.find(value); it != ids.end())
      return it->second;
    if (!isConstant(value))
      return user->emitOpError("onednn: operand has no tensor");
    FailureOr<std::vector<float>> values = floats(user, value);
    if (failed(values))
      return failure();
    SmallVector<int64_t> shape(shapeOf(value));
    while (static_cast<int64_t>(shape.size()) < rank)
      shape.insert(shape.begin(), 1);
    bool nhwc = channelsLast && shape.size() == 4;
    if (nhwc)
      *values = permuteData<float>(*values, shape, kNchwToNhwc);
    return blob.addConstant(shape, nhwc ? Layout::ChannelsLast : Layout::Plain,
                            *values);
  }

  uint32_t resultId(Value result) {
    uint32_t id = blob.addTensor(shapeOf(result), layoutOf(result));
    setElementType(blob.tensor(id), result.getType());
    ids[result] = id;
    return id;
  }

  /// Adds a node computing \p result; nodes that take post-ops remember it.
  NodeT &addNode(Value result, std::vector<uint32_t> inputs,
                 NodeParamsUnion params, bool takesPostOps) {
    NodeT &node = blob.addNode(resultId(result), std::move(inputs));
    node.params = std::move(params);
    if (takesPostOps)
      producers[result] = &node;
    order[result] = nodeCount++;
    return node;
  }

  /// The node \p value may take a post-op on: its producer, when the post-op
  /// is its only reader and the value does not leave the delegate.
  NodeT *postOpTarget(Value value) {
    auto it = producers.find(value);
    if (it == producers.end() || !value.hasOneUse() || returned.count(value))
      return nullptr;
    return it->second;
  }

  /// Whether \p value is ready before the node computing \p before runs.
  bool readyBefore(Value value, Value before) {
    auto it = order.find(value);
    return it == order.end() || it->second < order.lookup(before);
  }

  /// The post-op's result is the producer's tensor (and may take more).
  void fuseInto(Value producerResult, Value result) {
    ids[result] = ids[producerResult];
    producers[result] = producers[producerResult];
    order[result] = order[producerResult];
  }

  template <typename T> static NodeParamsUnion paramsOf(T table) {
    NodeParamsUnion params;
    params.Set(std::move(table));
    return params;
  }

  /// oneDNN 2.6's kernels give every eltwise post-op of one algorithm the
  /// first one's parameters: a second with other parameters cannot fuse.
  static bool takesEltwise(const NodeT &node, const EltwiseForm &form) {
    return llvm::none_of(node.post_ops, [&](const auto &post) {
      return !post->sum && post->operand == kAbsentTensor &&
             post->eltwise == form.algorithm &&
             (post->alpha != form.alpha || post->beta != form.beta);
    });
  }

  static void appendEltwise(NodeT &node, const EltwiseForm &form) {
    auto post = std::make_unique<PostOpT>();
    post->eltwise = form.algorithm;
    post->alpha = form.alpha;
    post->beta = form.beta;
    node.post_ops.push_back(std::move(post));
  }

  LogicalResult lowerEltwise(Operation *op, const EltwiseForm &form) {
    Value input = op->getOperand(0), result = op->getResult(0);
    if (NodeT *producer = postOpTarget(input);
        producer && takesEltwise(*producer, form)) {
      appendEltwise(*producer, form);
      fuseInto(input, result);
      return success();
    }
    FailureOr<uint32_t> in = operandId(op, input, shapeOf(result).size());
    if (failed(in))
      return failure();
    EltwiseOpT params;
    params.algorithm = form.algorithm;
    params.alpha = form.alpha;
    params.beta = form.beta;
    addNode(result, {*in}, paramsOf(std::move(params)), false);
    return success();
  }

  LogicalResult lowerBinary(Operation *op, Binary algorithm) {
    Value result = op->getResult(0);
    Value full = op->getOperand(0), other = op->getOperand(1);
    bool commutes = algorithm == Binary::Add || algorithm == Binary::Mul ||
                    algorithm == Binary::Max || algorithm == Binary::Min;
    if (commutes && full.getType() != result.getType())
      std::swap(full, other);
    int64_t rank = shapeOf(result).size();
    // A residual add and the like: a binary post-op of the full operand's
    // producer, when the other operand is ready by then.
    SmallVector<std::pair<Value, Value>, 2> forms = {{full, other}};
    if (commutes && other.getType() == result.getType())
      forms.push_back({other, full});
    for (auto [into, operandValue] : forms) {
      NodeT *producer = postOpTarget(into);
      if (!producer || !readyBefore(operandValue, into))
        continue;
      // An inner product's post-ops see its result as [rows, out]: only a
      // full operand or a per-output one keeps its meaning there.
      if (producer->params.type == NodeParams::InnerProduct &&
          operandValue.getType() != result.getType() &&
          shapeOf(operandValue).size() > 1)
        continue;
      FailureOr<uint32_t> operand = operandId(op, operandValue, rank);
      if (failed(operand))
        return failure();
      auto post = std::make_unique<PostOpT>();
      post->binary = algorithm;
      post->operand = *operand;
      // oneDNN's brgconv kernels take a sum post-op, not a binary one.
      post->sum = algorithm == Binary::Add &&
                  producer->params.type == NodeParams::Convolution &&
                  producer->post_ops.empty() &&
                  operandValue.getType() == result.getType() &&
                  ids.count(operandValue);
      producer->post_ops.push_back(std::move(post));
      fuseInto(into, result);
      return success();
    }
    FailureOr<uint32_t> lhs = operandId(op, full, rank);
    FailureOr<uint32_t> rhs = operandId(op, other, rank);
    if (failed(lhs) || failed(rhs))
      return failure();
    BinaryOpT params;
    params.algorithm = algorithm;
    addNode(result, {*lhs, *rhs}, paramsOf(std::move(params)), true);
    return success();
  }

  /// ATen's symmetric window as oneDNN's begin and end padding.
  static ConvolutionT convolutionParams(ConvolutionOp conv) {
    ConvolutionT params;
    params.strides = pairOf(conv.getStride());
    params.dilations = pairOf(conv.getDilation());
    params.pad_begin = pairOf(conv.getPadding());
    params.pad_end = params.pad_begin;
    params.groups = conv.getGroups();
    return params;
  }

  LogicalResult lowerConvolution(ConvolutionOp conv) {
    FailureOr<uint32_t> input = operandId(conv, conv.getInput(), 4);
    FailureOr<uint32_t> weight = weightId(conv, conv.getWeight());
    FailureOr<uint32_t> bias = conv.getBias()
                                   ? weightId(conv, conv.getBias())
                                   : FailureOr<uint32_t>(kAbsentTensor);
    if (failed(input) || failed(weight) || failed(bias))
      return failure();
    addNode(conv.getResult(), {*input, *weight, *bias},
            paramsOf(convolutionParams(conv)), true);
    return success();
  }

  /// linear(x, W, b), addmm(b, x, W^T) and mm(x, W^T): an inner product
  /// with weights [out, in].
  LogicalResult lowerInnerProduct(Operation *op, Value input, Value weight,
                                  Value bias, bool transposed) {
    FailureOr<uint32_t> in = operandId(op, input, shapeOf(input).size());
    FailureOr<uint32_t> w = weightId(op, weight, transposed);
    FailureOr<uint32_t> b =
        bias ? weightId(op, bias) : FailureOr<uint32_t>(kAbsentTensor);
    if (failed(in) || failed(w) || failed(b))
      return failure();
    addNode(op->getResult(0), {*in, *w, *b}, paramsOf(InnerProductT()), true);
    return success();
  }

  /// The value \p op reads and the one it computes: for an op on 8-bit
  /// values, the quantized input and the quantize's result.
  Value loweredInput(Operation *op) const {
    auto it = int8PassThrough.find(op);
    return it != int8PassThrough.end() ? it->second : op->getOperand(0);
  }
  Value loweredResult(Operation *op) const {
    Value result = op->getResult(0);
    return int8PassThrough.count(op)
               ? (*result.getUsers().begin())->getResult(0)
               : result;
  }

  LogicalResult lowerPool(Operation *op, PoolT params) {
    Value input = loweredInput(op), result = loweredResult(op);
    FailureOr<uint32_t> in = operandId(op, input, 4);
    if (failed(in))
      return failure();
    if (shapeOf(result).size() == 4) {
      addNode(result, {*in}, paramsOf(std::move(params)), true);
      return success();
    }
    // mean without keepdim: pool to [N, C, 1, 1], then view as [N, C].
    ArrayRef<int64_t> shape = shapeOf(input);
    uint32_t pooled =
        blob.addTensor({shape[0], shape[1], 1, 1}, Layout::ChannelsLast);
    setElementType(blob.tensor(pooled), result.getType());
    blob.addNode(pooled, {*in}).params = paramsOf(std::move(params));
    addNode(result, {pooled}, paramsOf(ReshapeT()), false);
    return success();
  }

  static PoolT window(Pooling algorithm, ArrayRef<int64_t> kernel,
                      ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                      ArrayRef<int64_t> dilation) {
    PoolT params;
    params.algorithm = algorithm;
    params.kernel = pairOf(kernel);
    params.strides = pairOf(stride.empty() ? kernel : stride);
    params.pad_begin = pairOf(padding);
    params.pad_end = params.pad_begin;
    params.dilations = pairOf(dilation);
    return params;
  }

  /// ceil_mode: the bottom/right padding that makes oneDNN's (floor) output
  /// extents the op's.
  static void padToOutput(PoolT &params, ArrayRef<int64_t> in,
                          ArrayRef<int64_t> out) {
    for (int i = 0; i < 2; ++i) {
      int64_t span = params.dilations[i] * (params.kernel[i] - 1) + 1;
      int64_t needed = (out[2 + i] - 1) * params.strides[i] + span -
                       (in[2 + i] + params.pad_begin[i]);
      params.pad_end[i] = std::max(params.pad_end[i], needed);
    }
  }

  LogicalResult lowerPooling(Operation *op) {
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    ArrayRef<int64_t> out = shapeOf(op->getResult(0));
    if (auto pool = dyn_cast<MaxPool2dOp>(op)) {
      PoolT params =
          window(Pooling::Max, pool.getKernelSize(), pool.getStride(),
                 pool.getPadding(), pool.getDilation());
      padToOutput(params, in, out);
      return lowerPool(op, std::move(params));
    }
    if (auto pool = dyn_cast<AvgPool2dOp>(op)) {
      // With no padding both ATen divisors count the cells in the input.
      bool padded =
          llvm::any_of(pool.getPadding(), [](int64_t p) { return p != 0; });
      PoolT params = window(
          padded && pool.getCountIncludePad() ? Pooling::AvgIncludePad
                                              : Pooling::AvgExcludePad,
          pool.getKernelSize(), pool.getStride(), pool.getPadding(), {1, 1});
      padToOutput(params, in, out);
      return lowerPool(op, std::move(params));
    }
    // Global average: one window over H and W.
    return lowerPool(op, window(Pooling::AvgExcludePad, {in[2], in[3]}, {1, 1},
                                {0, 0}, {1, 1}));
  }

  //===--------------------------------------------------------------------===//
  // int8: dequantize -> convolution [-> clamp] -> quantize as one primitive
  //===--------------------------------------------------------------------===//

  /// The convolutions that run in int8; their clamp and quantize fold in.
  void planInt8(Block &body) {
    for (Operation &op : body) {
      auto conv = dyn_cast<ConvolutionOp>(op);
      std::optional<QuantizedOp> q =
          conv ? quantization::matchQuantizedOp(conv) : std::nullopt;
      if (!q || !q->operands[0].quantized ||
          isConstant(q->operands[0].quantized) ||
          !isEightBitActivation(q->operands[0].quantized.getType()) ||
          !q->operands[1].quantized ||
          !isSymmetricInt8Weight(q->operands[1].type) ||
          !isEightBitActivation(q->output.getType()) ||
          returned.count(conv.getResult()) ||
          (q->activation && returned.count(q->activation->getResult(0))))
        continue;
      if (q->activation)
        fused.insert(q->activation);
      fused.insert(q->output);
      convolutionOf[q->output] = &op;
      int8Readers.insert(&op);
      int8Convolutions[&op] = std::move(*q);
    }
    for (Operation &op : body) {
      if (isa<AddOp>(op))
        planResidualSum(op);
      if (isa<MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp, MeanOp, ViewOp,
              SqueezeOp, UnsqueezeOp>(op))
        planInt8PassThrough(op);
      if (auto linear = dyn_cast<LinearOp>(op))
        planInt8Linear(linear);
    }
  }

  /// dequantize -> pooling or reshape -> quantize with the same parameters:
  /// the op works on the 8-bit values themselves (a max or an average of
  /// values with one scale and zero point is one of the same).
  void planInt8PassThrough(Operation &op) {
    std::optional<QuantizedOp> q = quantization::matchQuantizedOp(&op);
    if (!q || q->activation || !q->operands[0].quantized ||
        isConstant(q->operands[0].quantized) ||
        !isEightBitActivation(q->output.getType()) ||
        q->operands[0].type != q->outputType() ||
        returned.count(op.getResult(0)))
      return;
    fused.insert(q->output);
    int8Readers.insert(&op);
    int8PassThrough[&op] = q->operands[0].quantized;
  }

  /// linear(dequantize(8-bit source with zero point 0), dequantize(int8
  /// weights)): an int8 inner product with a float result (oneDNN 2.6's
  /// inner products take no zero points; a quantize after it stays a
  /// conversion).
  void planInt8Linear(LinearOp linear) {
    auto source = linear.getInput().getDefiningOp<DequantizeOp>();
    auto weight = linear.getWeight().getDefiningOp<DequantizeOp>();
    if (!source || !weight || isConstant(source.getInput()) ||
        !isEightBitActivation(source.getInput().getType()) ||
        cast<quant::UniformQuantizedType>(
            source.getInput().getType().getElementType())
                .getZeroPoint() != 0 ||
        !weight.getInput().getDefiningOp<ConstantOp>() ||
        !isSymmetricInt8Weight(cast<quant::QuantizedType>(
            weight.getInput().getType().getElementType())))
      return;
    int8Readers.insert(linear);
    int8Linears.insert(linear);
  }

  /// add(dequantize(int8 convolution), dequantize(8-bit value ready before
  /// that convolution)) [-> clamp] -> quantize: the convolution accumulates
  /// the value (a sum post-op) and takes the add's result and clamp.
  void planResidualSum(Operation &add) {
    std::optional<QuantizedOp> q = quantization::matchQuantizedOp(&add);
    float low, high;
    // The fold saturates with a clip post-op; a second clip would take its
    // bounds (takesEltwise), so only a relu may follow the add.
    if (!q || !isEightBitActivation(q->output.getType()) ||
        (q->activation &&
         (!quantization::isClampLike(q->activation, low, high) || low != 0 ||
          !std::isinf(high))) ||
        returned.count(add.getResult(0)) ||
        (q->activation && returned.count(q->activation->getResult(0))))
      return;
    for (unsigned into : {0u, 1u}) {
      Value computed = q->operands[into].quantized;
      Value addend = q->operands[1 - into].quantized;
      Operation *conv =
          computed ? convolutionOf.lookup(computed.getDefiningOp()) : nullptr;
      if (!conv || !addend || isConstant(addend) ||
          !isEightBitActivation(addend.getType()) ||
          int8Convolutions.find(conv)->second.activation ||
          !computed.hasOneUse() || !add.getOperand(into).hasOneUse() ||
          sums.count(conv) ||
          (!isa<BlockArgument>(addend) &&
           !addend.getDefiningOp()->isBeforeInBlock(conv)))
        continue;
      fused.insert(add.getOperand(into).getDefiningOp());
      fused.insert(&add);
      if (q->activation)
        fused.insert(q->activation);
      fused.insert(q->output);
      int8Readers.insert(&add);
      sums[conv] = {addend, std::move(*q)};
      return;
    }
  }

  /// A quantize, or a dequantize of an activation, that no int8
  /// convolution absorbed: a reorder between f32 and 8-bit values.
  LogicalResult lowerConversion(Operation *op) {
    Value input = op->getOperand(0), result = op->getResult(0);
    if (isa<DequantizeOp>(op) &&
        llvm::all_of(result.getUsers(),
                     [&](Operation *user) { return int8Readers.count(user); }))
      return success();
    FailureOr<uint32_t> in = operandId(op, input, shapeOf(input).size());
    if (failed(in))
      return failure();
    addNode(result, {*in}, paramsOf(ConvertT()), false);
    return success();
  }

  /// The int8 weights (\p weight: a quantized constant, output channels
  /// along dim 0) and the bias in accumulator units of an op whose source
  /// has \p sourceType: {weights, bias or kAbsentTensor}.
  FailureOr<std::pair<uint32_t, uint32_t>>
  int8WeightsAndBias(Operation *op, Value weight, Value bias,
                     quant::QuantizedType sourceType) {
    ArrayRef<int64_t> shape = shapeOf(weight);
    SmallVector<char> storage;
    std::optional<ArrayRef<char>> bytes = getConstantBytes(
        weight.getDefiningOp<ConstantOp>().getValue(), storage);
    if (!bytes)
      return op->emitOpError("onednn: int8 weights are not available");
    std::vector<float> scales =
        weightScales(cast<quant::QuantizedType>(
                         cast<ShapedType>(weight.getType()).getElementType()),
                     shape[0]);
    uint32_t weights =
        blob.addData(shape, Layout::Plain, bytes->data(), bytes->size());
    blob.tensor(weights).datatype = DataType::S8;
    blob.tensor(weights).channel_scales = scales;
    if (!bias)
      return std::make_pair(weights, kAbsentTensor);
    // oneDNN adds the bias to the int32 accumulator, in its units.
    float sourceScale = static_cast<float>(
        cast<quant::UniformQuantizedType>(sourceType).getScale());
    FailureOr<std::vector<float>> real = floats(op, bias);
    if (failed(real))
      return failure();
    for (size_t c = 0; c < real->size(); ++c)
      (*real)[c] /= sourceScale * scales[c];
    return std::make_pair(
        weights, blob.addConstant(shapeOf(bias), Layout::Plain, *real));
  }

  LogicalResult lowerInt8Linear(LinearOp linear) {
    Value source = linear.getInput().getDefiningOp<DequantizeOp>().getInput();
    auto parts = int8WeightsAndBias(
        linear, linear.getWeight().getDefiningOp<DequantizeOp>().getInput(),
        linear.getBias(),
        cast<quant::QuantizedType>(
            cast<ShapedType>(source.getType()).getElementType()));
    FailureOr<uint32_t> in = operandId(linear, source, shapeOf(source).size());
    if (failed(parts) || failed(in))
      return failure();
    addNode(linear.getResult(), {*in, parts->first, parts->second},
            paramsOf(InnerProductT()), true);
    return success();
  }

  LogicalResult lowerInt8(const QuantizedOp &q) {
    auto conv = cast<ConvolutionOp>(q.op);
    auto parts = int8WeightsAndBias(conv, q.operands[1].quantized,
                                    conv.getBias(), q.operands[0].type);
    if (failed(parts))
      return failure();
    auto [weights, bias] = *parts;
    FailureOr<uint32_t> source = operandId(conv, q.operands[0].quantized, 4);
    if (failed(source))
      return failure();
    // With a residual sum the add's clamp and result are the node's.
    auto sum = sums.find(conv);
    const QuantizedOp &last = sum != sums.end() ? sum->second.add : q;
    FailureOr<uint32_t> addend = sum != sums.end()
                                     ? operandId(conv, sum->second.addend, 4)
                                     : FailureOr<uint32_t>(kAbsentTensor);
    if (failed(addend))
      return failure();
    ConvolutionT params = convolutionParams(conv);
    auto own = cast<quant::UniformQuantizedType>(q.outputType());
    if (sum != sums.end())
      params.requantize_scale = static_cast<float>(own.getScale());
    NodeT &node = addNode(last.output->getResult(0), {*source, weights, bias},
                          paramsOf(std::move(params)), false);
    if (sum != sums.end()) {
      // The quantize the fold skips, kept: the accumulator is requantized
      // to the convolution's own grid, rounded, saturated, then rescaled to
      // the add's units, so the sum matches the Q/DQ graph step for step.
      // (One linear post-op: oneDNN 2.6's int8 kernels give a second one
      // the first one's factor.)
      appendEltwise(node, {Eltwise::Round});
      appendEltwise(node,
                    {Eltwise::Clip,
                     float(own.getStorageTypeMin() - own.getZeroPoint()),
                     float(own.getStorageTypeMax() - own.getZeroPoint())});
      appendEltwise(node,
                    {Eltwise::Linear,
                     float(own.getScale() /
                           cast<quant::UniformQuantizedType>(last.outputType())
                               .getScale())});
      auto post = std::make_unique<PostOpT>();
      post->sum = true;
      post->operand = *addend;
      node.post_ops.push_back(std::move(post));
    }
    float low, high;
    if (last.activation &&
        quantization::isClampLike(last.activation, low, high)) {
      // Post-ops see the result scaled to its own units.
      float scale = static_cast<float>(
          cast<quant::UniformQuantizedType>(last.outputType()).getScale());
      bool relu = low == 0 && std::isinf(high);
      appendEltwise(node, relu ? EltwiseForm{Eltwise::Relu}
                               : EltwiseForm{Eltwise::Clip,
                                             std::max(low / scale, -FLT_MAX),
                                             std::min(high / scale, FLT_MAX)});
    }
    return success();
  }

  LogicalResult lower(Operation *op) {
    if (isa<QuantizeOp, DequantizeOp>(op))
      return lowerConversion(op);
    if (std::optional<EltwiseForm> form = eltwiseForm(op))
      return lowerEltwise(op, *form);
    if (std::optional<Binary> algorithm = binaryForm(op))
      return lowerBinary(op, *algorithm);
    if (auto conv = dyn_cast<ConvolutionOp>(op))
      return lowerConvolution(conv);
    if (auto linear = dyn_cast<LinearOp>(op))
      return int8Linears.count(linear)
                 ? lowerInt8Linear(linear)
                 : lowerInnerProduct(op, linear.getInput(), linear.getWeight(),
                                     linear.getBias(), false);
    if (auto addmm = dyn_cast<AddmmOp>(op))
      return lowerInnerProduct(op, addmm.getMat1(), addmm.getMat2(),
                               addmm.getSelf(), true);
    if (auto mm = dyn_cast<MmOp>(op))
      return lowerInnerProduct(op, mm.getSelf(), mm.getMat2(), Value(), true);
    if (isa<MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp, MeanOp>(op))
      return lowerPooling(op);
    if (isa<ViewOp, SqueezeOp, UnsqueezeOp>(op)) {
      Value input = loweredInput(op);
      FailureOr<uint32_t> in = operandId(op, input, shapeOf(input).size());
      if (failed(in))
        return failure();
      addNode(loweredResult(op), {*in}, paramsOf(ReshapeT()), false);
      return success();
    }
    return op->emitOpError("onednn: ") << whyUnsupported(op);
  }

  BlobWriter blob;
  llvm::DenseMap<Value, NodeT *> producers; // nodes that take post-ops
  llvm::DenseMap<Value, size_t> order;      // computing node's position
  llvm::DenseMap<Operation *, QuantizedOp> int8Convolutions;
  llvm::DenseMap<Operation *, Operation *> convolutionOf; // by its quantize
  struct ResidualSum {
    Value addend; // the 8-bit value accumulated
    QuantizedOp add;
  };
  llvm::DenseMap<Operation *, ResidualSum> sums; // by convolution
  // Ops that read their dequantized operands in 8-bit form: int8
  // convolutions and linear layers, folded adds, poolings and reshapes.
  llvm::DenseSet<Operation *> int8Readers;
  // Poolings and reshapes on 8-bit values: the quantized value each reads.
  llvm::DenseMap<Operation *, Value> int8PassThrough;
  llvm::DenseSet<Operation *> int8Linears;
  size_t nodeCount = 0;
};

} // namespace

FailureOr<CompiledDelegate> compileDelegate(DelegateOp delegate) {
  return DelegateCompiler(delegate).run();
}

} // namespace etch::onednn
