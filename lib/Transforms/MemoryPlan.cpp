//===- MemoryPlan.cpp - etch-memory-plan: lifetimes -> arena offsets ------===//
#include "edge/EdgeDialect.h"
#include "etch/Transforms/MemoryPlanner.h"
#include "etch/Transforms/Passes.h"
#include "etch/Transforms/ShapeBounds.h"

#include "mlir/IR/Builders.h"

namespace etch {
#define GEN_PASS_DEF_MEMORYPLAN
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;

namespace {

/// Bytes of a statically shaped tensor; i1 is stored as one byte.
std::optional<uint64_t> tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  Type element = etch::edge::storageOrElementType(tensor.getElementType());
  if (!element.isIntOrFloat())
    return std::nullopt;
  uint64_t elementBytes =
      std::max<uint64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  return elementBytes * tensor.getNumElements();
}

struct MemoryPlanPass : etch::impl::MemoryPlanBase<MemoryPlanPass> {
  using MemoryPlanBase::MemoryPlanBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitError("memory planning needs a single-block function");
      return signalPassFailure();
    }
    Block &body = func.getBody().front();
    // Dynamic dimensions are planned at their upper bounds.
    FailureOr<llvm::DenseMap<Value, RankedTensorType>> bounds =
        etch::computeUpperBounds(func);
    if (failed(bounds))
      return signalPassFailure();
    auto plannedType = [&](Value value) -> Type {
      auto it = bounds->find(value);
      return it == bounds->end() ? value.getType() : it->second;
    };

    // Program order: instruction index of every non-constant op.
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t count = 0;
    for (Operation &op : body)
      if (!isa<etch::edge::ConstantOp>(op))
        position[&op] = count++;
    int64_t end = count; // the return: outputs live to the end

    std::vector<etch::PlannedBuffer> buffers;
    std::vector<Value> planned;
    auto addValue = [&](Value value, int64_t first) -> LogicalResult {
      std::optional<uint64_t> bytes = tensorBytes(plannedType(value));
      if (!bytes)
        return emitError(value.getLoc())
               << "cannot plan memory for " << value.getType()
               << ": int/float tensors of static or bounded shapes are "
                  "required";
      int64_t last = first;
      for (Operation *user : value.getUsers())
        last = std::max(
            last, isa<func::ReturnOp>(user) ? end : position.lookup(user));
      buffers.push_back({*bytes, first, last, 0});
      planned.push_back(value);
      return success();
    };
    // Inputs stay intact for the whole method, so running it again on the
    // same inputs gives the same outputs.
    for (BlockArgument argument : body.getArguments()) {
      if (failed(addValue(argument, 0)))
        return signalPassFailure();
      buffers.back().last = end;
    }
    for (Operation &op : body) {
      if (isa<etch::edge::ConstantOp, func::ReturnOp>(op))
        continue;
      for (Value result : op.getResults())
        if (failed(addValue(result, position[&op])))
          return signalPassFailure();
    }

    etch::MemoryPlanner planner(alignment);
    uint64_t arenaSize = planner.plan(buffers);
    Builder builder(func.getContext());
    llvm::DenseMap<Operation *, SmallVector<int64_t>> offsets;
    for (auto [value, buffer] : llvm::zip(planned, buffers)) {
      if (auto argument = dyn_cast<BlockArgument>(value)) {
        func.setArgAttr(argument.getArgNumber(), "etch.arena_offset",
                        builder.getI64IntegerAttr(buffer.offset));
        continue;
      }
      Operation *op = value.getDefiningOp();
      auto &list = offsets[op];
      list.resize(op->getNumResults(), -1);
      list[cast<OpResult>(value).getResultNumber()] = buffer.offset;
    }
    for (auto &[op, list] : offsets)
      op->setAttr("etch.arena_offsets", builder.getDenseI64ArrayAttr(list));
    // What the serializer writes for dynamic values: their bounded types.
    for (auto &[value, type] : *bounds) {
      if (auto argument = dyn_cast<BlockArgument>(value)) {
        if (argument.getOwner() == &body)
          func.setArgAttr(argument.getArgNumber(), "etch.planned_type",
                          TypeAttr::get(type));
        continue;
      }
      Operation *op = value.getDefiningOp();
      if (op->getParentOp() != func)
        continue; // inside a delegate: the target planned it
      SmallVector<Attribute> types;
      for (Value result : op->getResults())
        types.push_back(TypeAttr::get(plannedType(result)));
      op->setAttr("etch.planned_types", builder.getArrayAttr(types));
    }
    func->setAttr("etch.arena_size", builder.getI64IntegerAttr(arenaSize));
    func->setAttr(
        "etch.arena_lower_bound",
        builder.getI64IntegerAttr(etch::MemoryPlanner::lowerBound(buffers)));
  }
};

} // namespace
