//===- FoldQuantizedOps.cpp - DQ -> op -> Q as integer Edge ops -----------===//
//
// Runs after partitioning, on what the portable kernels execute: targets
// match the Q/DQ patterns in their own delegates (XNNPACK folds them into
// its int8 nodes, and takes float ops between converts where it has no int8
// node), so the partitioner sees the float graph; what is left becomes
// integer ops here, with the same matcher.
//
//===----------------------------------------------------------------------===//
#include "edge/EdgeDialect.h"
#include "etch/Quantization/QdqPattern.h"
#include "etch/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace etch {
#define GEN_PASS_DEF_FOLDQUANTIZEDOPS
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;
using namespace etch::edge;
using quantization::QuantizedOp;
using quantization::QuantizedOperand;

namespace {

bool isEightBit(quant::QuantizedType type) {
  return type && type.getStorageTypeIntegralWidth() == 8;
}

/// A per-tensor 8-bit operand (an activation, or the output).
bool isActivation(quant::QuantizedType type) {
  return isEightBit(type) && isa<quant::UniformQuantizedType>(type);
}

/// An 8-bit constant quantized per tensor or per index of \p channelDim.
bool isWeight(const QuantizedOperand &operand, int32_t channelDim) {
  if (!isEightBit(operand.type) ||
      !operand.quantized.getDefiningOp<ConstantOp>())
    return false;
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(operand.type);
  return !perAxis || perAxis.getQuantizedDimension() == channelDim;
}

/// The float bias an integer op takes: absent, or any f32 value (a float
/// constant, or the dequantized int32 bias of ONNX QDQ).
bool isFloatBias(Value bias) {
  return !bias ||
         cast<RankedTensorType>(bias.getType()).getElementType().isF32();
}

/// The op, its clamp and the quantize it folds: a debug handle then names
/// the quantize node, whose value the integer op computes.
Location foldedLocation(const QuantizedOp &q) {
  SmallVector<Location, 3> parts{q.op->getLoc()};
  if (q.activation)
    parts.push_back(q.activation->getLoc());
  parts.push_back(q.output->getLoc());
  return FusedLoc::get(q.op->getContext(), parts);
}

class Folder {
public:
  Folder(const QuantizedOp &q, OpBuilder &builder)
      : q(q), builder(builder), loc(foldedLocation(q)) {
    float low, high;
    if (q.activation && quantization::isClampLike(q.activation, low, high)) {
      if (!std::isinf(low))
        min = builder.getF64FloatAttr(low);
      if (!std::isinf(high))
        max = builder.getF64FloatAttr(high);
    }
  }

  /// The integer op replacing the pattern, or null when it does not fold.
  Value fold() {
    if (!isActivation(q.outputType()))
      return Value();
    Operation *op = q.op;
    if (auto conv = dyn_cast<ConvolutionOp>(op))
      return foldConvolution(conv);
    if (auto linear = dyn_cast<LinearOp>(op))
      return foldLinear(0, weight(1, 0), linear.getBias());
    if (auto addmm = dyn_cast<AddmmOp>(op)) { // bias + input @ W^T
      bool plainBias = addmm.getBeta().convertToDouble() == 1.0 &&
                       addmm.getAlpha().convertToDouble() == 1.0 &&
                       addmm.getSelf().getType().getRank() == 1;
      return plainBias && activation(1) && isFloatBias(addmm.getSelf())
                 ? foldLinear(1, transposedWeight(2), addmm.getSelf())
                 : Value();
    }
    if (isa<MmOp>(op))
      return activation(0) ? foldLinear(0, transposedWeight(1), Value())
                           : Value();
    if (auto add = dyn_cast<AddOp>(op))
      return add.getAlpha().convertToDouble() == 1.0 ? foldBinary<QuantizedAddOp>()
                                                      : Value();
    if (isa<MulOp>(op))
      return foldBinary<QuantizedMulOp>();
    return Value();
  }

private:
  Type resultType() const { return q.output->getResult(0).getType(); }
  bool activation(size_t index) const {
    return index < q.operands.size() && q.operands[index].quantized &&
           isActivation(q.operands[index].type);
  }
  /// Operand \p index as weights quantized along \p channelDim; null if not.
  Value weight(size_t index, int32_t channelDim) const {
    return isWeight(q.operands[index], channelDim) ? q.operands[index].quantized
                                                   : Value();
  }
  /// W^T operand \p index (addmm/mm, channels on dim 1) as [out, in].
  Value transposedWeight(size_t index) {
    Value weights = weight(index, 1);
    if (!weights)
      return Value();
    return permuteQuantizedConstant(
        builder, weights.getDefiningOp<ConstantOp>(), {1, 0});
  }

  Value foldConvolution(ConvolutionOp conv) {
    Value weights = weight(1, 0);
    if (conv.getTransposed() || !activation(0) || !weights ||
        !isFloatBias(conv.getBias()))
      return Value();
    return builder.create<QuantizedConvolutionOp>(
        loc, resultType(), q.operands[0].quantized, weights, conv.getBias(),
        conv.getStrideAttr(), conv.getPaddingAttr(), conv.getDilationAttr(),
        conv.getGroupsAttr(), min, max);
  }

  Value foldLinear(size_t inputIndex, Value weights, Value bias) {
    if (!activation(inputIndex) || !weights || !isFloatBias(bias))
      return Value();
    return builder.create<QuantizedLinearOp>(
        loc, resultType(), q.operands[inputIndex].quantized, weights, bias,
        min, max);
  }

  template <typename OpTy> Value foldBinary() {
    if (!activation(0) || !activation(1))
      return Value();
    return builder.create<OpTy>(loc, resultType(), q.operands[0].quantized,
                                q.operands[1].quantized, min, max);
  }

  const QuantizedOp &q;
  OpBuilder &builder;
  Location loc;
  FloatAttr min, max;
};

struct FoldQuantizedOpsPass
    : etch::impl::FoldQuantizedOpsBase<FoldQuantizedOpsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    OpBuilder builder(&getContext());
    // Top level only: ops inside edge.delegate regions belong to targets.
    // Matches first: folding erases the ops after each match.
    SmallVector<Operation *> candidates;
    for (Operation &op : func.getBody().front())
      if (quantization::matchQuantizedOp(&op))
        candidates.push_back(&op);
    for (Operation *op : candidates) {
      std::optional<QuantizedOp> q = quantization::matchQuantizedOp(op);
      if (!q)
        continue;
      builder.setInsertionPoint(q->output);
      Value folded = Folder(*q, builder).fold();
      if (!folded)
        continue;
      q->output.getResult().replaceAllUsesWith(folded);
      q->output->erase();
      if (q->activation)
        q->activation->erase();
      quantization::eraseWithDeadProducers(op);
    }
  }
};

} // namespace
