//===- TorchViewWrites.cpp - In-place writes through views ----------------===//
//
// The training IR writes into views in place (`mask[h, w] = count` is a
// slice of a slice of a fresh tensor, then fill_). Value semantics express
// that by carrying the new view contents back up the chain of views to the
// base: each parent becomes edge.slice_scatter(parent, new view contents),
// a select being a slice of length 1 over an unsqueezed value.
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/EdgeDialect.h"

using namespace mlir;

namespace etch::torch_import {

namespace {
/// An int argument that is constant, or absent/None (\p absent set): false
/// when it is symbolic (the step cannot be written back).
bool constantOrAbsent(const TorchNode &node, StringRef name,
                      std::optional<int64_t> &value) {
  const TorchArgument *arg = node.arg(name);
  value.reset();
  if (!arg || arg->kind == TorchArgument::Kind::None)
    return true;
  value = node.integer(name);
  return value.has_value();
}
} // namespace

void TorchImporter::recordViewStep(TorchNode &node, StringRef name) {
  std::string parent;
  for (const auto &[argName, arg] : node.args())
    if (arg.isTensorLike() && !arg.tensors.empty()) {
      parent = arg.tensors.front();
      break;
    }
  ViewStep step{ViewStep::Kind::Alias, parent};
  std::optional<int64_t> dim, start, end, stride;
  if (node.aten() == "aten::slice") {
    if (!constantOrAbsent(node, "dim", dim) ||
        !constantOrAbsent(node, "start", start) ||
        !constantOrAbsent(node, "end", end) ||
        !constantOrAbsent(node, "step", stride))
      return;
    step.kind = ViewStep::Kind::Slice;
    step.dim = dim.value_or(0);
    step.start = start.value_or(0);
    step.end = end;
    step.step = stride.value_or(1);
  } else if (node.aten() == "aten::select") {
    dim = node.integer("dim");
    start = node.integer("index");
    if (!dim || !start)
      return;
    step.kind = ViewStep::Kind::Select;
    step.dim = *dim;
    step.start = *start;
  } else if (node.aten() != "aten::alias" && node.aten() != "aten::detach" &&
             node.aten() != "aten::to") { // to: only when it aliases
    return; // a reshape or permutation: not written back
  }
  viewSteps[name] = std::move(step);
}

std::optional<SmallVector<std::string>>
TorchImporter::writableChain(StringRef written) const {
  SmallVector<std::string> chain = {written.str()};
  auto base = viewOf.find(written);
  if (base == viewOf.end())
    return std::nullopt;
  while (chain.back() != base->second) {
    auto step = viewSteps.find(chain.back());
    if (step == viewSteps.end() || chain.size() > 64)
      return std::nullopt;
    chain.push_back(step->second.parent);
  }
  return chain;
}

LogicalResult TorchImporter::writeBack(TorchNode &node,
                                       ArrayRef<std::string> chain,
                                       Value result) {
  Builder &b = node.builder();
  Value contents = result;
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    const ViewStep &step = viewSteps.find(chain[i])->second;
    Value parent = tensor(chain[i + 1]);
    if (!parent)
      return node.error() << "writes through a view of '" << chain[i + 1]
                          << "', which has no value";
    auto parentType = cast<RankedTensorType>(parent.getType());
    // An in-place op keeps its target's element type.
    FailureOr<Value> cast = node.castTo(contents, parentType.getElementType());
    if (failed(cast))
      return failure();
    contents = *cast;
    FailureOr<Value> updated = contents;
    if (step.kind == ViewStep::Kind::Slice) {
      updated = node.build<edge::SliceScatterOp>(
          parent, contents, step.dim, b.getI64IntegerAttr(step.start),
          step.end ? b.getI64IntegerAttr(*step.end) : IntegerAttr(),
          step.step);
    } else if (step.kind == ViewStep::Kind::Select) {
      updated = selectScatter(node, parent, contents, step.dim, step.start);
    }
    if (failed(updated))
      return failure();
    values[chain[i + 1]] = *updated;
    contents = *updated;
  }
  return success();
}

} // namespace etch::torch_import
