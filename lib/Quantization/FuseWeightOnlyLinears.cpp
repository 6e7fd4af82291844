//===- FuseWeightOnlyLinears.cpp - Sibling weight-only linears -> one -----===//
//
// A decode step streams every weight table once, and a short table is a
// short stream: an int4 [512, 512] projection reaches less than half the
// bandwidth a [1536, 512] one does (etch-llm-kernels-bench, weights out of
// cache), and each op pays a dispatch to the thread pool. Projections of
// one input -- q/k/v, gate/up -- therefore become one op over their tables
// stacked by output rows and a slice per former result. Every output row
// is the same dot product as before, so results do not change.
//
//===----------------------------------------------------------------------===//
#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Quantization/QdqPattern.h"
#include "etch/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"

#include <tuple>

namespace etch {
#define GEN_PASS_DEF_FUSEWEIGHTONLYLINEARS
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;
using namespace etch::edge;

namespace {

/// The constant behind \p value when no other op reads it (stacking a
/// shared table would keep both copies in the program), else null.
ConstantOp ownConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  return constant && value.hasOneUse() ? constant : ConstantOp();
}

bool hasOwnConstants(WeightOnlyLinearOp op) {
  auto own = [](Value operand) { return !operand || ownConstant(operand); };
  return own(op.getWeight()) && own(op.getScales()) &&
         own(op.getZeroPoints()) && own(op.getBias());
}

/// What siblings share: the input, bits, group size, the scales' element
/// type, and which of zero points and bias they have (bit 0, bit 1).
using SiblingKey = std::tuple<Value, uint64_t, uint64_t, Type, unsigned>;

SiblingKey siblingKey(WeightOnlyLinearOp op) {
  unsigned operands = (op.getZeroPoints() ? 1 : 0) | (op.getBias() ? 2 : 0);
  return {op.getInput(), op.getBits(), op.getGroupSize(),
          getElementTypeOrSelf(op.getScales().getType()), operands};
}

/// \p parts' constants stacked along dim 0, or null when one has no
/// contiguous payload.
Value stackRows(OpBuilder &builder, Location loc, ArrayRef<Value> parts,
                StringRef nameHint) {
  auto first = cast<RankedTensorType>(parts.front().getType());
  SmallVector<int64_t> shape(first.getShape());
  shape[0] = 0;
  std::string bytes;
  for (Value part : parts) {
    SmallVector<char> storage;
    std::optional<ArrayRef<char>> payload =
        getConstantBytes(ownConstant(part).getValue(), storage);
    if (!payload)
      return Value();
    bytes.append(payload->begin(), payload->end());
    shape[0] += cast<RankedTensorType>(part.getType()).getDimSize(0);
  }
  auto type = RankedTensorType::get(shape, first.getElementType());
  return builder.create<ConstantOp>(
      loc, makeConstantFromOwnedBytes(type, std::move(bytes), nameHint));
}

/// One operand of every sibling (null when they have none).
template <typename Get>
SmallVector<Value> operandOfEach(ArrayRef<WeightOnlyLinearOp> siblings,
                                 Get get) {
  SmallVector<Value> values;
  for (WeightOnlyLinearOp op : siblings)
    if (Value value = get(op))
      values.push_back(value);
  return values;
}

/// Replaces \p siblings (in block order) by one stacked op and slices;
/// false, changing nothing, when a constant cannot be read.
bool fuse(ArrayRef<WeightOnlyLinearOp> siblings) {
  WeightOnlyLinearOp first = siblings.front();
  OpBuilder builder(first);
  SmallVector<Location> locations;
  for (WeightOnlyLinearOp op : siblings)
    locations.push_back(op.getLoc());
  Location loc = builder.getFusedLoc(locations);

  struct Role {
    Value (*get)(WeightOnlyLinearOp);
    const char *nameHint;
  };
  const Role roles[] = {
      {[](WeightOnlyLinearOp op) -> Value { return op.getWeight(); },
       "weight_only_packed"},
      {[](WeightOnlyLinearOp op) -> Value { return op.getScales(); },
       "weight_only_scales"},
      {[](WeightOnlyLinearOp op) -> Value { return op.getZeroPoints(); },
       "weight_only_zero_points"},
      {[](WeightOnlyLinearOp op) -> Value { return op.getBias(); },
       "weight_only_bias"}};
  Value stacked[4];
  for (int r = 0; r < 4; ++r) {
    SmallVector<Value> parts = operandOfEach(siblings, roles[r].get);
    if (parts.empty())
      continue;
    stacked[r] = stackRows(builder, loc, parts, roles[r].nameHint);
    if (!stacked[r]) {
      for (int done = 0; done < r; ++done)
        if (stacked[done])
          stacked[done].getDefiningOp()->erase();
      return false;
    }
  }

  auto resultType = cast<RankedTensorType>(first.getType());
  SmallVector<int64_t> shape(resultType.getShape());
  int64_t dim = resultType.getRank() - 1;
  shape[dim] = cast<RankedTensorType>(stacked[0].getType()).getDimSize(0);
  auto fused = builder.create<WeightOnlyLinearOp>(
      loc, RankedTensorType::get(shape, resultType.getElementType()),
      first.getInput(), stacked[0], stacked[1], stacked[2], stacked[3],
      first.getBitsAttr(), first.getGroupSizeAttr());

  builder.setInsertionPointAfter(fused);
  int64_t start = 0;
  for (WeightOnlyLinearOp op : siblings) {
    int64_t rows = cast<RankedTensorType>(op.getType()).getDimSize(dim);
    Value slice = builder.create<SliceOp>(
        op.getLoc(), fused.getResult(), /*dynamic_end=*/Value(),
        builder.getI64IntegerAttr(dim), builder.getI64IntegerAttr(start),
        builder.getI64IntegerAttr(start + rows), builder.getI64IntegerAttr(1));
    start += rows;
    op.getResult().replaceAllUsesWith(slice);
  }
  // Only now: the builder inserts before the first sibling.
  for (WeightOnlyLinearOp op : siblings)
    quantization::eraseWithDeadProducers(op);
  return true;
}

struct FuseWeightOnlyLinearsPass
    : etch::impl::FuseWeightOnlyLinearsBase<FuseWeightOnlyLinearsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Top level only, as etch-fold-weight-only-ops: delegates' ops belong
    // to their targets.
    llvm::MapVector<SiblingKey, SmallVector<WeightOnlyLinearOp>> groups;
    for (Operation &op : func.getBody().front())
      if (auto linear = dyn_cast<WeightOnlyLinearOp>(op))
        if (hasOwnConstants(linear) &&
            !ShapedType::isDynamic(
                cast<RankedTensorType>(linear.getType()).getShape().back()))
          groups[siblingKey(linear)].push_back(linear);
    for (auto &[key, siblings] : groups)
      if (siblings.size() > 1)
        fuse(siblings);
  }
};

} // namespace
