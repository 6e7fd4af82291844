//===- TorchNode.cpp - One graph node as the op handlers see it -----------===//
//
// Its arguments by name (tensors, ints, lists, sizes with their symbols),
// its output types, and binding its results.
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"


using namespace mlir;
using llvm::json::Array;
using llvm::json::Object;

namespace etch::torch_import {

TorchNode::TorchNode(TorchImporter &importer, const Object &json,
                     std::string aten, NamedArguments args)
    : importer(importer), node(json), atenName(std::move(aten)),
      arguments(std::move(args)), location(importer.nodeLocation(json)) {
  // "torch.ops.aten.add.Tensor" -> overload "Tensor".
  StringRef target = json.getString("target").value_or("");
  if (target.consume_front("torch.ops.")) {
    SmallVector<StringRef, 3> parts;
    target.split(parts, '.');
    if (parts.size() >= 3)
      overloadName = parts[2].str();
  }
}

const TorchArgument *TorchNode::arg(StringRef name) const {
  for (const auto &[key, value] : arguments)
    if (key == name)
      return &value;
  return nullptr;
}

bool TorchNode::has(StringRef name) const {
  const TorchArgument *value = arg(name);
  return value && value->kind != TorchArgument::Kind::None;
}

Value TorchNode::tensor(StringRef name) const {
  const TorchArgument *value = arg(name);
  if (!value || !value->isTensorLike() || value->tensors.empty() ||
      value->tensors.front().empty())
    return {};
  return importer.tensor(value->tensors.front());
}

std::optional<SmallVector<Value>> TorchNode::tensors(StringRef name) const {
  const TorchArgument *value = arg(name);
  if (!value || !value->isTensorLike())
    return std::nullopt;
  SmallVector<Value> result;
  for (const std::string &tensorName : value->tensors)
    result.push_back(tensorName.empty() ? Value()
                                        : importer.tensor(tensorName));
  return result;
}

Value TorchNode::self() const {
  for (const auto &[key, value] : arguments)
    if (value.isTensorLike() && !value.tensors.empty())
      return importer.tensor(value.tensors.front());
  return {};
}

std::optional<int64_t> TorchNode::integer(StringRef name) const {
  const TorchArgument *value = arg(name);
  if (!value || (value->kind != TorchArgument::Kind::Int &&
                 value->kind != TorchArgument::Kind::Bool))
    return std::nullopt;
  if (value->kind == TorchArgument::Kind::Bool)
    return value->bools.front() ? 1 : 0;
  return value->ints.front();
}

std::optional<double> TorchNode::number(StringRef name) const {
  const TorchArgument *value = arg(name);
  return value ? value->scalarValue() : std::nullopt;
}

std::optional<SmallVector<int64_t>> TorchNode::ints(StringRef name) const {
  const TorchArgument *value = arg(name);
  if (!value)
    return std::nullopt;
  if (value->kind == TorchArgument::Kind::Int && value->ints.front())
    return SmallVector<int64_t>{*value->ints.front()};
  if (value->kind != TorchArgument::Kind::Ints)
    return std::nullopt;
  SmallVector<int64_t> result;
  for (std::optional<int64_t> entry : value->ints) {
    if (!entry)
      return std::nullopt;
    result.push_back(*entry);
  }
  return result;
}

std::optional<bool> TorchNode::boolean(StringRef name) const {
  const TorchArgument *value = arg(name);
  if (!value || value->kind != TorchArgument::Kind::Bool)
    return std::nullopt;
  return value->bools.front();
}

std::vector<std::string> TorchNode::outputNames() const {
  return importer.outputTensorNames(node);
}

bool TorchNode::outputRead(size_t index) const {
  std::vector<std::string> names = outputNames();
  return index < names.size() && !names[index].empty() &&
         importer.lastUse.count(names[index]);
}

FailureOr<RankedTensorType> TorchNode::outputType(size_t index) const {
  std::vector<std::string> names = outputNames();
  if (index >= names.size() || names[index].empty())
    return emitError(location) << importer.nodeErrorPrefix(node, atenName)
                               << "has no tensor output #" << index;
  return importer.tensorType(names[index], location);
}

LogicalResult TorchNode::bind(FailureOr<Value> value) {
  return importer.bindOutputs(*this, value);
}

LogicalResult TorchNode::bindEach(ArrayRef<Value> results) {
  std::vector<std::string> names = outputNames();
  for (auto [index, name] : llvm::enumerate(names)) {
    if (name.empty())
      continue;
    if (index >= results.size() || !results[index]) {
      importer.unusableOutputs[name] = "output #" + std::to_string(index) +
                                       " of node '" + importer.nodeName(node) +
                                       "' (" + atenName + ")";
      continue;
    }
    FailureOr<RankedTensorType> declared = outputType(index);
    if (failed(declared))
      return failure();
    // TypeRange views its types: they must outlive the call.
    Type given = results[index].getType(), recorded = *declared;
    if (!edge::areCompatibleTensorTypes(given, recorded))
      return error() << "output #" << index << " is " << *declared
                     << " but Edge gives " << results[index].getType();
    importer.values[name] = results[index];
    nameAfterOutput(results, index, name);
  }
  return success();
}

void TorchNode::nameAfterOutput(ArrayRef<Value> results, size_t index,
                                StringRef name) {
  // An op made for output #index alone (one of split's slices) is named
  // after that output (getitem_1), so a debug handle says which of the
  // node's outputs it computes; output #0 already has the node's name.
  Operation *producer = results[index].getDefiningOp();
  if (index == 0 || !producer || producer->getNumResults() != 1 ||
      producer->getLoc() != location ||
      llvm::count(results, results[index]) != 1)
    return;
  Location where = location;
  if (auto named = dyn_cast<NameLoc>(location))
    where = named.getChildLoc();
  producer->setLoc(
      NameLoc::get(StringAttr::get(producer->getContext(), name), where));
}

LogicalResult TorchNode::importAs(StringRef aten) {
  std::optional<RegisteredOperationName> edgeOp = importer.edgeOpFor(aten);
  if (!edgeOp)
    return error() << "internal: no Edge op for " << aten;
  return importer.importGeneric(*this, *edgeOp);
}

InFlightDiagnostic TorchNode::error() const {
  return importer.nodeError(node, atenName);
}

void TorchNode::defineSymbol(StringRef name, std::optional<int64_t> value) {
  importer.symbols[name] = value;
}

void TorchNode::defineSymbolValue(StringRef name, Value value) {
  importer.symbols[name] = std::nullopt;
  importer.symbolValues[name] = value;
}

Value TorchNode::sizeValue(const TorchArgument &arg, size_t index) const {
  if (index < arg.ints.size() && arg.ints[index])
    return builder().create<edge::ConstantOp>(
        location, DenseElementsAttr::get(
                      RankedTensorType::get({}, builder().getIntegerType(64)),
                      APInt(64, *arg.ints[index], true)));
  StringRef symbol =
      index < arg.symbolNames.size() ? StringRef(arg.symbolNames[index]) : "";
  if (Value value = importer.symbolValues.lookup(symbol))
    return value;
  error() << "size '" << symbol << "' is not known (no node computes it)";
  return {};
}

std::optional<SmallVector<int64_t>>
TorchNode::sizeOperands(StringRef name, SmallVectorImpl<Value> &dynamic) const {
  const TorchArgument *list = arg(name);
  if (!list || (list->kind != TorchArgument::Kind::Ints &&
                list->kind != TorchArgument::Kind::Int)) {
    error() << "needs an int list '" << name << "'";
    return std::nullopt;
  }
  SmallVector<int64_t> sizes;
  for (size_t i = 0; i < list->ints.size(); ++i) {
    if (list->ints[i]) {
      sizes.push_back(*list->ints[i]);
      continue;
    }
    Value value = sizeValue(*list, i);
    if (!value)
      return std::nullopt;
    sizes.push_back(edge::kDynamicSize);
    dynamic.push_back(value);
  }
  return sizes;
}

std::optional<std::string> TorchNode::outputSymbol() const {
  const llvm::json::Array *outputs = node.getArray("outputs");
  const llvm::json::Object *out =
      outputs && !outputs->empty() ? (*outputs)[0].getAsObject() : nullptr;
  const llvm::json::Object *sym = out ? out->getObject("as_sym_int") : nullptr;
  if (!sym && out)
    sym = out->getObject("as_sym_bool");
  std::optional<StringRef> name =
      sym ? sym->getString("as_name") : std::nullopt;
  return name ? std::optional<std::string>(name->str()) : std::nullopt;
}

EdgeOpBuilder &TorchNode::edge() const { return importer.edge; }
OpBuilder &TorchNode::builder() const { return importer.builder; }

Value TorchNode::scalar(Type elementType, double value) const {
  return importer.edge.scalarConstant(location, elementType, value);
}

FailureOr<Value> TorchNode::castTo(Value value, Type elementType) const {
  if (cast<ShapedType>(value.getType()).getElementType() == elementType)
    return value;
  return build<edge::ToCopyOp>(value, TypeAttr::get(elementType));
}

} // namespace etch::torch_import
