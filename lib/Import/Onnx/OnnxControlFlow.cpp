//===- OnnxControlFlow.cpp - If, Loop and Scan inlined at import ----------===//
//
// An etch program is straight-line code planned ahead of time, so control
// flow is resolved while importing: an If whose condition is known takes its
// branch, one decided at run time computes both branches and selects
// (`where`); Loop and Scan are unrolled, which needs the trip count (Loop's
// `M` and the condition each iteration gives) known after constant folding,
// or Scan's sequence length static. Each iteration's body is imported
// again, with its inputs bound, so folding works per iteration (the
// iteration number is a constant).
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"

#include "edge/EdgeDialect.h"

using namespace mlir;

namespace etch::onnx_import {

namespace {
/// Loops unroll at most this many iterations (the program grows with each).
constexpr int64_t kMaxUnrolledIterations = 4096;
} // namespace

void OnnxImporter::bindName(const std::string &name, const Bound &bound) {
  values.erase(name);
  constants.erase(name);
  if (bound.constant)
    constants[name] = bound.constant;
  else if (bound.value)
    values[name] = bound.value;
}

OnnxImporter::Bound OnnxImporter::boundInput(const OnnxNode &node,
                                             size_t index) {
  if (const OnnxTensor *tensor = constantInput(node, index))
    return {Value(), tensor};
  return {input(node, index), nullptr};
}

Value OnnxImporter::materialize(const Bound &bound, Location loc) {
  if (bound.value)
    return bound.value;
  if (!elementType(bound.constant->elementType))
    return {};
  return constantFromTensor(*bound.constant, loc);
}

const OnnxTensor *OnnxImporter::ownScalar(const std::string &name,
                                          OnnxDataType type, int64_t value) {
  auto tensor = std::make_unique<OnnxTensor>();
  tensor->name = name;
  tensor->elementType = type;
  if (type == OnnxDataType::Bool) {
    char flag = value != 0;
    tensor->bytes.assign(&flag, 1);
  } else {
    tensor->bytes.assign(reinterpret_cast<const char *>(&value), 8);
  }
  ownedConstants.push_back(std::move(tensor));
  return ownedConstants.back().get();
}

/// Forgets the names a body defines (so a value of the previous iteration is
/// never read), binds its formal inputs, imports its nodes and returns what
/// its outputs are bound to.
FailureOr<SmallVector<OnnxImporter::Bound>>
OnnxImporter::inlineSubgraph(const OnnxNode &owner, const OnnxGraph &body,
                             ArrayRef<Bound> arguments) {
  if (arguments.size() != body.formalInputs.size())
    return nodeError(owner)
           << "subgraph '" << body.name << "' takes "
           << body.formalInputs.size() << " inputs, given " << arguments.size();
  if (std::string problem = malformedNode(body.nodes); !problem.empty())
    return nodeError(owner) << "subgraph '" << body.name << "': " << problem;
  for (const OnnxNode &node : body.nodes)
    for (const std::string &name : node.outputs)
      bindName(name, {});
  for (const OnnxTensor &initializer : body.initializers)
    bindName(initializer.name, {Value(), &initializer});
  for (auto [name, argument] : llvm::zip(body.formalInputs, arguments))
    bindName(name, argument);
  for (const OnnxNode &node : body.nodes)
    if (failed(convertNode(node)))
      return failure();
  SmallVector<Bound> results;
  for (const auto &[name, type] : body.outputs) {
    if (const OnnxTensor *tensor = constants.lookup(name))
      results.push_back({Value(), tensor});
    else if (Value value = values.lookup(name))
      results.push_back({value, nullptr});
    else
      return nodeError(owner) << "subgraph '" << body.name << "' output '"
                              << name << "' is not produced by any node";
  }
  return results;
}

static const OnnxGraph *subgraph(const OnnxNode &node, StringRef name) {
  auto it = node.attributes.find(name.str());
  if (it == node.attributes.end() ||
      it->second.kind != OnnxAttribute::Kind::Graph)
    return nullptr;
  return it->second.graph.get();
}

LogicalResult OnnxImporter::convertIf(const OnnxNode &node) {
  const OnnxGraph *thenBranch = subgraph(node, "then_branch");
  const OnnxGraph *elseBranch = subgraph(node, "else_branch");
  if (!thenBranch || !elseBranch)
    return nodeError(node) << "needs then_branch and else_branch subgraphs";
  if (const OnnxTensor *cond = constantInput(node, 0)) {
    std::optional<std::vector<int64_t>> flag = constantInts(*cond);
    if (!flag || flag->size() != 1)
      return nodeError(node) << "the condition must have one element";
    FailureOr<SmallVector<Bound>> taken =
        inlineSubgraph(node, flag->front() ? *thenBranch : *elseBranch, {});
    if (failed(taken))
      return failure();
    for (auto [output, bound] : llvm::zip(node.outputs, *taken))
      if (!output.empty())
        bindName(output, bound);
    return success();
  }
  // Decided at run time: both branches run and each output is selected.
  Value cond = input(node, 0);
  if (!cond)
    return failure();
  FailureOr<SmallVector<Bound>> thenResults =
      inlineSubgraph(node, *thenBranch, {});
  if (failed(thenResults))
    return failure();
  FailureOr<SmallVector<Bound>> elseResults =
      inlineSubgraph(node, *elseBranch, {});
  if (failed(elseResults))
    return failure();
  Location loc = locationOf(node);
  for (auto [index, output] : llvm::enumerate(node.outputs)) {
    if (output.empty())
      continue;
    Value onTrue = materialize((*thenResults)[index], loc);
    Value onFalse = materialize((*elseResults)[index], loc);
    if (!onTrue || !onFalse)
      return nodeError(node) << "output #" << index
                             << " has an element type etch does not support";
    if (onTrue.getType() != onFalse.getType())
      return nodeError(node)
             << "the condition is computed at run time, so both branches run "
                "and their outputs are selected: output #"
             << index << " must have one type, got " << onTrue.getType()
             << " and " << onFalse.getType();
    FailureOr<Value> selected =
        edge.create<edge::WhereOp>(loc, ValueRange{cond, onTrue, onFalse});
    if (failed(selected))
      return failure();
    values[output] = *selected;
  }
  return success();
}

/// Stacks one scan output's per-iteration values along \p axis (a new dim),
/// in iteration order or reversed.
FailureOr<Value> OnnxImporter::stack(const OnnxNode &node,
                                     ArrayRef<Bound> pieces, int64_t axis,
                                     bool reverse) {
  Location loc = locationOf(node);
  if (pieces.empty())
    return nodeError(node) << "a scan output of a loop that runs no "
                              "iteration has no known shape";
  SmallVector<Value> unsqueezed;
  for (size_t i = 0; i < pieces.size(); ++i) {
    Value piece = materialize(pieces[reverse ? pieces.size() - 1 - i : i], loc);
    if (!piece)
      return nodeError(node) << "a scan output has an unsupported type";
    int64_t rank = rankedTypeOf(piece).getRank();
    int64_t dim = axis < 0 ? axis + rank + 1 : axis;
    if (dim < 0 || dim > rank)
      return nodeError(node) << "scan output axis " << axis
                             << " is out of range for rank " << rank;
    FailureOr<Value> grown = edge.create<edge::UnsqueezeOp>(
        loc, piece,
        {builder.getNamedAttr("dim", builder.getI64IntegerAttr(dim))});
    if (failed(grown))
      return failure();
    unsqueezed.push_back(*grown);
    axis = dim;
  }
  return edge.create<edge::CatOp>(
      loc, unsqueezed,
      {builder.getNamedAttr("dim", builder.getI64IntegerAttr(axis))});
}

LogicalResult OnnxImporter::convertLoop(const OnnxNode &node) {
  const OnnxGraph *body = subgraph(node, "body");
  if (!body)
    return nodeError(node) << "needs a body subgraph";
  size_t carried = node.inputs.size() < 2 ? 0 : node.inputs.size() - 2;
  if (body->outputs.size() < 1 + carried ||
      body->formalInputs.size() != 2 + carried)
    return nodeError(node) << "the body must take the iteration number, the "
                              "condition and "
                           << carried
                           << " loop-carried values, and give the "
                              "condition and them first";
  size_t scanned = body->outputs.size() - 1 - carried;
  std::optional<int64_t> tripCount;
  if (hasInput(node, 0)) {
    const OnnxTensor *count = constantInput(node, 0);
    std::optional<std::vector<int64_t>> ints =
        count ? constantInts(*count) : std::nullopt;
    if (!ints || ints->size() != 1)
      return nodeError(node)
             << "the trip count M must be a constant after folding (etch "
                "unrolls loops at import; a loop whose length is computed at "
                "run time is not supported)";
    tripCount = ints->front();
  }
  auto knownCondition = [&](const Bound &bound) -> std::optional<bool> {
    if (!bound.constant)
      return std::nullopt;
    std::optional<std::vector<int64_t>> ints = constantInts(*bound.constant);
    if (!ints || ints->size() != 1)
      return std::nullopt;
    return ints->front() != 0;
  };
  Bound condition{Value(),
                  ownScalar(node.name + "#cond", OnnxDataType::Bool, 1)};
  if (hasInput(node, 1))
    condition = boundInput(node, 1);
  SmallVector<Bound> state;
  for (size_t i = 0; i < carried; ++i) {
    state.push_back(boundInput(node, 2 + i));
    if (!state.back().value && !state.back().constant)
      return failure();
  }
  std::vector<SmallVector<Bound>> scans(scanned);
  for (int64_t iteration = 0;; ++iteration) {
    if (tripCount && iteration >= *tripCount)
      break;
    std::optional<bool> proceed = knownCondition(condition);
    if (!proceed)
      return nodeError(node)
             << "the loop's condition is computed at run time (iteration "
             << iteration
             << "); etch unrolls loops at import and needs it constant";
    if (!*proceed)
      break;
    if (iteration >= kMaxUnrolledIterations)
      return nodeError(node)
             << "unrolls at most " << kMaxUnrolledIterations << " iterations";
    SmallVector<Bound> arguments = {
        {Value(),
         ownScalar(node.name + "#iteration", OnnxDataType::Int64, iteration)},
        condition};
    arguments.append(state.begin(), state.end());
    FailureOr<SmallVector<Bound>> results =
        inlineSubgraph(node, *body, arguments);
    if (failed(results))
      return failure();
    condition = (*results)[0];
    for (size_t i = 0; i < carried; ++i)
      state[i] = (*results)[1 + i];
    for (size_t k = 0; k < scanned; ++k)
      scans[k].push_back((*results)[1 + carried + k]);
  }
  for (size_t i = 0; i < carried; ++i)
    if (!node.outputs[i].empty())
      bindName(node.outputs[i], state[i]);
  for (size_t k = 0; k < scanned; ++k) {
    if (carried + k >= node.outputs.size() || node.outputs[carried + k].empty())
      continue;
    FailureOr<Value> stacked = stack(node, scans[k], 0, false);
    if (failed(stacked))
      return failure();
    values[node.outputs[carried + k]] = *stacked;
  }
  return success();
}

LogicalResult OnnxImporter::convertScan(const OnnxNode &node) {
  const OnnxGraph *body = subgraph(node, "body");
  if (!body)
    return nodeError(node) << "needs a body subgraph";
  int64_t scanInputs = intAttr(node, "num_scan_inputs", 0);
  int64_t states = static_cast<int64_t>(node.inputs.size()) - scanInputs;
  if (scanInputs < 1 || states < 0 ||
      body->formalInputs.size() != node.inputs.size() ||
      static_cast<int64_t>(body->outputs.size()) < states)
    return nodeError(node) << "the body must take the " << states
                           << " states and one element of each of the "
                           << scanInputs << " scan inputs";
  auto perInput = [&](StringRef name, int64_t count) {
    std::vector<int64_t> values =
        intsAttr(node, name).value_or(std::vector<int64_t>());
    values.resize(count, 0);
    return values;
  };
  size_t scanOutputs = body->outputs.size() - states;
  std::vector<int64_t> inputAxes = perInput("scan_input_axes", scanInputs);
  std::vector<int64_t> inputDirections =
      perInput("scan_input_directions", scanInputs);
  std::vector<int64_t> outputAxes = perInput("scan_output_axes", scanOutputs);
  std::vector<int64_t> outputDirections =
      perInput("scan_output_directions", scanOutputs);

  Location loc = locationOf(node);
  SmallVector<Bound> state;
  for (int64_t i = 0; i < states; ++i)
    state.push_back(boundInput(node, i));
  SmallVector<Value> sequences;
  int64_t length = -1;
  for (int64_t j = 0; j < scanInputs; ++j) {
    Value sequence = input(node, states + j);
    if (!sequence)
      return failure();
    RankedTensorType type = rankedTypeOf(sequence);
    int64_t axis =
        inputAxes[j] < 0 ? inputAxes[j] + type.getRank() : inputAxes[j];
    if (axis < 0 || axis >= type.getRank() || type.isDynamicDim(axis))
      return nodeError(node)
             << "scan input #" << j << " needs a static extent along its axis "
             << inputAxes[j] << ", got " << type;
    if (length >= 0 && type.getDimSize(axis) != length)
      return nodeError(node) << "scan inputs disagree on the sequence length";
    length = type.getDimSize(axis);
    inputAxes[j] = axis;
    sequences.push_back(sequence);
  }
  if (length > kMaxUnrolledIterations)
    return nodeError(node) << "unrolls at most " << kMaxUnrolledIterations
                           << " iterations, the sequence has " << length;
  std::vector<SmallVector<Bound>> scans(scanOutputs);
  for (int64_t t = 0; t < length; ++t) {
    SmallVector<Bound> arguments(state);
    for (int64_t j = 0; j < scanInputs; ++j) {
      int64_t at = inputDirections[j] ? length - 1 - t : t;
      FailureOr<Value> element = edge.create<edge::SelectOp>(
          loc, sequences[j],
          {builder.getNamedAttr("dim", builder.getI64IntegerAttr(inputAxes[j])),
           builder.getNamedAttr("index", builder.getI64IntegerAttr(at))});
      if (failed(element))
        return failure();
      arguments.push_back({*element, nullptr});
    }
    FailureOr<SmallVector<Bound>> results =
        inlineSubgraph(node, *body, arguments);
    if (failed(results))
      return failure();
    for (int64_t i = 0; i < states; ++i)
      state[i] = (*results)[i];
    for (size_t k = 0; k < scanOutputs; ++k)
      scans[k].push_back((*results)[states + k]);
  }
  for (int64_t i = 0; i < states; ++i)
    if (!node.outputs[i].empty())
      bindName(node.outputs[i], state[i]);
  for (size_t k = 0; k < scanOutputs; ++k) {
    size_t index = states + k;
    if (index >= node.outputs.size() || node.outputs[index].empty())
      continue;
    FailureOr<Value> stacked =
        stack(node, scans[k], outputAxes[k], outputDirections[k] != 0);
    if (failed(stacked))
      return failure();
    values[node.outputs[index]] = *stacked;
  }
  return success();
}

} // namespace etch::onnx_import
