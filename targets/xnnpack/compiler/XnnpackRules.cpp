//===- XnnpackRules.cpp - Support rules of the XNNPACK target -------------===//
#include "XnnpackRules.h"

#include "edge/EdgeDialect.h"
#include "etch/Target/ChannelsLast.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

using namespace mlir;
using namespace etch::edge;

namespace etch::xnnpack {
namespace {

/// Dynamic dims are allowed: the blob holds shapes at their bounds and the
/// runtime recomputes them from the actual inputs.
bool isF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32() && tensor.getRank() <= 6;
}

bool isDynamicDim(Value value, int64_t dim) {
  return cast<RankedTensorType>(value.getType()).isDynamicDim(dim);
}

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

std::string binaryRule(Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (auto alpha = op->getAttrOfType<FloatAttr>("alpha"))
    if (alpha.getValueAsDouble() != 1.0)
      return "alpha != 1";
  if (op->getAttr("rounding_mode"))
    return "rounding_mode";
  int64_t outRank = rankOf(op->getResult(0));
  for (Value operand : {lhs, rhs})
    if (outRank == 4 && rankOf(operand) < 4 && !isConstant(operand))
      return "broadcasts a lower-rank tensor against an NHWC tensor";
  return "";
}

/// XNNPACK 2022's depthwise kernels take exactly 3, 4, 9 or 25 taps; any
/// other depthwise filter (ConvNeXt's 7x7) runs there as a GEMM per channel
/// that uses one lane in 16. etch's optimized kernel takes those with one
/// filter per channel.
std::string depthwiseRule(ConvolutionOp conv) {
  ArrayRef<int64_t> weight = conv.getWeight().getType().getShape();
  int64_t channels = conv.getInput().getType().getDimSize(1);
  int64_t taps = weight[2] * weight[3];
  bool depthwise = static_cast<int64_t>(conv.getGroups()) == channels &&
                   weight[0] == channels && weight[1] == 1;
  if (!depthwise || llvm::is_contained({3, 4, 9, 25}, taps))
    return "";
  return "a depthwise filter of " + std::to_string(taps) +
         " taps (XNNPACK 2022's depthwise kernels take 3, 4, 9 or 25; "
         "etch's optimized kernel runs it)";
}

/// The shape part of the concatenation rule.
std::string concatenationShapeRule(CatOp cat) {
  auto result = cat.getResult().getType();
  int64_t dim = static_cast<int64_t>(cat.getDim());
  if (dim < 0)
    dim += result.getRank();
  if (result.getRank() != 4 || dim != 1)
    return "only channel concatenation of rank-4 tensors";
  auto isStatic = [](Value value) {
    return cast<RankedTensorType>(value.getType()).hasStaticShape();
  };
  if (!isStatic(cat.getResult()) || !llvm::all_of(cat.getTensors(), isStatic))
    return "concatenation with dynamic dims";
  return "";
}

/// The ops that produce or read \p cat (constants and arguments aside).
SmallVector<Operation *> neighboursOf(CatOp cat) {
  SmallVector<Operation *> neighbours;
  for (Value input : cat.getTensors())
    if (Operation *producer = input.getDefiningOp();
        producer && !isConstant(input))
      neighbours.push_back(producer);
  llvm::append_range(neighbours, cat.getResult().getUsers());
  return neighbours;
}

/// The channel concatenations of CNNs (SqueezeNet's fire modules, Inception
/// and DenseNet blocks), which would otherwise cut the delegate at each
/// block: the runtime copies each input into its slice between XNNPACK
/// runtimes. Only where XNNPACK also takes every producer and reader: a cat
/// at the delegate's edge (ShuffleNet's, read by a channel shuffle) costs
/// layout conversions of its inputs and result, where outside it the memory
/// plan makes a batch-1 NCHW concatenation free (measured 1.15x slower).
/// Cats that feed each other are decided together: the chain's cats whose
/// other neighbours XNNPACK takes, less those next to a cat it leaves.
std::string concatenationRule(CatOp cat) {
  if (std::string why = concatenationShapeRule(cat); !why.empty())
    return why;
  llvm::SetVector<Operation *> chain;
  chain.insert(cat);
  for (size_t i = 0; i < chain.size(); ++i)
    for (Operation *neighbour : neighboursOf(cast<CatOp>(chain[i])))
      if (auto other = dyn_cast<CatOp>(neighbour);
          other && concatenationShapeRule(other).empty())
        chain.insert(other);
  llvm::DenseSet<Operation *> taken(chain.begin(), chain.end());
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (Operation *member : chain) {
      if (!taken.count(member))
        continue;
      bool allTaken = llvm::all_of(
          neighboursOf(cast<CatOp>(member)), [&](Operation *neighbour) {
            return isa<CatOp>(neighbour) ? taken.count(neighbour) > 0
                                         : whyUnsupported(neighbour).empty();
          });
      if (!allTaken) {
        taken.erase(member);
        dropped = true;
      }
    }
  }
  return taken.count(cat) ? ""
                          : "a concatenation next to an op XNNPACK leaves "
                            "(the memory plan makes it free there)";
}

} // namespace

DelegateLayout delegateLayout(Operation *op) {
  if (isa<ConvolutionOp, MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp, MeanOp>(
          op))
    return DelegateLayout::ChannelsLast;
  if (auto linear = dyn_cast<LinearOp>(op))
    if (rankOf(linear.getInput()) == 4)
      return DelegateLayout::Program;
  return DelegateLayout::Any;
}

bool keepsChannelsLast(DelegateOp delegate) {
  return llvm::any_of(delegate.getBody().front(), [](Operation &op) {
    return delegateLayout(&op) == DelegateLayout::ChannelsLast;
  });
}

bool isQint8(Type elementType) {
  auto uniform = dyn_cast<quant::UniformQuantizedType>(elementType);
  return uniform && uniform.isSigned() &&
         uniform.getStorageTypeIntegralWidth() == 8 &&
         uniform.getExpressedType().isF32();
}

/// Quantized constant weights read by a float (not dequantized) input:
/// weight-only quantization, which XNNPACK 2022 can only run by keeping
/// the weights in float. etch's weight-only kernels keep them 8 or 4 bits.
static bool isWeightOnly(Value input, Value weight) {
  return weight && weight.getDefiningOp<DequantizeOp>() &&
         isConstant(weight) && !input.getDefiningOp<DequantizeOp>();
}
static constexpr const char *kWeightOnly =
    "weight-only quantized weights (XNNPACK 2022 has no weight-only "
    "kernels; etch's run them)";

/// Q/DQ run as XNNPACK converts between fp32 and qint8, or fold into the
/// int8 node they surround; dequantized constants are float weights (or the
/// int8 weights of an int8 node) at compile time.
static std::string quantizationRule(Operation *op) {
  auto elementOf = [](Value value) {
    return cast<ShapedType>(value.getType()).getElementType();
  };
  if (auto quantize = dyn_cast<QuantizeOp>(op))
    return isQint8(elementOf(quantize.getResult()))
               ? ""
               : "quantizes to other than per-tensor int8";
  auto dequantize = cast<DequantizeOp>(op);
  if (isConstant(dequantize.getInput()) ||
      isQint8(elementOf(dequantize.getInput())))
    return "";
  return "dequantizes other than per-tensor int8 activations";
}

std::string whyUnsupported(Operation *op) {
  if (auto view = dyn_cast<ViewOp>(op); view && !view.getDynamicSize().empty())
    return "reshape sizes computed at run time";
  if (isa<QuantizeOp, DequantizeOp>(op))
    return quantizationRule(op);
  if (isa<WeightOnlyLinearOp, WeightOnlyEmbeddingOp,
          DequantizePerChannelGroupOp>(op))
    return kWeightOnly;
  auto allF32 = [](TypeRange types) { return llvm::all_of(types, isF32); };
  if (!allF32(op->getOperandTypes()) || !allF32(op->getResultTypes()))
    return "needs float32 tensors of rank <= 6";
  // XNNPACK's unary nodes need a dimension; arithmetic on single values
  // (dynamic quantization's parameters) is not worth a delegate anyway.
  if (llvm::any_of(op->getResults(),
                   [](Value result) { return rankOf(result) == 0; }))
    return "computes a 0-d value";
  float low, high;
  if (isClampLike(op, low, high))
    return "";
  if (isa<HardswishOp, SigmoidOp, SiluOp, HardsigmoidOp, AbsOp, NegOp, SqrtOp,
          FloorOp, CeilOp, RoundOp>(op))
    return "";
  if (isa<LeakyReluOp>(op))
    return "";
  if (auto elu = dyn_cast<EluOp>(op)) {
    // xnn_define_elu has alpha only.
    if (elu.getScale().convertToDouble() != 1.0 ||
        elu.getInputScale().convertToDouble() != 1.0)
      return "elu with scale or input_scale other than 1";
    return "";
  }
  if (isa<MaximumOp, MinimumOp>(op))
    return binaryRule(op);
  if (auto pad = dyn_cast<ConstantPadNdOp>(op)) {
    if (llvm::any_of(pad.getPad(), [](int64_t p) { return p < 0; }))
      return "negative (cropping) pads";
    return "";
  }
  if (auto conv = dyn_cast<ConvolutionOp>(op)) {
    if (conv.getTransposed())
      return "transposed convolution";
    if (!isConstant(conv.getWeight()) ||
        (conv.getBias() && !isConstant(conv.getBias())))
      return "weight and bias must be constants";
    if (isDynamicDim(conv.getInput(), 1))
      return "dynamic channel count";
    return depthwiseRule(conv);
  }
  if (auto linear = dyn_cast<LinearOp>(op)) {
    if (isWeightOnly(linear.getInput(), linear.getWeight()))
      return kWeightOnly;
    if (!isConstant(linear.getWeight()) ||
        (linear.getBias() && !isConstant(linear.getBias())))
      return "weight and bias must be constants";
    return "";
  }
  if (auto addmm = dyn_cast<AddmmOp>(op)) {
    if (addmm.getBeta().convertToDouble() != 1.0 ||
        addmm.getAlpha().convertToDouble() != 1.0)
      return "beta or alpha != 1";
    if (isWeightOnly(addmm.getMat1(), addmm.getMat2()))
      return kWeightOnly;
    auto bias = cast<RankedTensorType>(addmm.getSelf().getType());
    auto weight = cast<RankedTensorType>(addmm.getMat2().getType());
    if (!isConstant(addmm.getMat2()) || !isConstant(addmm.getSelf()) ||
        bias.getRank() != 1 || bias.getDimSize(0) != weight.getDimSize(1))
      return "needs a constant mat2 and a constant 1-D bias";
    return "";
  }
  if (auto mm = dyn_cast<MmOp>(op)) {
    if (isWeightOnly(mm.getSelf(), mm.getMat2()))
      return kWeightOnly;
    return isConstant(mm.getMat2()) ? "" : "needs a constant mat2";
  }
  if (isa<AddOp, SubOp, MulOp, DivOp>(op))
    return binaryRule(op);
  if (auto softmax = dyn_cast<SoftmaxOp>(op)) {
    int64_t rank = rankOf(softmax.getSelf());
    // I64Attr getters return uint64_t: convert before testing the sign.
    int64_t dim = static_cast<int64_t>(softmax.getDim());
    if (dim < 0)
      dim += rank;
    if (rank == 4 || dim != rank - 1)
      return "only softmax over the last dim of a tensor of rank != 4";
    return "";
  }
  if (auto pool = dyn_cast<MaxPool2dOp>(op)) {
    if (rankOf(pool.getSelf()) != 4)
      return "needs NCHW input";
    if (pool.getCeilMode() &&
        (isDynamicDim(pool.getSelf(), 2) || isDynamicDim(pool.getSelf(), 3)))
      return "ceil_mode with a dynamic height or width";
    return "";
  }
  if (auto pool = dyn_cast<AvgPool2dOp>(op)) {
    // Padding counted in the divisor (ATen's default) is an explicit zero
    // padding first, which needs static H and W; XNNPACK's own padding
    // divides by the pixels inside the input (count_include_pad=False).
    bool padded =
        llvm::any_of(pool.getPadding(), [](int64_t p) { return p != 0; });
    if (rankOf(pool.getSelf()) != 4 || pool.getCeilMode() ||
        pool.getDivisorOverride())
      return "only floor-mode average pooling of NCHW input without a "
             "divisor_override";
    if (padded && pool.getCountIncludePad() &&
        (isDynamicDim(pool.getSelf(), 2) || isDynamicDim(pool.getSelf(), 3)))
      return "padding counted in the divisor with a dynamic height or width";
    return "";
  }
  if (isa<AdaptiveAvgPool2dOp, MeanOp>(op))
    return whyNotGlobalAveragePool(op);
  if (auto cat = dyn_cast<CatOp>(op))
    return concatenationRule(cat);
  if (isa<ViewOp, SqueezeOp, UnsqueezeOp>(op)) {
    if (!isLayoutNeutral(op->getOperand(0)) ||
        !isLayoutNeutral(op->getResult(0)))
      return "reshapes an NCHW tensor whose H or W is not 1";
    // The runtime derives one dynamic dim from the element count.
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    if (llvm::count_if(result.getShape(), ShapedType::isDynamic) > 1)
      return "a reshape to more than one dynamic dim";
    return "";
  }
  return "no XNNPACK equivalent";
}

} // namespace etch::xnnpack
