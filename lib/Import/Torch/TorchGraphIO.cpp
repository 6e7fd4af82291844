//===- TorchGraphIO.cpp - The graph's inputs and outputs ------------------===//
//
// The export signature's inputs (user inputs, parameters, buffers,
// constants, with their symbolic sizes), each node's outputs, and the
// graph's outputs (user outputs and buffer mutations).
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using llvm::json::Array;
using llvm::json::Object;

namespace etch::torch_import {

LogicalResult TorchImporter::importSignature(const Object &graph,
                                             const Object &signature) {
  Location fileLoc = FileLineColLoc::get(builder.getContext(), path, 0, 0);
  const Array *inputs = graph.getArray("inputs");
  const Array *specs = signature.getArray("input_specs");
  if (!inputs || !specs || inputs->size() != specs->size())
    return emitError(fileLoc) << "graph inputs and input_specs "
                                 "are missing or differ in length";
  auto func = cast<func::FuncOp>(builder.getBlock()->getParentOp());
  unsigned argumentIndex = 0;
  for (const llvm::json::Value &specValue : *specs) {
    const Object *spec = specValue.getAsObject();
    if (!spec || spec->empty())
      return emitError(fileLoc) << "malformed input spec";
    StringRef kind = spec->begin()->first;
    const Object *body = spec->begin()->second.getAsObject();
    const Object *arg = body ? body->getObject("arg") : nullptr;
    if (kind == "user_input") {
      const Object *tensorArg = arg ? arg->getObject("as_tensor") : nullptr;
      std::optional<StringRef> name =
          tensorArg ? tensorArg->getString("name") : std::nullopt;
      if (!name)
        return emitError(fileLoc) << "only tensor user inputs are "
                                     "supported";
      values[*name] = func.getArgument(argumentIndex++);
      continue;
    }
    if (kind == "constant_input") {
      std::optional<StringRef> name = body->getString("name");
      const Object *value = body->getObject("value");
      if (!name || !value)
        return emitError(fileLoc) << "malformed constant_input";
      symbols[*name] = value->getInteger("as_int");
      continue;
    }
    std::optional<StringRef> name = arg ? arg->getString("name") : std::nullopt;
    StringRef fqnKey = kind == "parameter"         ? "parameter_name"
                       : kind == "buffer"          ? "buffer_name"
                       : kind == "tensor_constant" ? "tensor_constant_name"
                                                   : "";
    if (fqnKey.empty())
      return emitError(fileLoc)
             << "input spec kind '" << kind << "' is not supported";
    std::optional<StringRef> fqn = body->getString(fqnKey);
    if (!name || !fqn)
      return emitError(fileLoc) << "malformed " << kind << " spec";
    bool persistent = body->getBoolean("persistent").value_or(true);
    auto &store = kind == "tensor_constant" || (kind == "buffer" && !persistent)
                      ? contents.constants
                      : contents.weights;
    auto it = store.find(fqn->str());
    if (it == store.end())
      return emitError(fileLoc)
             << kind << " '" << *fqn << "' is not stored in the archive";
    Location loc = NameLoc::get(builder.getStringAttr(*fqn), fileLoc);
    FailureOr<Value> constant =
        constantFromTensorData(*name, *fqn, it->second, loc);
    if (failed(constant))
      return failure();
    // A tensor constant can be written in place too: non-strict exports
    // lift tensors a module keeps as plain attributes (transformers' static
    // KV cache layers) into constants that the graph updates every call.
    // Written, it becomes state as a buffer does; otherwise it stays a
    // plain constant.
    if (kind == "buffer" || kind == "tensor_constant") {
      constant->getDefiningOp()->setAttr("etch.buffer",
                                         builder.getStringAttr(*fqn));
      bufferOfInput[*name] = fqn->str();
      if (kind == "tensor_constant")
        tensorConstants.insert(*fqn);
    }
    values[*name] = *constant;
  }
  return success();
}

std::vector<std::string> TorchImporter::outputTensorNames(const Object &node) {
  std::vector<std::string> names;
  const Array *outputs = node.getArray("outputs");
  if (!outputs)
    return names;
  for (const llvm::json::Value &output : *outputs) {
    std::string error;
    std::optional<TorchArgument> arg = decodeArgument(output, symbols, error);
    if (!arg)
      continue;
    if (arg->isTensorLike())
      names.insert(names.end(), arg->tensors.begin(), arg->tensors.end());
    else
      names.emplace_back(); // a non-tensor output keeps its position
  }
  return names;
}

LogicalResult TorchImporter::bindOutputs(TorchNode &node,
                                         FailureOr<Value> value) {
  if (failed(value))
    return failure(); // the builder reported why, naming the node
  std::vector<std::string> names = node.outputNames();
  if (names.empty() || names.front().empty())
    return node.error() << "has no tensor output";
  FailureOr<RankedTensorType> declared = tensorType(names.front(), node.loc());
  if (failed(declared))
    return failure();
  // The program records a quantized value by its storage (int8).
  auto inferred = cast<RankedTensorType>(value->getType());
  if (!edge::areCompatibleTensorTypes(edge::storageTensorType(inferred),
                                      *declared))
    return node.error() << "Edge infers " << inferred
                        << " but the program records " << *declared;
  // The program may know extents inference cannot (symbolic shapes).
  if (Operation *op = value->getDefiningOp())
    if (op->getNumResults() == 1 && !isa<edge::ConstantOp>(op))
      value->setType(declared->clone(inferred.getElementType()));
  values[names.front()] = *value;
  for (size_t i = 1; i < names.size(); ++i)
    if (!names[i].empty())
      unusableOutputs[names[i]] = "output #" + std::to_string(i) +
                                  " of node '" + nodeName(node.json()) + "' (" +
                                  node.aten().str() + ")";
  // Results of ATen's view ops alias their input.
  static const llvm::StringSet<> viewOps = {"aten::view",
                                            "aten::reshape",
                                            "aten::_unsafe_view",
                                            "aten::slice",
                                            "aten::select",
                                            "aten::transpose",
                                            "aten::permute",
                                            "aten::expand",
                                            "aten::squeeze",
                                            "aten::unsqueeze",
                                            "aten::t",
                                            "aten::alias",
                                            "aten::detach",
                                            "aten::narrow",
                                            "aten::flatten",
                                            "aten::unflatten",
                                            "aten::view_as",
                                            "aten::expand_as",
                                            "aten::movedim",
                                            "aten::diagonal",
                                            "aten::as_strided",
                                            "aten::split",
                                            "aten::chunk",
                                            "aten::unbind",
                                            "aten::split_with_sizes"};
  if (viewOps.contains(node.aten()) || isAliasingConversion(node, *value))
    for (const auto &[argName, arg] : node.args())
      if (arg.isTensorLike() && !arg.tensors.empty()) {
        const std::string &base = arg.tensors.front();
        auto root = viewOf.find(base);
        viewOf[names.front()] = root == viewOf.end() ? base : root->second;
        recordViewStep(node, names.front());
        break;
      }
  return success();
}

/// aten::to returns its input itself when nothing changes (same dtype, no
/// copy=True): the result aliases it, so an in-place write to the result
/// (transformers' cache lengths: `to(...).add_(n)`) writes the input.
bool TorchImporter::isAliasingConversion(TorchNode &node, Value result) {
  if (node.aten() != "aten::to" || node.boolean("copy").value_or(false))
    return false;
  Value input = node.self();
  return input && cast<ShapedType>(input.getType()).getElementType() ==
                      cast<ShapedType>(result.getType()).getElementType();
}

LogicalResult TorchImporter::importOutputs(const Object &graph,
                                           const Object &signature) {
  Location fileLoc = FileLineColLoc::get(builder.getContext(), path, 0, 0);
  const Array *specs = signature.getArray("output_specs");
  const Array *outputs = graph.getArray("outputs");
  if (!specs || !outputs || specs->size() != outputs->size())
    return emitError(fileLoc) << "graph outputs and output_specs "
                                 "are missing or differ in length";
  SmallVector<Value> userResults, mutationResults;
  SmallVector<std::string> userNames;
  SmallVector<Attribute> mutatedBufferNames;
  for (auto [specValue, output] : llvm::zip(*specs, *outputs)) {
    const Object *spec = specValue.getAsObject();
    if (!spec || spec->empty())
      return emitError(fileLoc) << "malformed output spec";
    StringRef kind = spec->begin()->first;
    std::string error;
    std::optional<TorchArgument> arg = decodeArgument(output, symbols, error);
    if (!arg || arg->kind != TorchArgument::Kind::Tensor)
      return emitError(fileLoc) << "only tensor outputs are "
                                   "supported (output spec '"
                                << kind << "')";
    const std::string &name = arg->tensors.front();
    Value value = tensor(name);
    if (!value) {
      auto unusable = unusableOutputs.find(name);
      if (unusable != unusableOutputs.end())
        return emitError(fileLoc)
               << "the program returns '" << name << "', " << unusable->second
               << ", which etch does not support";
      return emitError(fileLoc)
             << "output '" << name << "' is not produced by any node";
    }
    if (kind == "user_output") {
      userResults.push_back(value);
      userNames.push_back(name);
    } else if (kind == "buffer_mutation") {
      const Object *body = spec->begin()->second.getAsObject();
      std::optional<StringRef> buffer =
          body ? body->getString("buffer_name") : std::nullopt;
      if (!buffer)
        return emitError(fileLoc) << "malformed buffer_mutation";
      mutationResults.push_back(value);
      mutatedBufferNames.push_back(builder.getStringAttr(*buffer));
    } else if (kind == "user_input_mutation") {
      // The runtime never writes a caller's input tensors.
      const Object *body = spec->begin()->second.getAsObject();
      std::optional<StringRef> input =
          body ? body->getString("user_input_name") : std::nullopt;
      return emitError(fileLoc)
             << "the program writes its input '" << input.value_or(name)
             << "' in place (an in-place op on a forward() argument); etch "
                "methods do not write their inputs: write to a clone of it "
                "in the model";
    } else {
      return emitError(fileLoc)
             << "output spec kind '" << kind << "' is not supported";
    }
  }
  // The training IR writes buffers in place and lists no mutation outputs:
  // the in-place writes give them.
  for (const auto &[buffer, value] : mutatedBuffers) {
    if (llvm::any_of(mutatedBufferNames, [&](Attribute name) {
          return cast<StringAttr>(name).getValue() == buffer;
        }))
      continue;
    mutationResults.push_back(value);
    mutatedBufferNames.push_back(builder.getStringAttr(buffer));
  }
  auto func = cast<func::FuncOp>(builder.getBlock()->getParentOp());
  SmallVector<Value> results(userResults);
  results.append(mutationResults);
  builder.create<func::ReturnOp>(fileLoc, results);
  func.setType(builder.getFunctionType(func.getArgumentTypes(),
                                       ValueRange(results).getTypes()));
  for (auto [index, name] : llvm::enumerate(userNames))
    func.setResultAttr(index, "etch.name", builder.getStringAttr(name));
  // Trailing results hold the new values of these buffers (KV caches, BN
  // statistics in training exports, ...).
  if (!mutatedBufferNames.empty())
    func->setAttr("etch.buffer_mutations",
                  builder.getArrayAttr(mutatedBufferNames));
  // A buffer the program writes is state, not a constant: its reads become
  // edge.buffer, which no pass folds.
  llvm::StringSet<> mutated;
  for (Attribute name : mutatedBufferNames)
    mutated.insert(cast<StringAttr>(name).getValue());
  SmallVector<edge::ConstantOp> reads;
  func.walk([&](edge::ConstantOp constant) {
    auto buffer = constant->getAttrOfType<StringAttr>("etch.buffer");
    if (!buffer)
      return;
    if (mutated.contains(buffer.getValue()))
      reads.push_back(constant);
    else if (tensorConstants.contains(buffer.getValue()))
      constant->removeAttr("etch.buffer");
  });
  for (edge::ConstantOp constant : reads) {
    OpBuilder rewriter(constant);
    auto state = rewriter.create<edge::BufferOp>(
        constant.getLoc(), constant->getAttrOfType<StringAttr>("etch.buffer"),
        constant.getValue());
    constant.replaceAllUsesWith(state.getResult());
    constant.erase();
  }
  return success();
}

} // namespace etch::torch_import
