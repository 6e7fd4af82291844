//===- Partition.cpp - etch-partition: outline target subgraphs -----------===//
#include "DataDependentShapes.h"

#include "edge/EdgeDialect.h"
#include "etch/Target/Target.h"
#include "etch/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/IRMapping.h"

#include <set>

namespace etch {
#define GEN_PASS_DEF_PARTITION
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;

namespace {

struct Group {
  const Target *target;
  SmallVector<Operation *> ops; // program order
  unsigned layout = 0;          // Target::delegateLayout of its ops, or 0
  int mergedInto = -1;          // set when its ops joined another group
};

/// Constants and dequantized constants (quantized weights): cloned into
/// every delegate that reads them instead of being partitioned.
bool isWeight(Operation *op) {
  if (auto dequantize = dyn_cast_or_null<edge::DequantizeOp>(op))
    return dequantize.getInput().getDefiningOp<edge::ConstantOp>() != nullptr;
  return isa_and_nonnull<edge::ConstantOp>(op);
}

/// Moves a group's ops into one edge.delegate and rewires their uses.
void outline(Group &group, OpBuilder &builder) {
  llvm::SmallPtrSet<Operation *, 16> members(group.ops.begin(),
                                             group.ops.end());
  SmallVector<Value> inputs;
  llvm::SmallPtrSet<Value, 16> seenInputs;
  SmallVector<Operation *> constants;
  llvm::SmallPtrSet<Operation *, 16> seenConstants;
  for (Operation *op : group.ops)
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && members.contains(producer))
        continue;
      if (isWeight(producer)) {
        // A dequantized constant comes with its constant, cloned first.
        for (Value input : producer->getOperands())
          if (seenConstants.insert(input.getDefiningOp()).second)
            constants.push_back(input.getDefiningOp());
        if (seenConstants.insert(producer).second)
          constants.push_back(producer);
        continue;
      }
      if (seenInputs.insert(operand).second)
        inputs.push_back(operand);
    }
  SmallVector<Value> outputs;
  for (Operation *op : group.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        outputs.push_back(result);

  builder.setInsertionPoint(group.ops.front());
  auto delegate = builder.create<edge::DelegateOp>(
      group.ops.front()->getLoc(), ValueRange(outputs).getTypes(),
      builder.getStringAttr(group.target->name()), inputs, nullptr, nullptr);
  Block *body = builder.createBlock(&delegate.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  builder.setInsertionPointToStart(body);
  for (Operation *constant : constants)
    builder.clone(*constant, mapping);
  for (Operation *op : group.ops)
    builder.clone(*op, mapping);
  SmallVector<Value> returned;
  for (Value output : outputs)
    returned.push_back(mapping.lookup(output));
  builder.create<edge::DelegateReturnOp>(delegate.getLoc(), returned);
  for (auto [output, result] : llvm::zip(outputs, delegate.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
}

struct PartitionPass : etch::impl::PartitionBase<PartitionPass> {
  using PartitionBase::PartitionBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<const Target *> order;
    for (const std::string &name : targets) {
      if (name == "portable")
        continue;
      const Target *target = lookupTarget(name);
      if (!target) {
        std::string known;
        for (StringRef registered : registeredTargetNames())
          known += " " + registered.str();
        func.emitError("unknown target '")
            << name << "'; targets are:" << known << " portable";
        return signalPassFailure();
      }
      order.push_back(target);
    }
    if (order.empty())
      return;

    Block &block = func.getBody().front();
    std::vector<Group> groups;
    llvm::DenseMap<Operation *, int> groupOf;
    // Groups each op depends on, directly or through other ops (ids as
    // they were then: `live` follows merges).
    llvm::DenseMap<Operation *, std::set<int>> dependsOn;
    auto live = [&](int group) {
      while (groups[group].mergedInto >= 0)
        group = groups[group].mergedInto;
      return group;
    };
    // A group becomes one delegate op: whatever depends on one member
    // depends on all of the group's inputs. So dependence is followed group
    // to group (through what every member reads), not only op to op: x
    // reading group A, whose later member reads B, depends on B too.
    std::vector<std::set<int>> groupInputs; // by group id, ids as recorded
    auto reaches = [&](const std::set<int> &deps, int group) {
      SmallVector<int> pending;
      llvm::DenseSet<int> seen;
      for (int dep : deps)
        pending.push_back(live(dep));
      while (!pending.empty()) {
        int next = pending.pop_back_val();
        if (next == group)
          return true;
        if (!seen.insert(next).second)
          continue;
        for (int dep : groupInputs[next])
          if (live(dep) != next)
            pending.push_back(live(dep));
      }
      return false;
    };
    // An op in another group depends on whatever that group reads, through
    // any member: once outlined, the whole delegate runs before its users.
    auto dependsOnGroup = [&](Operation *op, int group) {
      if (auto it = groupOf.find(op);
          it != groupOf.end() && live(it->second) != group)
        return reaches({it->second}, group);
      return reaches(dependsOn[op], group);
    };
    auto groupDependsOn = [&](int group, int other) {
      return reaches(groupInputs[group], other);
    };
    DataDependentShapes dataDependent(block);
    for (Operation &op : block) {
      if (isa<func::ReturnOp, edge::DelegateOp>(op) || isWeight(&op))
        continue;
      SmallVector<Operation *> producers;
      std::set<int> deps;
      for (Value operand : op.getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || isWeight(producer))
          continue;
        producers.push_back(producer);
        const std::set<int> &upstream = dependsOn[producer];
        deps.insert(upstream.begin(), upstream.end());
        if (auto it = groupOf.find(producer); it != groupOf.end())
          deps.insert(it->second);
      }
      dependsOn[&op] = deps;
      for (const Target *target : order) {
        if (dataDependent.readsOrMakes(&op) ||
            !target->whyUnsupported(&op).empty())
          continue;
        unsigned layout = target->delegateLayout(&op);
        // Join the largest producer group of this target that stays convex:
        // no producer outside the group may itself depend on the group.
        int chosen = -1;
        auto groupOfProducer = [&](Operation *producer) {
          auto it = groupOf.find(producer);
          return it == groupOf.end() ? -1 : live(it->second);
        };
        // 0 is "any layout".
        auto layoutsAgree = [](unsigned a, unsigned b) {
          return !a || !b || a == b;
        };
        auto compatible = [&](int candidate) {
          return groups[candidate].target == target &&
                 layoutsAgree(layout, groups[candidate].layout);
        };
        for (Operation *producer : producers) {
          int candidate = groupOfProducer(producer);
          if (candidate < 0 || !compatible(candidate))
            continue;
          bool convex = llvm::none_of(producers, [&](Operation *other) {
            return groupOfProducer(other) != candidate &&
                   dependsOnGroup(other, candidate);
          });
          if (convex && (chosen < 0 || groups[candidate].ops.size() >
                                           groups[chosen].ops.size()))
            chosen = candidate;
        }
        // Other producer groups of this target join too when neither
        // depends on the other (branches from the method's inputs) and the
        // op's remaining producers stay outside the union's dataflow.
        for (Operation *producer : producers) {
          int other = groupOfProducer(producer);
          if (chosen < 0 || other < 0 || other == chosen ||
              !compatible(other) ||
              !layoutsAgree(groups[other].layout, groups[chosen].layout) ||
              groupDependsOn(other, chosen) || groupDependsOn(chosen, other))
            continue;
          bool convex = llvm::none_of(producers, [&](Operation *outside) {
            int owner = groupOfProducer(outside);
            return owner != chosen && owner != other &&
                   (dependsOnGroup(outside, chosen) ||
                    dependsOnGroup(outside, other));
          });
          if (!convex)
            continue;
          Group &into = groups[chosen];
          llvm::append_range(into.ops, groups[other].ops);
          llvm::sort(into.ops, [](Operation *lhs, Operation *rhs) {
            return lhs->isBeforeInBlock(rhs);
          });
          if (!into.layout)
            into.layout = groups[other].layout;
          groups[other].ops.clear();
          groups[other].mergedInto = chosen;
          groupInputs[chosen].insert(groupInputs[other].begin(),
                                     groupInputs[other].end());
        }
        if (chosen < 0) {
          chosen = groups.size();
          groups.push_back({target, {}});
          groupInputs.emplace_back();
        }
        groups[chosen].ops.push_back(&op);
        groupInputs[chosen].insert(deps.begin(), deps.end());
        if (layout)
          groups[chosen].layout = layout;
        groupOf[&op] = chosen;
        break;
      }
    }

    OpBuilder builder(func.getContext());
    for (Group &group : groups)
      if (group.mergedInto < 0)
        outline(group, builder);
    if (!sortTopologically(&block)) {
      func.emitError("internal: partitioning created a cycle");
      return signalPassFailure();
    }
    // Constants now used only inside delegates are dead at top level.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (isWeight(&op) && op.use_empty())
        op.erase();
  }
};

} // namespace
