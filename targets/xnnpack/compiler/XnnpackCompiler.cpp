//===- XnnpackCompiler.cpp - Delegate body -> XNNPACK blob ----------------===//
#include "XnnpackCompiler.h"

#include "BlobWriter.h"
#include "Layout.h"
#include "XnnpackInt8.h"
#include "XnnpackRules.h"
#include "targets/xnnpack/schema/BlobFormat.h"
#include "targets/xnnpack/schema/QuantizationLimits.h"
#include "targets/xnnpack/schema/xnnpack_blob_generated.h"

#include "edge/ConstantData.h"
#include "etch/Target/DelegateLowering.h"
#include "etch/Transforms/ShapeBounds.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace etch::edge;
using etch::quantization::QuantizedOp;
using etch::quantization::QuantizedOperand;
namespace schema = etch::xnnpack;

namespace etch::xnnpack {
namespace {

/// XNNPACK's window: symmetric ATen padding (H, W), kernel, stride and
/// dilation, plus extra bottom/right padding (ceil mode).
std::unique_ptr<schema::Window2d> window2d(ArrayRef<int64_t> padding,
                                           ArrayRef<int64_t> kernel,
                                           ArrayRef<int64_t> stride,
                                           ArrayRef<int64_t> dilation,
                                           ArrayRef<int64_t> extra = {0, 0}) {
  return std::make_unique<schema::Window2d>(
      uint32_t(padding[0]), uint32_t(padding[1] + extra[1]),
      uint32_t(padding[0] + extra[0]), uint32_t(padding[1]),
      uint32_t(kernel[0]), uint32_t(kernel[1]), uint32_t(stride[0]),
      uint32_t(stride[1]), uint32_t(dilation[0]), uint32_t(dilation[1]));
}

schema::NodeParamsUnion scalarParams(double value) {
  schema::ScalarParamsT params;
  params.value = static_cast<float>(value);
  schema::NodeParamsUnion result;
  result.Set(std::move(params));
  return result;
}

class DelegateCompiler : DelegateLowering {
public:
  explicit DelegateCompiler(DelegateOp delegate)
      : DelegateLowering(delegate, "xnnpack") {}

  FailureOr<CompiledDelegate> run() {
    // Dynamic dims: tensors are written at their largest shapes (the runtime
    // computes the actual ones from its inputs').
    if (auto func = delegate->getParentOfType<func::FuncOp>()) {
      FailureOr<llvm::DenseMap<Value, RankedTensorType>> bounded =
          computeUpperBounds(func);
      if (failed(bounded))
        return failure();
      bounds = std::move(*bounded);
    }
    bool nhwc = keepsChannelsLast(delegate);
    for (Operation &op : body())
      if (nhwc && delegateLayout(&op) == DelegateLayout::Program)
        return op.emitOpError("xnnpack: internal: needs the program's layout "
                              "in a channels-last delegate");
    if (failed(collectBorders(nhwc)))
      return failure();
    fused.insert(views.permutes.begin(), views.permutes.end());
    for (auto [index, argument] : llvm::enumerate(body().getArguments()))
      bindArgument(argument, index);
    planInt8(body());
    if (failed(lowerDelegateBody(
            body(), [&](Operation &op) { return fused.count(&op) > 0; },
            /*dequantizedConstantsAreWeights=*/false,
            [&](Operation *op) {
              auto quantized = int8Ops.find(op);
              return quantized != int8Ops.end() ? lowerInt8(quantized->second)
                                                : lower(op);
            })))
      return failure();
    if (failed(bindResults(
            [&](uint32_t id) {
              return blob.tensors[id].input >= 0 ||
                     blob.tensors[id].output >= 0;
            },
            [&](uint32_t id, size_t index, Value value) {
              blob.tensors[id].output = index;
              blob.tensors[id].nchw =
                  !views.viewed.count(value) && isNhwc(value);
            })))
      return failure();
    CompiledDelegate compiled;
    compiled.blob =
        blob.finish(body().getNumArguments(), terminator().getNumOperands());
    return compiled;
  }

private:
  /// An argument already NHWC (read only through border views) is stored
  /// as it comes; the others in XNNPACK's order.
  void bindArgument(BlockArgument argument, size_t index) {
    bool nhwcBorder = views.viewed.count(argument);
    auto shape = cast<RankedTensorType>(argument.getType()).getShape();
    uint32_t id = blob.addTensor(
        nhwcBorder ? std::vector<uint64_t>(shape.begin(), shape.end())
                   : xnnDims(argument));
    setElementType(blob.tensors[id],
                   cast<ShapedType>(argument.getType()).getElementType());
    blob.tensors[id].input = index;
    blob.tensors[id].nchw = !nhwcBorder && isNhwc(argument);
    ids[argument] = id;
    if (nhwcBorder)
      for (Operation *view : argument.getUsers())
        ids[view->getResult(0)] = id;
  }

  /// Whether \p value is stored NHWC (rank 4 in a channels-last delegate).
  bool isNhwc(Value value) const {
    return channelsLast &&
           cast<RankedTensorType>(value.getType()).getRank() == 4;
  }

  /// The tensor id of a non-constant operand.
  FailureOr<uint32_t> valueId(Operation *user, Value value) {
    auto it = ids.find(value);
    if (it != ids.end())
      return it->second;
    if (isConstant(value))
      return constantId(user, value, /*perm=*/{});
    return user->emitOpError("xnnpack: operand has no tensor");
  }

  /// A constant as XNNPACK wants it: rank-4 data permuted by \p perm (NCHW
  /// -> NHWC when perm is empty), others as they are.
  FailureOr<uint32_t> constantId(Operation *user, Value constant,
                                 ArrayRef<int64_t> perm) {
    FailureOr<std::vector<float>> values = floats(user, constant);
    if (failed(values))
      return failure();
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(constant.getType()).getShape();
    if (shape.size() != 4 || (perm.empty() && !channelsLast))
      return blob.addConstant(std::vector<uint64_t>(shape.begin(), shape.end()),
                              *values);
    SmallVector<int64_t> order(perm.empty() ? ArrayRef<int64_t>{0, 2, 3, 1}
                                            : perm);
    std::vector<uint64_t> dims;
    for (int64_t d : order)
      dims.push_back(shape[d]);
    return blob.addConstant(std::move(dims),
                            permuteData<float>(*values, shape, order));
  }

  /// A constant broadcast against a rank-4 (NHWC) result: extended to rank
  /// 4 in NCHW terms, then permuted to NHWC.
  FailureOr<uint32_t> broadcastConstantId(Operation *user, Value constant) {
    FailureOr<std::vector<float>> values = floats(user, constant);
    if (failed(values))
      return failure();
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(constant.getType()).getShape());
    while (shape.size() < 4)
      shape.insert(shape.begin(), 1);
    std::vector<uint64_t> dims = {uint64_t(shape[0]), uint64_t(shape[2]),
                                  uint64_t(shape[3]), uint64_t(shape[1])};
    return blob.addConstant(std::move(dims),
                            permuteData<float>(*values, shape, {0, 2, 3, 1}));
  }

  /// \p value's extents in XNNPACK's order, dynamic ones at their bounds.
  std::vector<uint64_t> xnnDims(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (!type.hasStaticShape())
      if (RankedTensorType bound = bounds.lookup(value))
        type = bound;
    if (!channelsLast)
      return std::vector<uint64_t>(type.getShape().begin(),
                                   type.getShape().end());
    return etch::xnnpack::xnnDims(type.getShape());
  }

  /// A reshape to \p result: its shape, and the one dynamic dim (the rules
  /// allow no more) that the runtime derives from the element count.
  void setReshapeShape(NodeRecord &node, Value result) {
    auto type = cast<RankedTensorType>(result.getType());
    schema::ReshapeParamsT params;
    params.shape = xnnDims(result);
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        params.dynamic_dim = channelsLast ? xnnDim(d, type.getRank()) : d;
    node.params.Set(std::move(params));
  }

  /// The tensor of \p result: a new one, typed like the value, unless the
  /// int8 lowering assigned it already (the quantize's tensor).
  uint32_t resultId(Value result) {
    if (auto it = ids.find(result); it != ids.end())
      return it->second;
    uint32_t id = blob.addTensor(xnnDims(result));
    setElementType(blob.tensors[id],
                   cast<ShapedType>(result.getType()).getElementType());
    ids[result] = id;
    return id;
  }

  /// Emits \p node for \p op and fuses a following clamp into it when the
  /// result has no other use.
  void emit(Operation *op, NodeRecord node) {
    if (node.fusable && op->getNumResults() == 1) {
      Value result = op->getResult(0);
      if (result.hasOneUse() && !returned.count(result)) {
        Operation *user = *result.getUsers().begin();
        float low, high;
        if (isClampLike(user, low, high)) {
          node.outputMin = std::max(node.outputMin, low);
          node.outputMax = std::min(node.outputMax, high);
          ids[user->getResult(0)] = node.outputs.front();
          fused.insert(user);
        }
      }
    }
    blob.nodes.push_back(std::move(node));
  }

  using K = schema::NodeKind;

  /// Every op the rules admit goes to its handler below.
  LogicalResult lower(Operation *op) {
    if (isa<QuantizeOp, DequantizeOp>(op))
      return lowerConversion(op);
    float low, high;
    if (isClampLike(op, low, high))
      return lowerClamp(op, low, high);
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](HardswishOp) { return lowerUnary(op, K::Hardswish); })
        .Case([&](HardsigmoidOp) { return lowerHardsigmoid(op); })
        .Case([&](SigmoidOp) { return lowerUnary(op, K::Sigmoid); })
        .Case([&](SiluOp) { return lowerSilu(op); })
        .Case([&](AbsOp) { return lowerUnary(op, K::Abs); })
        .Case([&](NegOp) { return lowerUnary(op, K::Negate); })
        .Case([&](SqrtOp) { return lowerUnary(op, K::SquareRoot); })
        .Case([&](FloorOp) { return lowerUnary(op, K::Floor); })
        .Case([&](CeilOp) { return lowerUnary(op, K::Ceiling); })
        // Ties to even, as ATen.
        .Case([&](RoundOp) { return lowerUnary(op, K::BankersRounding); })
        .Case([&](LeakyReluOp leaky) {
          return lowerUnary(op, K::LeakyRelu,
                            leaky.getNegativeSlope().convertToDouble());
        })
        .Case([&](EluOp elu) {
          return lowerUnary(op, K::Elu, elu.getAlpha().convertToDouble());
        })
        .Case([&](ConstantPadNdOp pad) { return lowerPad(pad); })
        .Case([&](SoftmaxOp) { return lowerUnary(op, K::Softmax); })
        .Case([&](ConvolutionOp conv) { return lowerConvolution(conv); })
        .Case<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp>(
            [&](Operation *) { return lowerBinary(op); })
        .Case([&](LinearOp linear) { return lowerLinear(linear); })
        .Case<AddmmOp, MmOp>([&](Operation *) { return lowerMatmul(op); })
        .Case([&](MaxPool2dOp pool) { return lowerMaxPool(pool); })
        .Case([&](AvgPool2dOp pool) { return lowerAvgPool(pool); })
        .Case<AdaptiveAvgPool2dOp, MeanOp>(
            [&](Operation *) { return lowerGlobalPool(op); })
        .Case([&](CatOp cat) { return lowerCat(cat); })
        .Case<ViewOp, SqueezeOp, UnsqueezeOp>(
            [&](Operation *) { return lowerReshape(op); })
        .Default([&](Operation *) {
          return op->emitOpError("xnnpack: ") << whyUnsupported(op);
        });
  }

  /// A node of \p kind from \p input (default: the first operand) to
  /// \p op's result, its parameters set by \p configure.
  template <typename Configure>
  LogicalResult lowerOneInput(Operation *op, K kind, Configure configure,
                              Value input = {}) {
    FailureOr<uint32_t> id = valueId(op, input ? input : op->getOperand(0));
    if (failed(id))
      return failure();
    NodeRecord node{kind, {*id}, {resultId(op->getResult(0))}};
    configure(node);
    emit(op, std::move(node));
    return success();
  }

  /// A node of one input, and its one scalar parameter where it has one.
  LogicalResult lowerUnary(Operation *op, K kind, double value = 0) {
    return lowerOneInput(op, kind, [&](NodeRecord &node) {
      if (schema::paramsOf(kind) == schema::NodeParams::ScalarParams)
        node.params = scalarParams(value);
    });
  }

  LogicalResult lowerClamp(Operation *op, float low, float high) {
    return lowerOneInput(op, K::Clamp, [&](NodeRecord &node) {
      node.outputMin = low;
      node.outputMax = high;
    });
  }

  /// hardsigmoid(x) = clamp(x * 1/6 + 1/2, 0, 1): a multiply and an add
  /// with a fused output range (XNNPACK 2022 has no hardsigmoid node).
  LogicalResult lowerHardsigmoid(Operation *op) {
    FailureOr<uint32_t> input = valueId(op, op->getOperand(0));
    if (failed(input))
      return failure();
    std::vector<uint64_t> one(
        cast<RankedTensorType>(op->getResult(0).getType()).getRank(), 1);
    float sixth = 1.0f / 6.0f, half = 0.5f;
    uint32_t scaled = blob.addTensor(xnnDims(op->getResult(0)));
    emit(op, NodeRecord{K::Multiply,
                        {*input, blob.addConstant(one, sixth)},
                        {scaled}});
    NodeRecord shift{K::Add,
                     {scaled, blob.addConstant(one, half)},
                     {resultId(op->getResult(0))}};
    shift.outputMin = 0.0f;
    shift.outputMax = 1.0f;
    emit(op, std::move(shift));
    return success();
  }

  /// silu(x) = x * sigmoid(x): XNNPACK 2022 has no silu node.
  LogicalResult lowerSilu(Operation *op) {
    FailureOr<uint32_t> input = valueId(op, op->getOperand(0));
    if (failed(input))
      return failure();
    uint32_t gate = blob.addTensor(xnnDims(op->getResult(0)));
    emit(op, NodeRecord{K::Sigmoid, {*input}, {gate}});
    emit(op,
         NodeRecord{K::Multiply, {*input, gate}, {resultId(op->getResult(0))}});
    return success();
  }

  LogicalResult lowerPad(ConstantPadNdOp pad) {
    // ATen pairs run from the last dim; XNNPACK wants per-dim lists in its
    // layout (NHWC for rank 4).
    int64_t rank = pad.getSelf().getType().getRank();
    SmallVector<uint32_t> pre(rank, 0), post(rank, 0);
    ArrayRef<int64_t> pairs = pad.getPad();
    for (size_t i = 0; i < pairs.size() / 2; ++i) {
      pre[rank - 1 - i] = pairs[2 * i];
      post[rank - 1 - i] = pairs[2 * i + 1];
    }
    if (rank == 4 && channelsLast) {
      pre = {pre[0], pre[2], pre[3], pre[1]};
      post = {post[0], post[2], post[3], post[1]};
    }
    return lowerOneInput(pad, K::ConstantPad, [&](NodeRecord &node) {
      schema::PadParamsT params;
      params.pre.assign(pre.begin(), pre.end());
      params.post.assign(post.begin(), post.end());
      params.value = static_cast<float>(pad.getValue().convertToDouble());
      node.params.Set(std::move(params));
    });
  }

  /// add, sub, mul, div, maximum, minimum (broadcasting).
  LogicalResult lowerBinary(Operation *op) {
    bool nhwc = isNhwc(op->getResult(0));
    SmallVector<uint32_t> inputs;
    for (Value operand : op->getOperands()) {
      FailureOr<uint32_t> id = isConstant(operand) && nhwc
                                   ? broadcastConstantId(op, operand)
                                   : valueId(op, operand);
      if (failed(id))
        return failure();
      inputs.push_back(*id);
    }
    K kind = isa<AddOp>(op)       ? K::Add
             : isa<SubOp>(op)     ? K::Subtract
             : isa<MulOp>(op)     ? K::Multiply
             : isa<DivOp>(op)     ? K::Divide
             : isa<MaximumOp>(op) ? K::Maximum
                                  : K::Minimum;
    NodeRecord node{kind, {inputs[0], inputs[1]}, {resultId(op->getResult(0))}};
    // maximum2/minimum2 have no output range to fuse a clamp into.
    node.fusable = kind != K::Maximum && kind != K::Minimum;
    emit(op, std::move(node));
    return success();
  }

  LogicalResult lowerLinear(LinearOp linear) {
    FailureOr<uint32_t> input = valueId(linear, linear.getInput());
    FailureOr<uint32_t> weight = constantId(linear, linear.getWeight(), {});
    if (failed(input) || failed(weight))
      return failure();
    uint32_t bias = kAbsentTensor;
    if (Value b = linear.getBias()) {
      FailureOr<uint32_t> id = constantId(linear, b, {});
      if (failed(id))
        return failure();
      bias = *id;
    }
    NodeRecord node{K::FullyConnected,
                    {*input, *weight, bias},
                    {resultId(linear.getResult())}};
    node.fusable = true;
    emit(linear, std::move(node));
    return success();
  }

  /// addmm(b, x, W^T) / mm(x, W^T): a fully connected layer, filter W.
  LogicalResult lowerMatmul(Operation *op) {
    auto addmm = dyn_cast<AddmmOp>(op);
    Value mat2 = addmm ? addmm.getMat2() : cast<MmOp>(op).getMat2();
    Value mat1 = addmm ? addmm.getMat1() : cast<MmOp>(op).getSelf();
    FailureOr<std::vector<float>> values = floats(op, mat2);
    FailureOr<uint32_t> input = valueId(op, mat1);
    FailureOr<uint32_t> bias = addmm ? constantId(op, addmm.getSelf(), {})
                                     : FailureOr<uint32_t>(kAbsentTensor);
    if (failed(values) || failed(input) || failed(bias))
      return failure();
    ArrayRef<int64_t> shape = cast<RankedTensorType>(mat2.getType()).getShape();
    uint32_t filter =
        blob.addConstant({uint64_t(shape[1]), uint64_t(shape[0])},
                         permuteData<float>(*values, shape, {1, 0}));
    NodeRecord node{K::FullyConnected,
                    {*input, filter, *bias},
                    {resultId(op->getResult(0))}};
    node.fusable = true;
    emit(op, std::move(node));
    return success();
  }

  LogicalResult lowerMaxPool(MaxPool2dOp pool) {
    ArrayRef<int64_t> kernel = pool.getKernelSize(),
                      padding = pool.getPadding(),
                      dilation = pool.getDilation();
    ArrayRef<int64_t> stride =
        pool.getStride().empty() ? kernel : pool.getStride();
    ArrayRef<int64_t> in = pool.getSelf().getType().getShape();
    ArrayRef<int64_t> out = pool.getType().getShape();
    // ceil_mode: extra bottom/right padding (ignored by max pooling); the
    // rules keep H and W static then.
    SmallVector<int64_t> extra(2, 0);
    for (int i = 0; pool.getCeilMode() && i < 2; ++i) {
      int64_t needed = (out[2 + i] - 1) * stride[i] +
                       dilation[i] * (kernel[i] - 1) + 1 -
                       (in[2 + i] + 2 * padding[i]);
      extra[i] = needed > 0 ? needed : 0;
    }
    return lowerOneInput(pool, K::MaxPooling2d, [&](NodeRecord &node) {
      schema::PoolingParamsT params;
      params.window = window2d(padding, kernel, stride, dilation, extra);
      node.params.Set(std::move(params));
      node.fusable = true;
    });
  }

  /// XNNPACK's padded average pooling divides by the pixels inside the
  /// input (count_include_pad=False); ATen's default counts the padding, so
  /// there the input is zero-padded first and pooled unpadded.
  LogicalResult lowerAvgPool(AvgPool2dOp pool) {
    ArrayRef<int64_t> kernel = pool.getKernelSize();
    ArrayRef<int64_t> stride =
        pool.getStride().empty() ? kernel : pool.getStride();
    SmallVector<int64_t> padding(pool.getPadding());
    Value input = pool.getSelf();
    FailureOr<uint32_t> pooledFrom = valueId(pool, input);
    if (failed(pooledFrom))
      return failure();
    if (pool.getCountIncludePad() &&
        llvm::any_of(padding, [](int64_t p) { return p != 0; })) {
      std::vector<uint64_t> dims = xnnDims(input); // NHWC
      dims[1] += 2 * padding[0];
      dims[2] += 2 * padding[1];
      uint32_t padded = blob.addTensor(dims);
      NodeRecord pad{K::ConstantPad, {*pooledFrom}, {padded}};
      schema::PadParamsT params;
      params.pre = {0, static_cast<uint32_t>(padding[0]),
                    static_cast<uint32_t>(padding[1]), 0};
      params.post = params.pre;
      params.value = 0.0f;
      pad.params.Set(std::move(params));
      emit(pool, std::move(pad));
      pooledFrom = padded;
      padding = {0, 0};
    }
    NodeRecord node{
        K::AveragePooling2d, {*pooledFrom}, {resultId(pool.getResult())}};
    schema::PoolingParamsT params;
    params.window = window2d(padding, kernel, stride, {1, 1});
    node.params.Set(std::move(params));
    node.fusable = true;
    emit(pool, std::move(node));
    return success();
  }

  /// adaptive_avg_pool2d to 1x1, or a mean over H and W: a global average
  /// pooling, then a reshape where the result drops the 1x1.
  LogicalResult lowerGlobalPool(Operation *op) {
    FailureOr<uint32_t> input = valueId(op, op->getOperand(0));
    if (failed(input))
      return failure();
    Value result = op->getResult(0);
    std::vector<uint64_t> inputDims = xnnDims(op->getOperand(0)); // NHWC
    std::vector<uint64_t> pooledDims = {inputDims[0], 1, 1, inputDims[3]};
    bool keep = cast<RankedTensorType>(result.getType()).getRank() == 4;
    uint32_t pooled = keep ? resultId(result) : blob.addTensor(pooledDims);
    if (!keep) { // the pooled values are stored like the result (int8)
      const TensorRecord &out = blob.tensors[resultId(result)];
      TensorRecord &record = blob.tensors[pooled];
      record.datatype = out.datatype;
      record.scale = out.scale;
      record.zeroPoint = out.zeroPoint;
    }
    NodeRecord node{K::GlobalAveragePooling2d, {*input}, {pooled}};
    node.fusable = keep;
    emit(op, std::move(node));
    if (!keep) {
      NodeRecord reshape{K::StaticReshape, {pooled}, {resultId(result)}};
      setReshapeShape(reshape, result);
      emit(op, std::move(reshape));
    }
    return success();
  }

  /// The rules admit channel concatenation (dim 1) of rank-4 tensors.
  LogicalResult lowerCat(CatOp cat) {
    NodeRecord node{K::Concatenate, {}, {resultId(cat.getResult())}};
    for (Value operand : cat.getTensors()) {
      FailureOr<uint32_t> input = valueId(cat, operand);
      if (failed(input))
        return failure();
      node.inputs.push_back(*input);
    }
    schema::ConcatenateParamsT params;
    params.axis = channelsLast ? xnnDim(1, 4) : 1;
    node.params.Set(std::move(params));
    emit(cat, std::move(node));
    return success();
  }

  LogicalResult lowerReshape(Operation *op) {
    return lowerOneInput(op, K::StaticReshape, [&](NodeRecord &node) {
      setReshapeShape(node, op->getResult(0));
    });
  }

  static bool isDepthwise(ConvolutionOp conv) {
    ArrayRef<int64_t> w = conv.getWeight().getType().getShape();
    int64_t groups = conv.getGroups();
    return groups == conv.getInput().getType().getDimSize(1) && w[1] == 1 &&
           groups > 1;
  }

  /// XNNPACK's convolution parameters: the window, then the depth
  /// multiplier and channels (depthwise) or the groups and per-group
  /// channels.
  static schema::NodeParamsUnion convolutionParams(ConvolutionOp conv) {
    ArrayRef<int64_t> w = conv.getWeight().getType().getShape();
    int64_t groups = conv.getGroups();
    int64_t inChannels = conv.getInput().getType().getDimSize(1);
    auto window = window2d(conv.getPadding(), w.drop_front(2), conv.getStride(),
                           conv.getDilation());
    schema::NodeParamsUnion params;
    if (isDepthwise(conv)) {
      schema::DepthwiseConvolutionParamsT depthwise;
      depthwise.window = std::move(window);
      depthwise.depth_multiplier = uint32_t(w[0] / inChannels);
      depthwise.input_channels = uint32_t(inChannels);
      params.Set(std::move(depthwise));
    } else {
      schema::ConvolutionParamsT grouped;
      grouped.window = std::move(window);
      grouped.groups = uint32_t(groups);
      grouped.group_input_channels = uint32_t(inChannels / groups);
      grouped.group_output_channels = uint32_t(w[0] / groups);
      params.Set(std::move(grouped));
    }
    return params;
  }

  LogicalResult lowerConvolution(ConvolutionOp conv) {
    FailureOr<uint32_t> input = valueId(conv, conv.getInput());
    if (failed(input))
      return failure();
    bool depthwise = isDepthwise(conv);
    Value weightConstant = conv.getWeight();
    // OIHW -> OHWI (grouped) or -> 1HW(C*M) (depthwise).
    FailureOr<uint32_t> filter =
        constantId(conv, weightConstant,
                   depthwise ? ArrayRef<int64_t>{1, 2, 3, 0}
                             : ArrayRef<int64_t>{0, 2, 3, 1});
    if (failed(filter))
      return failure();
    uint32_t bias = kAbsentTensor;
    if (Value b = conv.getBias()) {
      FailureOr<uint32_t> id = constantId(conv, b, {});
      if (failed(id))
        return failure();
      bias = *id;
    }
    NodeRecord node{depthwise ? K::DepthwiseConvolution2d : K::Convolution2d,
                    {*input, *filter, bias},
                    {resultId(conv.getResult())},
                    convolutionParams(conv)};
    node.fusable = true;
    emit(conv, std::move(node));
    return success();
  }

  //===--------------------------------------------------------------------===//
  // int8: dequantize -> op -> quantize as one XNNPACK int8 node
  //===--------------------------------------------------------------------===//

  /// Finds the int8 nodes; their activation and quantize fold into them.
  void planInt8(Block &body) {
    for (Operation &op : body) {
      std::optional<QuantizedOp> q = quantization::matchQuantizedOp(&op);
      if (!q || !supportsInt8(*q) || !int8ScalesSupported(*q) ||
          returned.count(op.getResult(0)))
        continue;
      if (q->activation && (returned.count(q->activation->getResult(0)) ||
                            // Only nodes with an output range absorb the clamp.
                            isa<ViewOp, SqueezeOp, UnsqueezeOp>(&op)))
        continue;
      if (q->activation)
        fused.insert(q->activation);
      fused.insert(q->output);
      int8Ops[&op] = std::move(*q);
    }
  }

  /// A quantize or dequantize that no int8 node absorbed: an XNNPACK
  /// convert between fp32 and qint8. A dequantized constant is a float
  /// constant for its float users (valueId) and int8 weights for int8 ones.
  LogicalResult lowerConversion(Operation *op) {
    Value input = op->getOperand(0), result = op->getResult(0);
    if (isConstant(input))
      return success();
    if (isa<DequantizeOp>(op) &&
        llvm::all_of(result.getUsers(),
                     [&](Operation *user) { return int8Ops.count(user); }))
      return success();
    FailureOr<uint32_t> in = valueId(op, input);
    if (failed(in))
      return failure();
    emit(op, NodeRecord{schema::NodeKind::Convert, {*in}, {resultId(result)}});
    return success();
  }

  LogicalResult lowerInt8(const QuantizedOp &q) {
    Operation *op = q.op;
    // The op reads the quantized values and writes the quantize's tensor;
    // the dequantized values keep their own (float) tensors for other users.
    llvm::DenseMap<Value, std::optional<uint32_t>> saved;
    for (auto [operand, entry] : llvm::zip(op->getOperands(), q.operands)) {
      if (!isInt8Activation(entry) || saved.count(operand))
        continue;
      FailureOr<uint32_t> id = valueId(op, entry.quantized);
      if (failed(id))
        return failure();
      auto it = ids.find(operand);
      saved[operand] =
          it == ids.end() ? std::nullopt : std::optional<uint32_t>(it->second);
      ids[operand] = *id;
    }
    ids[op->getResult(0)] = resultId(q.output->getResult(0));
    LogicalResult lowered = failure();
    if (auto conv = dyn_cast<ConvolutionOp>(op))
      lowered = lowerInt8Convolution(q, conv);
    else if (auto linear = dyn_cast<LinearOp>(op))
      lowered = lowerInt8FullyConnected(q, linear.getInput(), 1,
                                        linear.getBias(), false);
    else if (auto addmm = dyn_cast<AddmmOp>(op))
      lowered =
          lowerInt8FullyConnected(q, addmm.getMat1(), 2, addmm.getSelf(), true);
    else if (auto mm = dyn_cast<MmOp>(op))
      lowered = lowerInt8FullyConnected(q, mm.getSelf(), 1, Value(), true);
    else
      lowered = lower(op); // the float lowering, on int8 tensors
    for (auto &[operand, previous] : saved) {
      if (previous)
        ids[operand] = *previous;
      else
        ids.erase(operand);
    }
    return lowered;
  }

  /// int32 bias at scale input_scale * weight_scale[c] (XNNPACK's rule),
  /// from the bias's float values (zeros when absent).
  FailureOr<uint32_t> int8Bias(Operation *op, Value bias, float inputScale,
                               ArrayRef<float> weightScales, bool channelwise) {
    std::vector<float> real(weightScales.size(), 0.0f);
    if (bias) {
      FailureOr<std::vector<float>> values = floats(op, bias);
      if (failed(values))
        return failure();
      real = std::move(*values);
    }
    std::vector<int32_t> quantized;
    std::vector<float> scales;
    for (size_t c = 0; c < real.size(); ++c) {
      float scale = inputScale * weightScales[channelwise ? c : 0];
      double q = std::nearbyint(static_cast<double>(real[c]) / scale);
      quantized.push_back(static_cast<int32_t>(
          std::clamp(q, double(INT32_MIN), double(INT32_MAX))));
      scales.push_back(scale);
    }
    std::vector<uint64_t> dims = {uint64_t(real.size())};
    if (channelwise)
      return blob.addChannelwise<int32_t>(dims, quantized, std::move(scales),
                                          0);
    uint32_t id = blob.addData<int32_t>(dims, quantized);
    blob.tensors[id].datatype = schema::Datatype::Qint32;
    blob.tensors[id].scale = scales.front();
    return id;
  }

  LogicalResult lowerInt8Convolution(const QuantizedOp &q, ConvolutionOp conv) {
    bool depthwise = isDepthwise(conv);
    ArrayRef<int64_t> shape = conv.getWeight().getType().getShape(); // OIHW
    std::vector<int8_t> weights = storedInt8(q.operands[1].quantized);
    if (weights.empty())
      return conv.emitOpError("xnnpack: int8 weights are not available");
    std::vector<float> scales = weightScales(q.operands[1].type, shape[0]);
    // OIHW -> OHWI (channel dim 0), or -> 1HWO for depthwise (channel dim 3).
    SmallVector<int64_t> order = depthwise ? SmallVector<int64_t>{1, 2, 3, 0}
                                           : SmallVector<int64_t>{0, 2, 3, 1};
    std::vector<uint64_t> dims;
    for (int64_t d : order)
      dims.push_back(shape[d]);
    uint32_t filter = blob.addChannelwise<int8_t>(
        dims, permuteData<int8_t>(weights, shape, order), scales,
        depthwise ? 3 : 0);
    FailureOr<uint32_t> bias =
        int8Bias(conv, conv.getBias(), q.perTensor(0).getScale(), scales,
                 /*channelwise=*/true);
    FailureOr<uint32_t> input = valueId(conv, conv.getInput());
    if (failed(bias) || failed(input))
      return failure();
    NodeRecord node{depthwise ? K::DepthwiseConvolution2d : K::Convolution2d,
                    {*input, filter, *bias},
                    {resultId(conv.getResult())},
                    convolutionParams(conv)};
    node.fusable = true;
    emit(conv, std::move(node));
    return success();
  }

  /// linear (weight [out, in]) or addmm/mm (weight operand \p weightIndex
  /// is W^T, \p transposed) as an int8 fully connected node with a
  /// per-tensor qint8 filter, XNNPACK 2022's only int8 filter for it.
  LogicalResult lowerInt8FullyConnected(const QuantizedOp &q, Value input,
                                        size_t weightIndex, Value bias,
                                        bool transposed) {
    Operation *op = q.op;
    Value quantizedWeight = q.operands[weightIndex].quantized;
    std::vector<int8_t> weights = storedInt8(quantizedWeight);
    if (weights.empty())
      return op->emitOpError("xnnpack: int8 weights are not available");
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(quantizedWeight.getType()).getShape();
    if (transposed)
      weights = permuteData<int8_t>(weights, shape, {1, 0});
    std::vector<uint64_t> dims = {uint64_t(shape[transposed ? 1 : 0]),
                                  uint64_t(shape[transposed ? 0 : 1])};
    float weightScale = q.perTensor(weightIndex).getScale();
    uint32_t filter = blob.addData<int8_t>(dims, weights);
    blob.tensors[filter].datatype = schema::Datatype::Qint8;
    blob.tensors[filter].scale = weightScale;
    size_t inputIndex =
        llvm::find(op->getOperands(), input) - op->getOperands().begin();
    FailureOr<uint32_t> biasId =
        int8Bias(op, bias, q.perTensor(inputIndex).getScale(), {weightScale},
                 /*channelwise=*/false);
    FailureOr<uint32_t> inputId = valueId(op, input);
    if (failed(biasId) || failed(inputId))
      return failure();
    NodeRecord node{schema::NodeKind::FullyConnected,
                    {*inputId, filter, *biasId},
                    {resultId(op->getResult(0))}};
    node.fusable = true;
    emit(op, std::move(node));
    return success();
  }

  BlobWriter blob;
  llvm::DenseMap<Operation *, QuantizedOp> int8Ops;
  llvm::DenseMap<Value, RankedTensorType>
      bounds; // of dynamically shaped values
};

} // namespace

FailureOr<CompiledDelegate> compileDelegate(DelegateOp delegate) {
  return DelegateCompiler(delegate).run();
}

/// " window [pads t r b l, kernel, stride, dilation] ..." for a node's
/// parameter table.
} // namespace etch::xnnpack
