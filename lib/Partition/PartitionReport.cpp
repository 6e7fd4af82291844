//===- PartitionReport.cpp - Partition summary table and DOT picture ------===//
#include "DataDependentShapes.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Partition/Partition.h"
#include "etch/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"

using namespace mlir;

namespace etch {
namespace {

/// The rank-4 inputs and results of channels-last delegates: those kept
/// NHWC (etch-assign-layout's border views) and those the delegate converts.
struct LayoutBorders {
  int kept = 0;
  int converted = 0;

  void add(edge::DelegateOp delegate) {
    const Target *target = lookupTarget(delegate.getTarget());
    if (!target || !target->keepsChannelsLast(delegate))
      return;
    Block &body = delegate.getBody().front();
    auto count = [&](Value value, bool viewed) {
      if (cast<RankedTensorType>(value.getType()).getRank() == 4)
        ++(viewed ? kept : converted);
    };
    for (BlockArgument argument : body.getArguments())
      count(argument, llvm::any_of(argument.getUsers(), [](Operation *user) {
              return user->hasAttr(kLayoutBorderAttr);
            }));
    for (Value result : body.getTerminator()->getOperands()) {
      Operation *producer = result.getDefiningOp();
      count(result, producer && producer->hasAttr(kLayoutBorderAttr));
    }
  }
};

/// What the target's runtime decides at load for \p delegate's blob; empty
/// before codegen.
std::string loadChoices(edge::DelegateOp delegate) {
  const Target *target = lookupTarget(delegate.getTarget());
  SmallVector<char> storage;
  std::optional<ArrayRef<char>> bytes =
      delegate.getBlob() ? edge::getConstantBytes(*delegate.getBlob(), storage)
                         : std::nullopt;
  if (!target || !bytes)
    return {};
  return target->describeLoadChoices(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes->data()), bytes->size()));
}

} // namespace

void printPartitionSummary(ModuleOp module,
                           const std::vector<std::string> &targets,
                           llvm::raw_ostream &os) {
  for (auto func : module.getOps<func::FuncOp>()) {
    llvm::MapVector<StringRef, int> opsPerTarget;
    struct DelegateLine {
      std::string target;
      int ops;
      std::string loadChoices;
    };
    std::vector<DelegateLine> delegates;
    std::vector<std::string> fallbacks;
    int portable = 0;
    LayoutBorders borders;
    DataDependentShapes dataDependent(func.getBody().front());
    for (Operation &op : func.getBody().front()) {
      if (isa<edge::ConstantOp, edge::BufferOp, func::ReturnOp>(op))
        continue;
      if (auto delegate = dyn_cast<edge::DelegateOp>(op)) {
        int count = 0;
        delegate.getBody().walk([&](Operation *inner) {
          if (!isa<edge::ConstantOp, edge::DelegateReturnOp>(inner) &&
              !inner->hasAttr(kLayoutBorderAttr))
            ++count;
        });
        borders.add(delegate);
        opsPerTarget[delegate.getTarget()] += count;
        delegates.push_back(
            {delegate.getTarget().str(), count, loadChoices(delegate)});
        continue;
      }
      ++portable;
      std::string reasons;
      for (const std::string &name : targets) {
        const Target *target = lookupTarget(name);
        if (!target)
          continue;
        if (!reasons.empty())
          reasons += "; ";
        std::string why = target->whyUnsupported(&op);
        reasons += name + ": " +
                   (why.empty() && dataDependent.readsOrMakes(&op)
                        ? std::string(DataDependentShapes::kReason)
                        : why);
      }
      std::string location;
      llvm::raw_string_ostream locationStream(location);
      op.getLoc().print(locationStream);
      fallbacks.push_back(op.getName().getStringRef().str() + " " + location +
                          (reasons.empty() ? "" : " -- " + reasons));
    }
    int total = portable;
    for (auto &entry : opsPerTarget)
      total += entry.second;
    os << "partition summary for @" << func.getSymName() << ": " << total
       << " ops\n";
    os << "  target          ops    share\n";
    for (auto &[name, count] : opsPerTarget)
      os << llvm::format("  %-12s %6d %7.1f%%\n", name.str().c_str(), count,
                         total ? 100.0 * count / total : 0.0);
    os << llvm::format("  %-12s %6d %7.1f%%\n",
                       static_cast<const char *>("portable"), portable,
                       total ? 100.0 * portable / total : 0.0);
    os << "  delegates: " << delegates.size() << "\n";
    for (auto [index, delegate] : llvm::enumerate(delegates)) {
      os << "    #" << index << " " << delegate.target << ": " << delegate.ops
         << " ops\n";
      if (!delegate.loadChoices.empty())
        os << "       at load: " << delegate.loadChoices << "\n";
    }
    if (borders.kept || borders.converted)
      os << "  channels-last borders: " << borders.kept << " kept NHWC, "
         << borders.converted << " converted to NCHW\n";
    os << "  fell back to portable: " << fallbacks.size() << "\n";
    for (const std::string &line : fallbacks)
      os << "    " << line << "\n";
  }
}

void writePartitionGraph(ModuleOp module, llvm::raw_ostream &os) {
  llvm::DenseMap<Operation *, std::string> ids;
  int next = 0;
  auto idOf = [&](Operation *op) -> std::string {
    auto [it, inserted] = ids.try_emplace(op, "");
    if (inserted)
      it->second = "n" + std::to_string(next++);
    return it->second;
  };
  auto label = [](Operation *op) {
    std::string name = op->getName().getStringRef().str();
    return name.substr(name.find('.') + 1);
  };
  os << "digraph etch {\n  rankdir=TB;\n  node [shape=box, fontsize=10];\n";
  int cluster = 0;
  for (auto func : module.getOps<func::FuncOp>()) {
    for (Operation &op : func.getBody().front()) {
      if (isa<edge::ConstantOp, edge::BufferOp, func::ReturnOp>(op))
        continue;
      auto delegate = dyn_cast<edge::DelegateOp>(op);
      if (!delegate) {
        os << "  " << idOf(&op) << " [label=\"" << label(&op)
           << "\", style=filled, fillcolor=lightgray];\n";
        continue;
      }
      os << "  subgraph cluster_" << cluster++ << " {\n    label=\""
         << delegate.getTarget() << " #" << cluster - 1
         << "\";\n    style=filled; fillcolor=lightblue;\n";
      delegate.getBody().walk([&](Operation *inner) {
        if (!isa<edge::ConstantOp, edge::DelegateReturnOp>(inner))
          os << "    " << idOf(inner) << " [label=\"" << label(inner)
             << "\"];\n";
      });
      os << "  }\n";
    }
    // Edges between ops; a delegate's inputs connect to the inner ops that
    // read the corresponding block argument.
    for (Operation &op : func.getBody().front()) {
      auto edgesInto = [&](Operation *consumer, Value value) {
        Operation *producer = value.getDefiningOp();
        if (auto result = dyn_cast<OpResult>(value))
          if (auto delegate = dyn_cast<edge::DelegateOp>(producer))
            producer = cast<edge::DelegateReturnOp>(
                           delegate.getBody().front().getTerminator())
                           .getOperand(result.getResultNumber())
                           .getDefiningOp();
        if (producer && ids.count(producer) && ids.count(consumer))
          os << "  " << ids[producer] << " -> " << ids[consumer] << ";\n";
      };
      if (auto delegate = dyn_cast<edge::DelegateOp>(op)) {
        delegate.getBody().walk([&](Operation *inner) {
          for (Value operand : inner->getOperands()) {
            if (auto argument = dyn_cast<BlockArgument>(operand))
              edgesInto(inner, delegate.getInputs()[argument.getArgNumber()]);
            else
              edgesInto(inner, operand);
          }
        });
      } else if (!isa<func::ReturnOp>(op)) {
        for (Value operand : op.getOperands())
          edgesInto(&op, operand);
      }
    }
  }
  os << "}\n";
}

} // namespace etch
