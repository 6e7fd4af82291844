//===- FoldWeightOnlyOps.cpp - Dequantized weights -> weight-only ops -----===//
//
// Runs after partitioning, on what the kernels execute: a float linear,
// mm or addmm whose weight the program dequantizes from constants (int8
// per channel, int4 per group: torch's weight-only graphs and
// --quantize=int8-weight/int4-weight) becomes edge.weight_only_linear with
// the weight packed for the kernels, and an embedding of such a table
// edge.weight_only_embedding. The weights then stay 8 or 4 bits in the
// program instead of being dequantized on every run.
//
//===----------------------------------------------------------------------===//
#include "WeightOnlyTable.h"

#include "edge/EdgeDialect.h"
#include "etch/Quantization/QdqPattern.h"
#include "etch/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace etch {
#define GEN_PASS_DEF_FOLDWEIGHTONLYOPS
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;
using namespace etch::edge;
using quantization::PackedWeightOnly;

namespace {

/// The dequantized weight, input and bias a weight-only linear takes from
/// \p op; std::nullopt for other ops.
struct LinearParts {
  Value input, weight, bias;
  bool transposed; // weight is W^T [K, N] (mm, addmm)
};

std::optional<LinearParts> linearParts(Operation *op) {
  if (auto linear = dyn_cast<LinearOp>(op))
    return LinearParts{linear.getInput(), linear.getWeight(), linear.getBias(),
                       false};
  if (auto mm = dyn_cast<MmOp>(op))
    return LinearParts{mm.getSelf(), mm.getMat2(), Value(), true};
  if (auto addmm = dyn_cast<AddmmOp>(op)) {
    // Only bias + input @ W^T: a [N] bias, unit alpha and beta.
    auto bias = cast<RankedTensorType>(addmm.getSelf().getType());
    if (addmm.getBeta().convertToDouble() != 1.0 ||
        addmm.getAlpha().convertToDouble() != 1.0 || bias.getRank() != 1)
      return std::nullopt;
    return LinearParts{addmm.getMat1(), addmm.getMat2(), addmm.getSelf(),
                       true};
  }
  return std::nullopt;
}

bool isF32(Value value) {
  return value && cast<ShapedType>(value.getType()).getElementType().isF32();
}

class Folder {
public:
  explicit Folder(MLIRContext *context) : builder(context) {}

  /// The weight-only op replacing \p op, or null.
  Value fold(Operation *op) {
    if (std::optional<LinearParts> parts = linearParts(op))
      return foldLinear(op, *parts);
    if (auto embedding = dyn_cast<EmbeddingOp>(op))
      return foldEmbedding(embedding);
    return Value();
  }

private:
  /// The packed form of \p weight, shared by every op reading the same
  /// dequantized weight (tied embeddings and output layers).
  std::optional<std::pair<int, PackedWeightOnly>> packed(Value weight,
                                                         bool transposed,
                                                         Location loc,
                                                         int64_t &group) {
    std::pair<Value, unsigned> key{weight, transposed};
    if (auto it = cache.find(key); it != cache.end()) {
      group = it->second.group;
      return std::make_pair(it->second.bits, it->second.packed);
    }
    std::optional<quantization::WeightOnlyTable> table =
        quantization::readWeightOnlyTable(weight, transposed);
    if (!table)
      return std::nullopt;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(weight);
    PackedWeightOnly result =
        quantization::packWeightOnlyTable(builder, loc, *table);
    cache[key] = {table->bits, table->group, result};
    group = table->group;
    return std::make_pair(table->bits, result);
  }

  Value foldLinear(Operation *op, const LinearParts &parts) {
    if (!isF32(parts.input) || (parts.bias && !isF32(parts.bias)))
      return Value();
    int64_t group;
    auto weight = packed(parts.weight, parts.transposed, op->getLoc(), group);
    if (!weight)
      return Value();
    builder.setInsertionPoint(op);
    auto [bits, w] = *weight;
    return builder.create<WeightOnlyLinearOp>(
        op->getLoc(), op->getResult(0).getType(), parts.input, w.weight,
        w.scales, w.zeroPoints, parts.bias, builder.getI64IntegerAttr(bits),
        builder.getI64IntegerAttr(group));
  }

  Value foldEmbedding(EmbeddingOp embedding) {
    int64_t group;
    auto weight = packed(embedding.getWeight(), false, embedding.getLoc(),
                         group);
    if (!weight)
      return Value();
    builder.setInsertionPoint(embedding);
    auto [bits, w] = *weight;
    return builder.create<WeightOnlyEmbeddingOp>(
        embedding.getLoc(), embedding.getType(), w.weight, w.scales,
        embedding.getIndices(), w.zeroPoints, builder.getI64IntegerAttr(bits),
        builder.getI64IntegerAttr(group));
  }

  struct Entry {
    int bits;
    int64_t group;
    PackedWeightOnly packed;
  };
  OpBuilder builder;
  llvm::DenseMap<std::pair<Value, unsigned>, Entry> cache;
};

struct FoldWeightOnlyOpsPass
    : etch::impl::FoldWeightOnlyOpsBase<FoldWeightOnlyOpsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Top level only: ops inside edge.delegate regions belong to targets.
    SmallVector<Operation *> candidates;
    for (Operation &op : func.getBody().front())
      if (linearParts(&op) || isa<EmbeddingOp>(op))
        candidates.push_back(&op);
    Folder folder(&getContext());
    SmallVector<Operation *> folded;
    for (Operation *op : candidates)
      if (Value replacement = folder.fold(op)) {
        op->getResult(0).replaceAllUsesWith(replacement);
        folded.push_back(op);
      }
    for (Operation *op : folded)
      quantization::eraseWithDeadProducers(op);
  }
};

} // namespace
