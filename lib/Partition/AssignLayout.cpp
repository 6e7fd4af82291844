//===- AssignLayout.cpp - etch-assign-layout: NHWC across delegates -------===//
//
// Delegates that store rank-4 values channels-last convert every rank-4
// border to the program's NCHW and back. Between two such delegates, a
// layout-agnostic op (cat, slice) can just as well work on the NHWC data:
// the conversions on both sides go, and the op only renumbers its dim.
//
//===----------------------------------------------------------------------===//
#include "edge/EdgeDialect.h"
#include "etch/Target/Target.h"
#include "etch/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace etch {
#define GEN_PASS_DEF_ASSIGNLAYOUT
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;
using namespace etch::edge;

namespace {

/// Where NCHW dim \p dim lies in NHWC.
int64_t nhwcDim(int64_t dim) { return kNhwcToNchw[dim]; }

RankedTensorType nhwcType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape;
  for (int64_t d : kNchwToNhwc)
    shape.push_back(tensor.getDimSize(d));
  return tensor.clone(shape);
}

bool isStaticF32Rank4(Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  return tensor && tensor.getRank() == 4 && tensor.hasStaticShape() &&
         tensor.getElementType().isF32();
}

/// The ops that work the same on NHWC data with their dim renumbered, and
/// the operands that carry the layout.
std::optional<OperandRange> layoutOperands(Operation *op) {
  if (!isStaticF32Rank4(op->getResult(0)))
    return std::nullopt;
  std::optional<OperandRange> operands;
  if (auto cat = dyn_cast<CatOp>(op))
    operands = cat.getTensors();
  else if (auto slice = dyn_cast<SliceOp>(op); slice && !slice.getDynamicEnd())
    operands = op->getOperands();
  if (operands && llvm::all_of(*operands, isStaticF32Rank4))
    return operands;
  return std::nullopt;
}

void renumberDim(Operation *op) {
  Builder builder(op->getContext());
  auto dim = op->getAttrOfType<IntegerAttr>("dim");
  int64_t nchw = dim ? dim.getInt() : 0;
  if (nchw < 0)
    nchw += 4;
  op->setAttr("dim", builder.getI64IntegerAttr(nhwcDim(nchw)));
  op->getResult(0).setType(nhwcType(op->getResult(0).getType()));
}

/// Returns \p delegate's result \p index as NHWC: a border view of it.
void viewResultAsNhwc(DelegateOp delegate, unsigned index) {
  Operation *terminator = delegate.getBody().front().getTerminator();
  OpBuilder builder(terminator);
  Value inside = terminator->getOperand(index);
  auto view = builder.create<PermuteOp>(inside.getLoc(), inside,
                                        builder.getDenseI64ArrayAttr(kNchwToNhwc));
  view->setAttr(kLayoutBorderAttr, builder.getUnitAttr());
  terminator->setOperand(index, view);
  delegate.getResult(index).setType(view.getType());
}

/// Takes \p delegate's argument \p index as NHWC: its readers see an NCHW
/// border view of it.
void viewArgumentAsNchw(DelegateOp delegate, unsigned index) {
  BlockArgument argument = delegate.getBody().front().getArgument(index);
  Type nchw = argument.getType();
  argument.setType(nhwcType(nchw));
  OpBuilder builder = OpBuilder::atBlockBegin(argument.getOwner());
  auto view = builder.create<PermuteOp>(argument.getLoc(), nchw, argument,
                                        builder.getDenseI64ArrayAttr(kNhwcToNchw));
  view->setAttr(kLayoutBorderAttr, builder.getUnitAttr());
  argument.replaceAllUsesExcept(view, view);
}

struct AssignLayoutPass : etch::impl::AssignLayoutBase<AssignLayoutPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    llvm::DenseMap<Operation *, bool> channelsLast;
    auto keepsChannelsLast = [&](Operation *op) {
      auto delegate = dyn_cast_or_null<DelegateOp>(op);
      if (!delegate)
        return false;
      auto [it, inserted] = channelsLast.try_emplace(op, false);
      if (inserted)
        if (const Target *target = lookupTarget(delegate.getTarget()))
          it->second = target->keepsChannelsLast(delegate);
      return it->second;
    };

    llvm::SetVector<Operation *> chosen;
    for (Operation &op : func.getBody().front())
      if (op.getNumResults() == 1 && layoutOperands(&op))
        chosen.insert(&op);
    // Drop ops until every chosen op reads only NHWC-ready values (from a
    // channels-last delegate that hands them to chosen ops only, or from a
    // chosen op) and feeds only channels-last delegates and chosen ops.
    auto readsNhwc = [&](Value value) {
      Operation *producer = value.getDefiningOp();
      if (chosen.contains(producer))
        return true;
      return keepsChannelsLast(producer) &&
             llvm::all_of(value.getUsers(), [&](Operation *user) {
               return chosen.contains(user);
             });
    };
    auto feedsNhwc = [&](Operation *op) {
      return llvm::all_of(op->getResult(0).getUsers(), [&](Operation *user) {
        return chosen.contains(user) || keepsChannelsLast(user);
      });
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : llvm::to_vector(chosen))
        if (!llvm::all_of(*layoutOperands(op), readsNhwc) || !feedsNhwc(op)) {
          chosen.remove(op);
          changed = true;
        }
    }

    llvm::SetVector<Value> nhwcResults;
    for (Operation *op : chosen) {
      OperandRange inputs = *layoutOperands(op);
      for (Value input : inputs)
        if (input.getDefiningOp<DelegateOp>())
          nhwcResults.insert(input);
      for (OpOperand &use : op->getResult(0).getUses())
        if (auto delegate = dyn_cast<DelegateOp>(use.getOwner()))
          viewArgumentAsNchw(delegate, use.getOperandNumber());
    }
    for (Value result : nhwcResults)
      viewResultAsNhwc(result.getDefiningOp<DelegateOp>(),
                       cast<OpResult>(result).getResultNumber());
    for (Operation *op : chosen)
      renumberDim(op);
  }
};

} // namespace
