//===- MemoryPlan.cpp - etch-memory-plan: lifetimes -> arena offsets ------===//
#include "edge/EdgeDialect.h"
#include "etch/Transforms/Passes.h"
#include "etch/Transforms/ShapeBounds.h"
#include "runtime/core/MemoryPlanner.h"
#include "runtime/core/ViewShape.h"

#include "mlir/IR/Builders.h"

namespace etch {
#define GEN_PASS_DEF_MEMORYPLAN
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;

namespace {

using etch::runtime::PlannedBuffer;

/// One function's arena: its values grouped into buffers by lifetime, the
/// buffers placed by runtime::MemoryPlanner, the offsets written back as
/// attributes for the serializer.
class FunctionPlan {
public:
  FunctionPlan(func::FuncOp func,
               llvm::DenseMap<Value, RankedTensorType> bounds,
               uint64_t alignment)
      : func(func), body(func.getBody().front()), bounds(std::move(bounds)),
        alignment(alignment) {}

  LogicalResult run() {
    number();
    if (failed(group()))
      return failure();
    place();
    write();
    return success();
  }

private:
  /// Values sharing one buffer: an op that writes into a copy of its first
  /// operand (index_put, slice_scatter) runs in place when that operand is
  /// read by nothing later, so a KV-cache update writes into the cache.
  struct Group {
    PlannedBuffer buffer;
    int64_t lastRead = -1; // latest read of any member
    StringRef state;       // the mutable buffer living here, if any
    bool isInput = false;
    bool inPlaceUpdate = false; // an index_put/slice_scatter shares it
    // Its values; none once they moved into a concatenation's group.
    SmallVector<Value, 1> members;
  };

  /// Dynamic dimensions are planned at their upper bounds.
  Type plannedType(Value value) const {
    auto it = bounds.find(value);
    return it == bounds.end() ? value.getType() : Type(it->second);
  }

  /// Program order (the instruction index of every non-constant op), and
  /// which mutable buffer each trailing result updates.
  void number() {
    for (Operation &op : body)
      if (!isa<etch::edge::ConstantOp>(op))
        position[&op] = end++;
    if (auto names = func->getAttrOfType<ArrayAttr>("etch.buffer_mutations")) {
      Operation *ret = body.getTerminator();
      unsigned first = ret->getNumOperands() - names.size();
      for (auto [i, name] : llvm::enumerate(names))
        updateOf[ret->getOperand(first + i)] = cast<StringAttr>(name);
    }
  }

  /// The last instruction that reads \p value (the return: the end).
  int64_t lastUse(Value value) const {
    int64_t last = -1;
    for (Operation *user : value.getUsers())
      last = std::max(last,
                      isa<func::ReturnOp>(user) ? end : position.lookup(user));
    return last;
  }

  /// Every value in a group: inputs and state for the whole method (inputs
  /// stay intact, so running it again on them gives the same outputs).
  LogicalResult group() {
    for (BlockArgument argument : body.getArguments()) {
      if (failed(addValue(argument, 0)))
        return failure();
      groups.back().buffer.last = end;
      groups.back().isInput = true;
    }
    for (Operation &op : body) {
      if (isa<etch::edge::ConstantOp, func::ReturnOp>(op))
        continue;
      if (auto state = dyn_cast<etch::edge::BufferOp>(op)) {
        // State lives across executions: nothing else may use its bytes.
        if (failed(addValue(state.getResult(), 0)))
          return failure();
        groups.back().buffer.last = end;
        groups.back().state = state.getName();
        continue;
      }
      if (std::optional<size_t> shared = inPlace(op)) {
        join(op, *shared, 0);
        groups[*shared].inPlaceUpdate = true;
        continue;
      }
      if (std::optional<Alias> alias = aliased(op)) {
        join(op, alias->group, alias->offset);
        continue;
      }
      for (Value result : op.getResults())
        if (failed(addValue(result, position[&op])))
          return failure();
      if (auto cat = dyn_cast<etch::edge::CatOp>(op))
        placeInputsInSlices(cat);
    }
    return success();
  }

  LogicalResult addValue(Value value, int64_t first) {
    std::optional<uint64_t> bytes = etch::edge::tensorBytes(plannedType(value));
    if (!bytes)
      return emitError(value.getLoc())
             << "cannot plan memory for " << value.getType()
             << ": int/float tensors of static or bounded shapes are "
                "required";
    int64_t last = std::max(first, lastUse(value));
    groupOf[value] = groups.size();
    groups.push_back({{*bytes, first, last, 0}, last});
    groups.back().members.push_back(value);
    planned.push_back(value);
    return success();
  }

  /// The group \p op may update in place, if any.
  std::optional<size_t> inPlace(Operation &op) {
    if (!isa<etch::edge::IndexPutOp, etch::edge::SliceScatterOp>(op))
      return std::nullopt;
    auto it = groupOf.find(op.getOperand(0));
    if (it == groupOf.end())
      return std::nullopt; // a constant
    Group &group = groups[it->second];
    Value result = op.getResult(0);
    std::optional<uint64_t> bytes =
        etch::edge::tensorBytes(plannedType(result));
    // A mutable buffer's bytes take only its own update: any other result
    // written there would be its contents at the next run.
    auto update = updateOf.find(result);
    bool otherState = !group.state.empty() && (update == updateOf.end() ||
                                               update->second != group.state);
    if (group.isInput || group.lastRead > position[&op] || !bytes ||
        *bytes != group.buffer.size || otherState)
      return std::nullopt;
    for (Value operand : op.getOperands().drop_front()) {
      auto other = groupOf.find(operand);
      if (other != groupOf.end() && other->second == it->second)
        return std::nullopt; // it would read what it overwrites
    }
    return it->second;
  }

  /// Where a result lies in its operand's bytes, as they are.
  struct Alias {
    size_t group;
    uint64_t offset;
  };
  /// The bytes a view, squeeze or unsqueeze shares (a contiguous reshape:
  /// all of them), or a slice of step 1 whose dims before the sliced one
  /// are 1 (one contiguous run, at an offset that keeps the alignment):
  /// the kernel then finds nothing to copy. Not a mutable buffer's (the
  /// result would be a second name for state an update may overwrite in
  /// place), and only where the planned sizes agree (bounded dynamic dims).
  std::optional<Alias> aliased(Operation &op) const {
    std::optional<uint64_t> offset = aliasOffset(op);
    if (!offset)
      return std::nullopt;
    auto it = groupOf.find(op.getOperand(0));
    if (it == groupOf.end() || !groups[it->second].state.empty())
      return std::nullopt;
    return Alias{it->second, *offset};
  }

  std::optional<uint64_t> aliasOffset(Operation &op) const {
    if (!isa<etch::edge::ViewOp, etch::edge::SqueezeOp, etch::edge::UnsqueezeOp,
             etch::edge::SliceOp>(op))
      return std::nullopt;
    Value input = op.getOperand(0), result = op.getResult(0);
    std::optional<uint64_t> in = etch::edge::tensorBytes(plannedType(input));
    std::optional<uint64_t> out = etch::edge::tensorBytes(plannedType(result));
    if (!in || !out || *out == 0)
      return std::nullopt;
    if (isa<etch::edge::ViewOp, etch::edge::SqueezeOp, etch::edge::UnsqueezeOp>(
            op))
      return *in == *out ? std::optional<uint64_t>(0) : std::nullopt;
    auto slice = dyn_cast<etch::edge::SliceOp>(op);
    auto type = cast<RankedTensorType>(input.getType());
    if (!slice || slice.getDynamicEnd() || !type.hasStaticShape())
      return std::nullopt;
    int64_t dim =
        slice.getDim() < 0 ? slice.getDim() + type.getRank() : slice.getDim();
    if (dim < 0 || dim >= type.getRank() || type.getDimSize(dim) == 0 ||
        !etch::runtime::sliceIsOneRun(type.getShape().data(), dim,
                                      slice.getStep()))
      return std::nullopt;
    int64_t extent = type.getDimSize(dim);
    etch::runtime::SliceRange range =
        etch::runtime::pythonSlice(extent, slice.getStart().value_or(0),
                                   slice.getEnd().value_or(INT64_MAX), 1);
    uint64_t row = *in / extent; // bytes of one index of the sliced dim
    uint64_t offset = range.start * row;
    if (offset % alignment || range.length * row != *out)
      return std::nullopt;
    return offset;
  }

  /// \p op's result lives in group \p shared's bytes, \p offset bytes into
  /// its first operand.
  void join(Operation &op, size_t shared, uint64_t offset) {
    Value result = op.getResult(0);
    offsetInGroup[result] = offsetInGroup.lookup(op.getOperand(0)) + offset;
    Group &group = groups[shared];
    int64_t last = std::max(position[&op], lastUse(result));
    group.lastRead = std::max(group.lastRead, last);
    group.buffer.last = std::max(group.buffer.last, last);
    groupOf[result] = shared;
    group.members.push_back(result);
    planned.push_back(result);
  }

  /// Zero-copy concatenation: where the slices of a cat's result are
  /// contiguous (every dim before `dim` is 1), an input computed in this
  /// method is planned inside its slice, so its producer writes there and
  /// the cat kernel finds nothing to copy. Method inputs, state, in-place
  /// updates and values already placed in another cat keep their buffers
  /// and are copied.
  void placeInputsInSlices(etch::edge::CatOp cat) {
    auto type = cast<RankedTensorType>(cat.getType());
    int64_t dim = static_cast<int64_t>(cat.getDim());
    if (dim < 0)
      dim += type.getRank();
    if (!type.hasStaticShape() ||
        llvm::any_of(type.getShape().take_front(dim),
                     [](int64_t extent) { return extent != 1; }))
      return;
    size_t target = groupOf.lookup(cat.getResult());
    uint64_t slice = 0;
    for (Value input : cat.getTensors()) {
      uint64_t bytes = etch::edge::tensorBytes(input.getType()).value_or(0);
      uint64_t offset = slice;
      slice += bytes;
      auto it = groupOf.find(input);
      if (it == groupOf.end() || it->second == target || bytes == 0)
        continue; // a constant, or an input placed already
      Group &source = groups[it->second];
      if (source.isInput || !source.state.empty() || source.inPlaceUpdate ||
          source.buffer.size != bytes || offsetInGroup.lookup(input) != 0)
        continue;
      Group &into = groups[target];
      into.buffer.first = std::min(into.buffer.first, source.buffer.first);
      into.buffer.last = std::max(into.buffer.last, source.buffer.last);
      into.lastRead = std::max(into.lastRead, source.lastRead);
      for (Value member : source.members) {
        groupOf[member] = target;
        offsetInGroup[member] += offset;
        into.members.push_back(member);
      }
      source.members.clear();
    }
  }

  /// A buffer per group with members. State first, one buffer after
  /// another: [0, stateBytes) holds nothing else, so the program keeps it
  /// as an arena of its own, and methods that share their state
  /// (et-compile --method) hold no copy of it each.
  void place() {
    bufferOf.assign(groups.size(), 0);
    for (auto [index, group] : llvm::enumerate(groups)) {
      bufferOf[index] = buffers.size();
      if (!group.members.empty())
        buffers.push_back(group.buffer);
    }
    std::vector<PlannedBuffer> others;
    std::vector<size_t> otherIndex;
    for (auto [index, group] : llvm::enumerate(groups)) {
      if (group.members.empty())
        continue;
      PlannedBuffer &buffer = buffers[bufferOf[index]];
      if (group.state.empty()) {
        others.push_back(buffer);
        otherIndex.push_back(bufferOf[index]);
        continue;
      }
      buffer.offset = stateBytes;
      stateBytes =
          (stateBytes + buffer.size + alignment - 1) / alignment * alignment;
    }
    etch::runtime::MemoryPlanner planner(alignment);
    arenaSize = stateBytes + planner.plan(others);
    for (auto [buffer, index] : llvm::zip(others, otherIndex))
      buffers[index].offset = stateBytes + buffer.offset;
  }

  /// The offsets, the bounded types of dynamic values (what the serializer
  /// writes for them) and the arena's sizes, as attributes.
  void write() {
    Builder builder(func.getContext());
    llvm::DenseMap<Operation *, SmallVector<int64_t>> offsets;
    for (Value value : planned) {
      const PlannedBuffer &buffer = buffers[bufferOf[groupOf[value]]];
      uint64_t offset = buffer.offset + offsetInGroup.lookup(value);
      if (auto argument = dyn_cast<BlockArgument>(value)) {
        func.setArgAttr(argument.getArgNumber(), "etch.arena_offset",
                        builder.getI64IntegerAttr(offset));
        continue;
      }
      Operation *op = value.getDefiningOp();
      auto &list = offsets[op];
      list.resize(op->getNumResults(), -1);
      list[cast<OpResult>(value).getResultNumber()] = offset;
    }
    for (auto &[op, list] : offsets)
      op->setAttr("etch.arena_offsets", builder.getDenseI64ArrayAttr(list));
    for (auto &[value, type] : bounds) {
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
    if (stateBytes)
      func->setAttr("etch.state_bytes", builder.getI64IntegerAttr(stateBytes));
    func->setAttr("etch.arena_lower_bound",
                  builder.getI64IntegerAttr(
                      etch::runtime::MemoryPlanner::lowerBound(buffers)));
  }

  func::FuncOp func;
  Block &body;
  llvm::DenseMap<Value, RankedTensorType> bounds;
  uint64_t alignment;
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t end = 0; // the return's position: outputs live to the end
  llvm::DenseMap<Value, StringRef> updateOf;
  std::vector<Group> groups;
  llvm::DenseMap<Value, size_t> groupOf;
  // Where a value lies in its group's buffer (a concatenated input).
  llvm::DenseMap<Value, uint64_t> offsetInGroup;
  std::vector<Value> planned;
  std::vector<PlannedBuffer> buffers;
  std::vector<size_t> bufferOf; // group -> buffer
  uint64_t stateBytes = 0, arenaSize = 0;
};

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
    FailureOr<llvm::DenseMap<Value, RankedTensorType>> bounds =
        etch::computeUpperBounds(func);
    if (failed(bounds) ||
        failed(FunctionPlan(func, std::move(*bounds), alignment).run()))
      return signalPassFailure();
  }
};

} // namespace
