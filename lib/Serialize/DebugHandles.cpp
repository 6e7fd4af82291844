//===- DebugHandles.cpp - An instruction's producer nodes for the program ===//
#include "DebugHandles.h"

#include "edge/EdgeDialect.h"

#include "mlir/IR/Location.h"

#include <vector>

using namespace mlir;
namespace fb = flatbuffers;

namespace etch {

static void collect(Location loc, OpOrigin &origin) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    if (!origin.node.empty())
      origin.node += "+";
    origin.node += named.getName().str();
    // The child is where the node is, not another node.
    OpOrigin inner;
    collect(named.getChildLoc(), inner);
    if (origin.source.empty())
      origin.source = inner.source;
  } else if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    // Line 0 is the model file itself (an ONNX node, a constant).
    if (origin.source.empty() && file.getLine() > 0)
      origin.source =
          file.getFilename().str() + ":" + std::to_string(file.getLine());
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      collect(part, origin);
  } else if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    collect(call.getCallee(), origin);
  }
}

OpOrigin opOrigin(Location loc) {
  OpOrigin origin;
  collect(loc, origin);
  return origin;
}

/// Whether an op of another node than \p node (or the method's return)
/// reads \p value, looking through delegate boundaries.
static bool readOutsideNode(Value value, StringRef node) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto delegate = dyn_cast<edge::DelegateOp>(user)) {
      if (readOutsideNode(
              delegate.getBody().getArgument(use.getOperandNumber()), node))
        return true;
    } else if (isa<edge::DelegateReturnOp>(user)) {
      auto delegate = cast<edge::DelegateOp>(user->getParentOp());
      if (readOutsideNode(delegate->getResult(use.getOperandNumber()), node))
        return true;
    } else if (user->hasTrait<OpTrait::IsTerminator>() ||
               opOrigin(user->getLoc()).node != node) {
      return true;
    }
  }
  return false;
}

fb::Offset<schema::InstructionDebug>
instructionDebug(fb::FlatBufferBuilder &fbb, Operation *op) {
  std::vector<Operation *> ops;
  if (auto delegate = dyn_cast<edge::DelegateOp>(op))
    delegate.getBody().walk([&](Operation *inner) {
      if (!isa<edge::ConstantOp, edge::DelegateReturnOp>(inner))
        ops.push_back(inner);
    });
  else
    ops.push_back(op);
  std::vector<std::string> names, nodes, sources;
  for (Operation *each : ops) {
    OpOrigin origin = opOrigin(each->getLoc());
    names.push_back(each->getName().getStringRef().str());
    nodes.push_back(std::move(origin.node));
    sources.push_back(std::move(origin.source));
  }
  // Each output's producer: the op itself, or inside a delegate the op
  // whose result the body returns ("" for a value passed through).
  std::vector<std::string> outputNodes;
  std::vector<uint32_t> outputResults;
  auto addProducer = [&](Value value) {
    auto result = dyn_cast<OpResult>(value);
    std::string node =
        result ? opOrigin(result.getOwner()->getLoc()).node : std::string();
    // A step inside the import of one node (a type promotion before a sub)
    // is not that node's value: it is named only when the node is done.
    if (!node.empty() && !readOutsideNode(value, node))
      node.clear();
    outputNodes.push_back(node);
    outputResults.push_back(result ? result.getResultNumber() : 0);
  };
  if (auto delegate = dyn_cast<edge::DelegateOp>(op)) {
    for (Value value :
         delegate.getBody().front().getTerminator()->getOperands())
      addProducer(value);
  } else {
    for (Value value : op->getResults())
      addProducer(value);
  }
  auto opsVector = fbb.CreateVectorOfStrings(names);
  auto nodesVector = fbb.CreateVectorOfStrings(nodes);
  auto sourcesVector = fbb.CreateVectorOfStrings(sources);
  auto outputNodesVector = fbb.CreateVectorOfStrings(outputNodes);
  auto outputResultsVector = fbb.CreateVector(outputResults);
  return schema::CreateInstructionDebug(fbb, opsVector, nodesVector,
                                        sourcesVector, outputNodesVector,
                                        outputResultsVector);
}

} // namespace etch
