//===- LastPositionOutput.cpp - Logits for the last position only ---------===//
//
// Moves an `edge.slice` to the last sequence position in front of the
// projection that makes a function result, so the projection runs on one
// position instead of a whole prompt chunk. The ops between the slice and
// the result are rebuilt with their types inferred again.
//
//===----------------------------------------------------------------------===//
#include "edge/EdgeDialect.h"
#include "etch/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace etch {
#define GEN_PASS_DEF_LASTPOSITIONOUTPUT
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;
using namespace etch::edge;

namespace {

/// The projection behind a result: hidden states `hidden` [..., S, H] go
/// through `product` (row input `rowOperand`), directly or between a
/// `flatten` view to [rows, H] and a `restore` view back.
struct Projection {
  Value hidden;
  Operation *product = nullptr;
  unsigned rowOperand = 0;
  ViewOp flatten, restore;
};

/// Operand \p op takes its rows from, when \p op projects rows.
std::optional<unsigned> rowOperandOf(Operation *op) {
  if (isa<LinearOp, WeightOnlyLinearOp, MmOp>(op))
    return 0;
  if (isa<AddmmOp>(op))
    return 1; // self is the bias
  return std::nullopt;
}

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

FailureOr<Projection> matchProjection(Value logits, std::string &problem) {
  Projection found;
  Operation *op = logits.getDefiningOp();
  found.restore = dyn_cast_or_null<ViewOp>(op);
  if (found.restore)
    op = found.restore.getSelf().getDefiningOp();
  std::optional<unsigned> row = op ? rowOperandOf(op) : std::nullopt;
  if (!row) {
    problem = "is not a projection of the hidden states (edge.linear, "
              "edge.weight_only_linear, or edge.mm / edge.addmm between "
              "views); it comes from " +
              (op ? op->getName().getStringRef().str()
                  : std::string("a function argument"));
    return failure();
  }
  found.product = op;
  found.rowOperand = *row;
  Value rows = op->getOperand(*row);
  if (found.restore) {
    // Core ATen: view(mm(view(hidden, [-1, H]), W), [..., S, vocab]).
    found.flatten = rows.getDefiningOp<ViewOp>();
    if (!found.flatten || rankOf(rows) != 2 ||
        rankOf(found.flatten.getSelf()) != rankOf(logits)) {
      problem = "is a view of " + op->getName().getStringRef().str() +
                " whose rows are not the hidden states flattened to [rows, "
                "features]";
      return failure();
    }
    found.hidden = found.flatten.getSelf();
  } else {
    found.hidden = rows;
    if (rankOf(rows) != rankOf(logits)) {
      problem = "is a projection of a rank-" + std::to_string(rankOf(rows)) +
                " input; the hidden states must have the logits' rank";
      return failure();
    }
  }
  return found;
}

/// \p op's result type inferred from its operands again.
LogicalResult reinferType(Operation *op) {
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  SmallVector<Type> types;
  if (!infer || failed(infer.inferReturnTypes(
                    op->getContext(), op->getLoc(), op->getOperands(),
                    op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                    op->getRegions(), types)))
    return failure();
  op->getResult(0).setType(types.front());
  return success();
}

/// restore's size with the sequence entry 1, and its run-time sizes less
/// the one that entry took.
ViewOp restoreOneRow(OpBuilder &builder, ViewOp restore, Value product,
                     int64_t dim) {
  SmallVector<int64_t> size(restore.getSize());
  SmallVector<Value> dynamic;
  auto runtimeSizes = restore.getDynamicSize();
  for (size_t i = 0, next = 0; i < size.size(); ++i) {
    bool fromOperand = size[i] == ShapedType::kDynamic;
    if (fromOperand && static_cast<int64_t>(i) != dim)
      dynamic.push_back(runtimeSizes[next]);
    next += fromOperand;
  }
  size[dim] = 1;
  return builder.create<ViewOp>(restore.getLoc(), product, dynamic,
                                builder.getDenseI64ArrayAttr(size));
}

struct LastPositionOutputPass
    : etch::impl::LastPositionOutputBase<LastPositionOutputPass> {
  using LastPositionOutputBase::LastPositionOutputBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    // The options' values (streaming the options prints their names).
    unsigned index = result;
    int64_t dimension = dim;
    if (index >= ret.getNumOperands()) {
      ret.emitError() << "etch-last-position-output: the function has "
                      << ret.getNumOperands() << " results, no result "
                      << index;
      return signalPassFailure();
    }
    Value logits = ret.getOperand(index);
    auto type = dyn_cast<RankedTensorType>(logits.getType());
    int64_t rank = type ? type.getRank() : 0;
    int64_t sequence = dimension < 0 ? dimension + rank : dimension;
    if (sequence < 0 || sequence >= rank - 1) {
      ret.emitError() << "etch-last-position-output: result " << index
                      << " of type " << logits.getType()
                      << " has no sequence dim " << dimension
                      << " before its last (vocabulary) dim";
      return signalPassFailure();
    }
    std::string problem;
    FailureOr<Projection> projection = matchProjection(logits, problem);
    if (failed(projection)) {
      ret.emitError() << "etch-last-position-output: result " << index
                      << " " << problem;
      return signalPassFailure();
    }
    if (failed(rewrite(*projection, ret, index, sequence)))
      return signalPassFailure();
  }

  LogicalResult rewrite(Projection projection, func::ReturnOp ret,
                        unsigned index, int64_t sequence) {
    OpBuilder builder(ret);
    Location loc = projection.product->getLoc();
    Value rows = builder.create<SliceOp>(
        loc, projection.hidden, /*dynamic_end=*/Value(),
        builder.getI64IntegerAttr(sequence), builder.getI64IntegerAttr(-1),
        IntegerAttr(), builder.getI64IntegerAttr(1));
    if (projection.flatten) {
      int64_t features =
          cast<RankedTensorType>(rows.getType()).getShape().back();
      if (ShapedType::isDynamic(features))
        return projection.flatten.emitError()
               << "etch-last-position-output: the hidden states' feature "
                  "dim must be static";
      rows = builder.create<ViewOp>(
          projection.flatten.getLoc(), rows, ValueRange(),
          builder.getDenseI64ArrayAttr({-1, features}));
    }
    Operation *product = builder.clone(*projection.product);
    product->setOperand(projection.rowOperand, rows);
    if (failed(reinferType(product)))
      return product->emitError()
             << "etch-last-position-output: cannot infer the type of the "
                "projection on the last position";
    Value logits = product->getResult(0);
    if (projection.restore)
      logits = restoreOneRow(builder, projection.restore, logits, sequence);
    ret.setOperand(index, logits);
    func::FuncOp func = getOperation();
    SmallVector<Type> results(func.getResultTypes());
    results[index] = logits.getType();
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   results));
    return success();
  }
};

} // namespace
