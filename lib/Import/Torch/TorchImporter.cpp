//===- TorchImporter.cpp - torch.export program -> Edge dialect -----------===//
//
// Walks the graph node by node. A node's ATen op is imported by, in order:
// a handler from the table (TorchOpHandlers.h: composites decomposed in C++,
// ops whose arguments differ from their Edge op's), the generic mapping by
// AtenOpInterface (arguments named like the Edge op's attributes become
// attributes and omitted ones take the ODS defaults; tensors become operands
// in schema order; Python scalars become rank-0 constants; operands are
// promoted to a common type as torch does), or, for in-place ops, the same
// for the functional form. Anything else becomes edge.custom and is
// reported.
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Import/Import.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using llvm::json::Array;
using llvm::json::Object;

namespace etch::torch_import {

/// Arguments ATen ops carry that have no meaning for inference in Edge, with
/// the values they must have to be dropped safely.
static bool isIgnorableArgument(StringRef name, const TorchArgument &arg) {
  using Kind = TorchArgument::Kind;
  if (name == "momentum" || name == "cudnn_enable" || name == "cudnn_enabled" ||
      name == "scale_grad_by_freq" || name == "sparse" || name == "implicit" ||
      name == "memory_format" || name == "layout" || name == "device" ||
      name == "pin_memory" || name == "non_blocking" || name == "copy")
    return true;
  if (name == "training" || name == "train")
    return arg.kind == Kind::Bool && !arg.bools.front();
  if (name == "dtype")
    return arg.kind == Kind::None;
  return false;
}

//===----------------------------------------------------------------------===//
// TorchNode
//===----------------------------------------------------------------------===//

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
    if (!edge::areCompatibleTensorTypes(results[index].getType(), *declared))
      return error() << "output #" << index << " is " << *declared
                     << " but Edge gives " << results[index].getType();
    importer.values[name] = results[index];
  }
  return success();
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
        location,
        DenseElementsAttr::get(
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

//===----------------------------------------------------------------------===//
// TorchImporter
//===----------------------------------------------------------------------===//

TorchImporter::TorchImporter(ModuleOp module, Pt2Contents &contents,
                             StringRef path)
    : module(module), contents(contents), path(path.str()),
      builder(module.getContext()), edge(builder) {
  for (RegisteredOperationName name :
       module.getContext()->getRegisteredOperations()) {
    auto *aten = name.getInterface<edge::AtenOpInterface>();
    if (!aten)
      continue;
    SmallVector<StringRef> atenNames;
    aten->getAtenNames().split(atenNames, ',');
    for (StringRef atenName : atenNames)
      atenToEdge.try_emplace(atenName, name.getStringRef().str());
  }
}

std::optional<RegisteredOperationName>
TorchImporter::edgeOpFor(StringRef aten) {
  auto it = atenToEdge.find(aten);
  if (it == atenToEdge.end())
    return std::nullopt;
  return RegisteredOperationName::lookup(it->second, builder.getContext());
}

std::string TorchImporter::nodeName(const Object &node) {
  if (auto name = node.getString("name"))
    return name->str();
  std::vector<std::string> outputs = outputTensorNames(node);
  return outputs.empty() ? "<unnamed>" : outputs.front();
}

/// The node's name, located at the model's source line from `stack_trace`:
/// the innermost frame outside torch itself (the user's model, torchvision's
/// or transformers' model code), else the innermost frame.
Location TorchImporter::nodeLocation(const Object &node) {
  MLIRContext *context = builder.getContext();
  Location where = FileLineColLoc::get(context, path, 0, 0);
  if (const Object *metadata = node.getObject("metadata")) {
    if (auto trace = metadata->getString("stack_trace")) {
      llvm::Regex frame("File \"([^\"]+)\", line ([0-9]+)");
      StringRef rest = *trace;
      SmallVector<StringRef, 3> groups;
      std::optional<Location> model;
      while (frame.match(rest, &groups)) {
        unsigned line = 0;
        groups[2].getAsInteger(10, line);
        where = FileLineColLoc::get(context, groups[1], line, 0);
        if (!groups[1].contains("/torch/"))
          model = where;
        rest = rest.drop_front(groups[0].end() - rest.begin());
      }
      if (model)
        where = *model;
    }
  }
  return NameLoc::get(StringAttr::get(context, nodeName(node)), where);
}

std::string TorchImporter::nodeErrorPrefix(const Object &node,
                                           StringRef aten) {
  // Located at the user's source line: also name the archive.
  auto file = dyn_cast<FileLineColLoc>(
      cast<NameLoc>(nodeLocation(node)).getChildLoc());
  std::string archive = file && file.getFilename() != path ? path + ": " : "";
  return archive + "node '" + nodeName(node) + "' (" + aten.str() + "): ";
}

InFlightDiagnostic TorchImporter::nodeError(const Object &node,
                                            StringRef aten) {
  InFlightDiagnostic diag = emitError(nodeLocation(node));
  diag << nodeErrorPrefix(node, aten);
  return diag;
}

FailureOr<RankedTensorType> TorchImporter::tensorType(StringRef name,
                                                      Location loc) {
  const Object *meta = tensorValues ? tensorValues->getObject(name) : nullptr;
  if (!meta)
    return emitError(loc) << "no tensor_values entry for '" << name << "'";
  std::optional<int64_t> dtype = meta->getInteger("dtype");
  MLIRContext *context = builder.getContext();
  Type element;
  switch (static_cast<ScalarType>(dtype.value_or(0))) {
  case ScalarType::Float:
    element = Float32Type::get(context);
    break;
  case ScalarType::Double:
    element = Float64Type::get(context);
    break;
  case ScalarType::Half:
    element = Float16Type::get(context);
    break;
  case ScalarType::BFloat16:
    element = BFloat16Type::get(context);
    break;
  case ScalarType::Byte:
    element = IntegerType::get(context, 8, IntegerType::Unsigned);
    break;
  case ScalarType::Char:
    element = IntegerType::get(context, 8);
    break;
  case ScalarType::Short:
    element = IntegerType::get(context, 16);
    break;
  case ScalarType::Int:
    element = IntegerType::get(context, 32);
    break;
  case ScalarType::Long:
    element = IntegerType::get(context, 64);
    break;
  case ScalarType::Bool:
    element = IntegerType::get(context, 1);
    break;
  default:
    return emitError(loc) << "tensor '" << name << "' has unknown dtype "
                          << scalarTypeName(dtype.value_or(0));
  }
  const Array *sizes = meta->getArray("sizes");
  if (!sizes)
    return emitError(loc) << "tensor '" << name << "' has no sizes";
  SmallVector<int64_t> shape;
  for (const llvm::json::Value &size : *sizes) {
    const Object *sym = size.getAsObject();
    std::optional<int64_t> extent =
        sym ? sym->getInteger("as_int") : std::nullopt;
    shape.push_back(extent ? *extent : ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, element);
}

LogicalResult TorchImporter::sizeBounds(StringRef name, Location loc,
                                        SmallVectorImpl<int64_t> &min,
                                        SmallVectorImpl<int64_t> &max) {
  const Object *meta = tensorValues ? tensorValues->getObject(name) : nullptr;
  const Array *sizes = meta ? meta->getArray("sizes") : nullptr;
  if (!sizes)
    return emitError(loc) << "tensor '" << name << "' has no sizes";
  for (const llvm::json::Value &size : *sizes) {
    const Object *sym = size.getAsObject();
    if (std::optional<int64_t> extent =
            sym ? sym->getInteger("as_int") : std::nullopt) {
      min.push_back(*extent);
      max.push_back(*extent);
      continue;
    }
    const Object *expr = sym ? sym->getObject("as_expr") : nullptr;
    std::optional<StringRef> text =
        expr ? expr->getString("expr_str") : std::nullopt;
    std::string error;
    std::unique_ptr<SymbolicExpr> parsed =
        text ? SymbolicExpr::parse(*text, error) : nullptr;
    std::optional<std::pair<int64_t, int64_t>> bounds =
        parsed ? boundsOf(*parsed, symbolRanges, error) : std::nullopt;
    if (!bounds)
      return emitError(loc)
             << "dynamic size of '" << name << "' ("
             << (text ? *text : StringRef("?")) << "): "
             << (error.empty() ? "not a symbolic expression" : error)
             << "; etch needs bounded dynamic dimensions (export with "
                "torch.export.Dim(..., min=..., max=...))";
    min.push_back(bounds->first);
    max.push_back(bounds->second);
  }
  return success();
}

Value TorchImporter::tensor(StringRef name) { return values.lookup(name); }

FailureOr<Value> TorchImporter::constantFromTensorData(StringRef valueName,
                                                       StringRef fqn,
                                                       TensorData &data,
                                                       Location loc) {
  FailureOr<RankedTensorType> type = tensorType(valueName, loc);
  if (failed(type))
    return failure();
  // Sizes and dtype first: the element count of a dynamic or mismatched
  // shape means nothing (and the stored sizes were checked when the weight
  // was read), and bytes of another dtype are not the graph's elements.
  std::optional<int64_t> graphDtype =
      tensorValues->getObject(valueName)->getInteger("dtype");
  if (!type->hasStaticShape() || graphDtype != data.dtype ||
      ArrayRef<int64_t>(data.sizes) != type->getShape() ||
      static_cast<int64_t>(data.bytes.size()) !=
          type->getNumElements() * scalarTypeSize(data.dtype))
    return emitError(loc) << "weight '" << fqn << "' holds "
                          << scalarTypeName(data.dtype) << " of shape ["
                          << llvm::make_range(data.sizes.begin(),
                                              data.sizes.end())
                          << "] but the graph expects " << *type;
  Value constant = builder.create<edge::ConstantOp>(
      loc, edge::makeConstantFromOwnedBytes(*type, std::move(data.bytes), fqn));
  return constant;
}

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
                                  " of node '" + nodeName(node.json()) +
                                  "' (" + node.aten().str() + ")";
  // Results of ATen's view ops alias their input.
  static const llvm::StringSet<> viewOps = {
      "aten::view",      "aten::reshape",   "aten::_unsafe_view",
      "aten::slice",     "aten::select",    "aten::transpose",
      "aten::permute",   "aten::expand",    "aten::squeeze",
      "aten::unsqueeze", "aten::t",         "aten::alias",
      "aten::detach",    "aten::narrow",    "aten::flatten",
      "aten::unflatten", "aten::view_as",   "aten::expand_as",
      "aten::movedim",   "aten::diagonal",  "aten::as_strided",
      "aten::split",     "aten::chunk",     "aten::unbind",
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

/// The attribute for a node argument, as the Edge op stores it: ints as i64
/// (or f64 where the Edge attribute is a float Scalar), lists as dense
/// arrays.
Attribute TorchImporter::attributeFor(const TorchArgument &arg, bool asFloat) {
  using Kind = TorchArgument::Kind;
  switch (arg.kind) {
  case Kind::Int:
  case Kind::ScalarType:
    if (!arg.ints.front())
      return {};
    if (asFloat)
      return builder.getF64FloatAttr(static_cast<double>(*arg.ints.front()));
    return builder.getI64IntegerAttr(*arg.ints.front());
  case Kind::Float:
    return builder.getF64FloatAttr(arg.floats.front());
  case Kind::Bool:
    return builder.getBoolAttr(arg.bools.front());
  case Kind::String:
    return builder.getStringAttr(arg.strings.front());
  case Kind::Ints: {
    SmallVector<int64_t> ints;
    for (std::optional<int64_t> value : arg.ints) {
      if (!value)
        return {};
      ints.push_back(*value);
    }
    return builder.getDenseI64ArrayAttr(ints);
  }
  case Kind::Floats:
    return builder.getF64ArrayAttr(arg.floats);
  case Kind::Bools:
    return builder.getDenseBoolArrayAttr(
        SmallVector<bool>(arg.bools.begin(), arg.bools.end()));
  case Kind::Strings:
    return builder.getStrArrayAttr(
        SmallVector<StringRef>(arg.strings.begin(), arg.strings.end()));
  default:
    return {};
  }
}

/// The element type torch computes for the operands named in
/// \p promoted: the node's result type, or for ops with a bool result
/// (comparisons), the operands' common type by torch's category rules
/// (bool < integer < floating; a tensor of a category beats a scalar of it).
static Type promotedType(TorchNode &node, ArrayRef<Value> tensors,
                         bool scalarIsFloat) {
  FailureOr<RankedTensorType> result = node.outputType();
  if (succeeded(result) && !result->getElementType().isInteger(1))
    return result->getElementType();
  auto rank = [](Type type) {
    if (isa<FloatType>(type))
      return 2 * 64 + type.getIntOrFloatBitWidth();
    if (type.isInteger(1))
      return 0u;
    return 64 + type.getIntOrFloatBitWidth();
  };
  Type best;
  for (Value value : tensors) {
    Type type = cast<ShapedType>(value.getType()).getElementType();
    if (!best || rank(type) > rank(best))
      best = type;
  }
  if (scalarIsFloat && (!best || !isa<FloatType>(best)))
    return Float32Type::get(node.loc()->getContext());
  return best;
}

LogicalResult TorchImporter::importGeneric(TorchNode &node,
                                           RegisteredOperationName edgeOp) {
  using Kind = TorchArgument::Kind;
  Location loc = node.loc();
  ArrayRef<StringAttr> attributeNames = edgeOp.getAttributeNames();
  auto isAttribute = [&](StringRef name) {
    return llvm::any_of(attributeNames, [&](StringAttr attr) {
      return attr.getValue() == name;
    });
  };
  auto *aten = edgeOp.getInterface<edge::AtenOpInterface>();
  SmallVector<StringRef> promotedNames;
  if (aten)
    aten->getPromotedOperands().split(promotedNames, ',', -1, false);
  auto isPromoted = [&](StringRef name) {
    return llvm::is_contained(promotedNames, name);
  };

  // Operands in schema order; promoted ones (and Python scalars among them)
  // wait until the common type is known.
  struct Operand {
    std::string name;
    SmallVector<Value> values;
    std::optional<double> scalar;
    bool absent = false;
    bool symbolicScalar = false; // values holds the size it computes
  };
  SmallVector<Operand> operands;
  SmallVector<NamedAttribute> attributes;
  SmallVector<Value> promotedTensors;
  bool floatScalar = false;
  for (const auto &[name, arg] : node.args()) {
    if (arg.isTensorLike()) {
      Operand operand{name, {}, std::nullopt, false};
      for (const std::string &tensorName : arg.tensors)
        if (!tensorName.empty())
          operand.values.push_back(tensor(tensorName));
      if (isPromoted(name))
        promotedTensors.append(operand.values.begin(), operand.values.end());
      operands.push_back(std::move(operand));
      continue;
    }
    if (isAttribute(name)) {
      if (arg.kind == Kind::None)
        continue; // the Edge op's default applies
      Attribute attribute = attributeFor(arg, /*asFloat=*/false);
      if (!attribute)
        return node.error() << "argument '" << name
                            << "' has a symbolic or unsupported value ("
                            << arg.unionKey << ")";
      // ATen's int[2] window arguments accept one entry meaning both.
      static const llvm::StringSet<> pairs = {
          "kernel_size", "stride", "padding", "dilation", "output_padding"};
      if (arg.kind == Kind::Ints && arg.ints.size() == 1 &&
          pairs.contains(name))
        attribute = builder.getDenseI64ArrayAttr(
            {*arg.ints.front(), *arg.ints.front()});
      // The same Python value can have several Edge attribute types: an int
      // may be an f64 Scalar (alpha) or a one-entry list (squeeze.dim).
      SmallVector<Attribute> candidates = {attribute};
      if (arg.kind == Kind::Int) {
        candidates.push_back(attributeFor(arg, /*asFloat=*/true));
        candidates.push_back(builder.getDenseI64ArrayAttr({*arg.ints.front()}));
      }
      {
        ScopedDiagnosticHandler quiet(builder.getContext(),
                                      [](Diagnostic &) { return success(); });
        bool accepted = false;
        for (Attribute candidate : candidates) {
          NamedAttrList trial;
          trial.append(name, candidate);
          if (succeeded(edgeOp.verifyInherentAttrs(
                  trial, [&] { return emitError(loc); }))) {
            attribute = candidate;
            accepted = true;
            break;
          }
        }
        if (!accepted)
          attribute = nullptr;
      }
      if (!attribute)
        return node.error() << "argument '" << name << "' (" << arg.unionKey
                            << ") does not fit " << edgeOp.getStringRef()
                            << "'s attribute";
      attributes.push_back(builder.getNamedAttr(name, attribute));
      continue;
    }
    if (arg.kind == Kind::None) {
      operands.push_back({name, {}, std::nullopt, true}); // absent optional
      continue;
    }
    if (isIgnorableArgument(name, arg))
      continue;
    if (arg.isScalar()) {
      // ATen's Scalar overloads (add.Scalar, eq.Scalar, ...): the scalar
      // becomes a rank-0 tensor of the promoted type.
      std::optional<double> scalar = arg.scalarValue();
      if (!scalar && arg.kind == Kind::Int) {
        // A symbolic int (a size known at run time): its 0-d i64 value,
        // typed below like a Python int scalar.
        Value size = node.sizeValue(arg, 0);
        if (!size)
          return failure();
        operands.push_back({name, {size}, std::nullopt, false, true});
        continue;
      }
      if (!scalar)
        return node.error() << "argument '" << name
                            << "' is a symbolic scalar";
      floatScalar |= arg.kind == Kind::Float;
      operands.push_back({name, {}, scalar, false});
      continue;
    }
    return node.error() << "argument '" << name << "' (" << arg.unionKey
                        << ") is not supported by " << edgeOp.getStringRef();
  }

  Type common = promotedType(node, promotedTensors, floatScalar);
  SmallVector<Value> values;
  SmallVector<int32_t> segments;
  for (Operand &operand : operands) {
    if (operand.scalar || operand.symbolicScalar) {
      Type type = common;
      if (!type) // not promoted: the type of the first tensor operand
        for (const Operand &other : operands)
          if (!other.values.empty() && !other.symbolicScalar) {
            type = cast<ShapedType>(other.values.front().getType())
                       .getElementType();
            break;
          }
      if (!type)
        return node.error() << "scalar argument '" << operand.name
                            << "' has no tensor to take its type from";
      if (operand.symbolicScalar) {
        FailureOr<Value> cast = node.castTo(operand.values.front(), type);
        if (failed(cast))
          return failure();
        values.push_back(*cast);
      } else {
        values.push_back(node.scalar(type, *operand.scalar));
      }
      segments.push_back(1);
      continue;
    }
    for (Value &value : operand.values) {
      if (common && isPromoted(operand.name)) {
        FailureOr<Value> cast = node.castTo(value, common);
        if (failed(cast))
          return failure();
        value = *cast;
      }
      values.push_back(value);
    }
    segments.push_back(static_cast<int32_t>(operand.values.size()));
  }
  if (edgeOp.hasTrait<OpTrait::AttrSizedOperandSegments>())
    attributes.push_back(builder.getNamedAttr(
        "operandSegmentSizes", builder.getDenseI32ArrayAttr(segments)));
  return bindOutputs(
      node, edge.create(loc, edgeOp.getStringRef(), values, attributes));
}

LogicalResult TorchImporter::importInPlace(TorchNode &node,
                                           StringRef functional) {
  // op_(self, ...) = op(self, ...), after which `self` names the result.
  const TorchArgument *target = nullptr;
  for (const auto &[name, arg] : node.args())
    if (arg.isTensorLike() && !arg.tensors.empty()) {
      target = &arg;
      break;
    }
  if (!target)
    return node.error() << "in-place op without a tensor to write";
  std::string written = target->tensors.front();
  // A write through a view changes its base and every other view of it.
  // Through slices and selects it is carried back to the base
  // (slice_scatter), so later reads of the base and of the views on the way
  // see it; other views of the base must not be read afterwards.
  auto root = viewOf.find(written);
  std::string base = root == viewOf.end() ? written : root->second;
  std::optional<SmallVector<std::string>> chain;
  if (root != viewOf.end())
    chain = writableChain(written);
  auto readLater = [&](StringRef name) {
    auto last = lastUse.find(name);
    return name != written && last != lastUse.end() &&
           last->second > currentNode;
  };
  auto onChain = [&](StringRef name) {
    return chain && llvm::is_contained(*chain, name);
  };
  std::string stale;
  if (!chain && readLater(base))
    stale = base;
  for (const auto &entry : viewOf)
    if (entry.second == base && !onChain(entry.getKey()) &&
        readLater(entry.getKey()))
      stale = entry.getKey().str();
  if (root != viewOf.end() && !chain && bufferOfInput.count(base))
    return node.error() << "writes in place to '" << written
                        << "', a view of buffer '" << bufferOfInput[base]
                        << "' that etch cannot carry back to the buffer "
                           "(only slices and selects); export with "
                           "run_decompositions() to functionalize it";
  if (!stale.empty())
    return node.error() << "writes in place to '" << written
                        << "', which shares memory with '" << stale
                        << "' read later; value semantics cannot express "
                           "that (export with run_decompositions() to "
                           "functionalize it)";
  auto handler = torchOpHandlers().find(functional);
  LogicalResult imported = failure();
  if (handler != torchOpHandlers().end())
    imported = handler->second(node);
  else if (std::optional<RegisteredOperationName> edgeOp = edgeOpFor(functional))
    imported = importGeneric(node, *edgeOp);
  else
    return importCustom(node);
  if (failed(imported))
    return failure();
  std::vector<std::string> outputs = node.outputNames();
  Value result = outputs.empty() ? Value() : tensor(outputs.front());
  if (!result)
    return node.error() << "in-place op without a tensor result";
  values[written] = result;
  if (chain) {
    if (failed(writeBack(node, *chain, result)))
      return failure();
    // The op's result names the same view of the base as its target.
    if (outputs.front() != written) {
      viewOf[outputs.front()] = base;
      if (auto step = viewSteps.find(written); step != viewSteps.end())
        viewSteps[outputs.front()] = step->second;
    }
    // The write lands in the base, which may be a buffer.
    auto buffer = bufferOfInput.find(base);
    if (buffer != bufferOfInput.end())
      noteBufferWrite(buffer->second, tensor(base));
    return success();
  }
  auto buffer = bufferOfInput.find(written);
  if (buffer != bufferOfInput.end()) {
    noteBufferWrite(buffer->second, result);
    bufferOfInput[outputs.front()] = buffer->second;
  }
  return success();
}

void TorchImporter::noteBufferWrite(StringRef buffer, Value value) {
  auto *it = llvm::find_if(mutatedBuffers, [&](const auto &entry) {
    return entry.first == buffer;
  });
  if (it == mutatedBuffers.end())
    mutatedBuffers.emplace_back(buffer.str(), value);
  else
    it->second = value;
}

LogicalResult TorchImporter::importCustom(TorchNode &node) {
  SmallVector<Value> operands;
  SmallVector<NamedAttribute> attributes;
  for (const auto &[name, arg] : node.args()) {
    if (arg.isTensorLike()) {
      for (const std::string &tensorName : arg.tensors)
        if (!tensorName.empty())
          operands.push_back(tensor(tensorName));
    } else if (Attribute attribute = attributeFor(arg, false)) {
      attributes.push_back(builder.getNamedAttr(name, attribute));
    }
  }
  std::vector<std::string> outputs = node.outputNames();
  SmallVector<Type> resultTypes;
  for (const std::string &output : outputs) {
    if (output.empty())
      return node.error() << "has a non-tensor output; etch has no Edge op "
                             "for this operator";
    FailureOr<RankedTensorType> type = tensorType(output, node.loc());
    if (failed(type))
      return failure();
    resultTypes.push_back(*type);
  }
  Operation *custom = edge.createCustom(node.loc(), node.aten(), operands,
                                        resultTypes, attributes, unmapped);
  for (auto [index, output] : llvm::enumerate(outputs))
    values[output] = custom->getResult(index);
  return success();
}

FailureOr<NamedArguments> TorchImporter::decodeInputs(const Object &node,
                                                      StringRef aten) {
  NamedArguments args;
  const Array *inputs = node.getArray("inputs");
  if (!inputs)
    return args;
  for (const llvm::json::Value &input : *inputs) {
    const Object *named = input.getAsObject();
    const llvm::json::Value *arg = named ? named->get("arg") : nullptr;
    std::optional<StringRef> name =
        named ? named->getString("name") : std::nullopt;
    std::string error;
    std::optional<TorchArgument> decoded =
        arg ? decodeArgument(*arg, symbols, error) : std::nullopt;
    if (!decoded || !name)
      return nodeError(node, aten)
             << "malformed input " << (name ? "'" + name->str() + "'" : "")
             << (error.empty() ? "" : ": " + error);
    for (const std::string &tensorName : decoded->tensors)
      if (!tensorName.empty() && !values.count(tensorName))
        return nodeError(node, aten)
               << "input '" << *name << "' uses '" << tensorName << "', "
               << (unusableOutputs.count(tensorName)
                       ? unusableOutputs[tensorName] +
                             ", which etch does not support"
                       : std::string("which no earlier node defines"));
    args.emplace_back(name->str(), std::move(*decoded));
  }
  return args;
}

/// "torch.ops.aten.add.Tensor" -> "aten::add"; other targets stay as they
/// are ("_operator.getitem", "torch.ops.higher_order.wrap...").
static std::string atenNameOf(StringRef target) {
  StringRef qualified = target;
  if (!qualified.consume_front("torch.ops."))
    return target.str();
  SmallVector<StringRef, 3> parts;
  qualified.split(parts, '.');
  if (parts.size() < 2)
    return target.str();
  return (parts[0] + "::" + parts[1]).str();
}

LogicalResult TorchImporter::importHigherOrder(const Object &node,
                                               StringRef target) {
  // wrap_with_set_grad_enabled(enabled, graph, *operands) and
  // wrap_with_autocast(..., graph, *operands): gradients and autocast mean
  // nothing here, so the subgraph runs inline on the operands.
  std::string aten = atenNameOf(target);
  const Array *inputs = node.getArray("inputs");
  if (!inputs)
    return nodeError(node, aten) << "has no inputs";
  const Object *graph = nullptr;
  SmallVector<Value> operands;
  for (const llvm::json::Value &input : *inputs) {
    const Object *named = input.getAsObject();
    const Object *arg = named ? named->getObject("arg") : nullptr;
    if (!arg)
      return nodeError(node, aten) << "malformed input";
    if (const Object *asGraph = arg->getObject("as_graph")) {
      graph = asGraph->getObject("graph");
      continue;
    }
    if (const Object *asTensor = arg->getObject("as_tensor")) {
      Value value = tensor(asTensor->getString("name").value_or(""));
      if (!value)
        return nodeError(node, aten) << "uses a tensor no earlier node defines";
      operands.push_back(value);
    }
  }
  const Array *graphInputs = graph ? graph->getArray("inputs") : nullptr;
  const Array *graphOutputs = graph ? graph->getArray("outputs") : nullptr;
  if (!graph || !graphInputs || !graphOutputs ||
      graphInputs->size() != operands.size())
    return nodeError(node, aten)
           << "needs a subgraph whose inputs match the tensor operands";
  if (aten != "higher_order::wrap_with_set_grad_enabled" &&
      aten != "higher_order::wrap_with_autocast")
    return nodeError(node, aten)
           << "higher-order op is not supported (etch inlines only "
              "wrap_with_set_grad_enabled and wrap_with_autocast)";
  // The subgraph has its own names and tensor_values.
  llvm::StringMap<Value> outer = values;
  const Object *outerTensorValues = tensorValues;
  for (auto [input, operand] : llvm::zip(*graphInputs, operands)) {
    std::string error;
    std::optional<TorchArgument> arg = decodeArgument(input, symbols, error);
    if (!arg || arg->kind != TorchArgument::Kind::Tensor)
      return nodeError(node, aten) << "subgraph input is not a tensor";
    values[arg->tensors.front()] = operand;
  }
  tensorValues = graph->getObject("tensor_values");
  LogicalResult imported = importGraph(*graph);
  SmallVector<Value> results;
  for (const llvm::json::Value &output : *graphOutputs) {
    std::string error;
    std::optional<TorchArgument> arg = decodeArgument(output, symbols, error);
    results.push_back(arg && arg->kind == TorchArgument::Kind::Tensor
                          ? tensor(arg->tensors.front())
                          : Value());
  }
  tensorValues = outerTensorValues;
  values = std::move(outer);
  if (failed(imported))
    return failure();
  std::vector<std::string> names = outputTensorNames(node);
  if (names.size() != results.size())
    return nodeError(node, aten)
           << "has " << names.size() << " outputs but its subgraph returns "
           << results.size();
  for (auto [name, result] : llvm::zip(names, results)) {
    if (!result)
      return nodeError(node, aten) << "subgraph output is not a tensor";
    if (!name.empty())
      values[name] = result;
  }
  return success();
}

LogicalResult TorchImporter::importNode(const Object &node) {
  std::optional<StringRef> target = node.getString("target");
  if (!target)
    return emitError(nodeLocation(node))
           << "node '" << nodeName(node) << "' has no target";
  if (target->starts_with("torch.ops.higher_order."))
    return importHigherOrder(node, *target);
  std::string aten = atenNameOf(*target);
  // ExecuTorch's Edge programs spell view ops as their *_copy variants; the
  // values are the same, and Edge ops have value semantics anyway.
  static const llvm::StringSet<> viewCopies = {
      "aten::alias_copy",     "aten::detach_copy",
      "aten::expand_copy",    "aten::permute_copy",
      "aten::select_copy",    "aten::slice_copy",
      "aten::split_copy",     "aten::split_with_sizes_copy",
      "aten::squeeze_copy",   "aten::t_copy",
      "aten::transpose_copy", "aten::unbind_copy",
      "aten::unsqueeze_copy", "aten::view_copy"};
  if (viewCopies.contains(aten))
    aten.resize(aten.size() - StringRef("_copy").size());
  edge.setErrorContext(nodeErrorPrefix(node, aten));
  FailureOr<NamedArguments> args = decodeInputs(node, aten);
  if (failed(args))
    return failure();
  TorchNode torchNode(*this, node, aten, std::move(*args));

  const TorchOpHandlers &handlers = torchOpHandlers();
  if (auto handler = handlers.find(aten); handler != handlers.end())
    return handler->second(torchNode);
  if (std::optional<RegisteredOperationName> edgeOp = edgeOpFor(aten))
    return importGeneric(torchNode, *edgeOp);
  // In-place variants ("aten::relu_"): the functional op, then renaming.
  StringRef name = aten;
  if (name.ends_with("_") && !name.ends_with("__")) {
    std::string functional = name.drop_back().str();
    if (handlers.count(functional) || edgeOpFor(functional))
      return importInPlace(torchNode, functional);
  }
  return importCustom(torchNode);
}

LogicalResult TorchImporter::importGraph(const Object &graph) {
  Location fileLoc = FileLineColLoc::get(builder.getContext(), path, 0, 0);
  const Array *nodes = graph.getArray("nodes");
  if (!nodes)
    return emitError(fileLoc) << "the graph has no nodes list";
  // Where each name is last read (for in-place writes through views).
  llvm::StringMap<size_t> outerLastUse = std::move(lastUse);
  size_t outerNode = currentNode;
  lastUse.clear();
  auto noteReads = [&](const llvm::json::Value &argument, size_t index) {
    std::string error;
    if (std::optional<TorchArgument> arg =
            decodeArgument(argument, symbols, error))
      for (const std::string &name : arg->tensors)
        if (!name.empty())
          lastUse[name] = index;
  };
  for (auto [index, nodeValue] : llvm::enumerate(*nodes))
    if (const Object *node = nodeValue.getAsObject())
      if (const Array *inputs = node->getArray("inputs"))
        for (const llvm::json::Value &input : *inputs)
          if (const Object *named = input.getAsObject())
            if (const llvm::json::Value *arg = named->get("arg"))
              noteReads(*arg, index);
  if (const Array *outputs = graph.getArray("outputs"))
    for (const llvm::json::Value &output : *outputs)
      noteReads(output, nodes->size());
  LogicalResult result = success();
  for (auto [index, nodeValue] : llvm::enumerate(*nodes)) {
    currentNode = index;
    const Object *node = nodeValue.getAsObject();
    if (!node) {
      result = emitError(fileLoc) << "malformed node";
      break;
    }
    if (failed(importNode(*node))) {
      result = failure();
      break;
    }
  }
  lastUse = std::move(outerLastUse);
  currentNode = outerNode;
  return result;
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
    if (!value)
      return emitError(fileLoc)
             << "output '" << name << "' is not produced by any node";
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

/// Python's json module writes non-finite floats as bare NaN, Infinity and
/// -Infinity, which JSON does not allow (torch <= 2.7 does so): they become
/// strings, which argument decoding reads back as numbers.
static std::string quoteNonFiniteNumbers(StringRef text) {
  std::string result;
  result.reserve(text.size());
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      result += c;
      if (c == '\\' && i + 1 < text.size())
        result += text[++i];
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      result += c;
      continue;
    }
    bool matched = false;
    for (StringRef token : {"-Infinity", "Infinity", "NaN"})
      if (text.substr(i).starts_with(token)) {
        result += '"' + token.str() + '"';
        i += token.size() - 1;
        matched = true;
        break;
      }
    if (!matched)
      result += c;
  }
  return result;
}

LogicalResult TorchImporter::run() {
  MLIRContext *context = builder.getContext();
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(quoteNonFiniteNumbers(contents.programJson));
  if (!json)
    return emitError(fileLoc) << "the model JSON is invalid ("
                              << llvm::toString(json.takeError()) << ")";
  const Object *program = json->getAsObject();
  const Object *version =
      program ? program->getObject("schema_version") : nullptr;
  std::optional<int64_t> major =
      version ? version->getInteger("major") : std::nullopt;
  if (!major)
    return emitError(fileLoc) << "the model JSON has no schema_version";
  if (*major != 8)
    return emitError(fileLoc)
           << "torch.export schema version " << *major << "."
           << version->getInteger("minor").value_or(0)
           << " is not supported (etch reads major version 8)";
  const Object *graphModule = program->getObject("graph_module");
  const Object *graph = graphModule ? graphModule->getObject("graph") : nullptr;
  const Object *signature =
      graphModule ? graphModule->getObject("signature") : nullptr;
  if (!graph || !signature)
    return emitError(fileLoc) << "graph_module.graph or "
                                 "graph_module.signature is missing";
  tensorValues = graph->getObject("tensor_values");
  // Each symbol's range: dynamic dimensions are bounded (unbounded ones get
  // no entry, and any size using them is refused with a message).
  if (const Object *ranges = program->getObject("range_constraints"))
    for (const auto &[name, value] : *ranges) {
      const Object *range = value.getAsObject();
      std::optional<int64_t> low =
          range ? range->getInteger("min_val") : std::nullopt;
      std::optional<int64_t> high =
          range ? range->getInteger("max_val") : std::nullopt;
      if (low && high && *low >= 0 && *low <= *high)
        symbolRanges[name] = {*low, *high};
    }
  for (const char *kind : {"sym_int_values"})
    if (const Object *syms = graph->getObject(kind))
      for (const auto &[name, value] : *syms) {
        const Object *sym = value.getAsObject();
        symbols[name] = sym ? sym->getInteger("as_int") : std::nullopt;
      }

  // User inputs first: they are the function's arguments.
  SmallVector<Type> argumentTypes;
  SmallVector<std::string> argumentNames;
  if (const Array *specs = signature->getArray("input_specs")) {
    for (const llvm::json::Value &specValue : *specs) {
      const Object *spec = specValue.getAsObject();
      const Object *user = spec ? spec->getObject("user_input") : nullptr;
      const Object *arg = user ? user->getObject("arg") : nullptr;
      const Object *tensorArg = arg ? arg->getObject("as_tensor") : nullptr;
      std::optional<StringRef> name =
          tensorArg ? tensorArg->getString("name") : std::nullopt;
      if (!name)
        continue;
      FailureOr<RankedTensorType> type = tensorType(*name, fileLoc);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
      argumentNames.push_back(name->str());
    }
  }
  builder.setInsertionPointToEnd(module.getBody());
  auto func = builder.create<func::FuncOp>(
      fileLoc, "forward", builder.getFunctionType(argumentTypes, {}));
  for (auto [index, name] : llvm::enumerate(argumentNames)) {
    func.setArgAttr(index, "etch.name", builder.getStringAttr(name));
    // Dynamic inputs carry their bounds: the runtime accepts any shape in
    // them, and memory is planned for the upper ones.
    if (cast<RankedTensorType>(argumentTypes[index]).hasStaticShape())
      continue;
    SmallVector<int64_t> min, max;
    if (failed(sizeBounds(name, fileLoc, min, max)))
      return failure();
    func.setArgAttr(index, "etch.min_sizes", builder.getDenseI64ArrayAttr(min));
    func.setArgAttr(index, "etch.max_sizes", builder.getDenseI64ArrayAttr(max));
  }
  builder.setInsertionPointToEnd(func.addEntryBlock());

  if (failed(importSignature(*graph, *signature)) ||
      failed(importGraph(*graph)) ||
      failed(importOutputs(*graph, *signature)) || failed(importMetadata()))
    return failure();
  unmapped.report(fileLoc);
  return success();
}

LogicalResult TorchImporter::importMetadata() {
  if (!contents.metadataJson)
    return success();
  Location loc = FileLineColLoc::get(builder.getContext(),
                                     path + ":" + kMetadataFile, 0, 0);
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(*contents.metadataJson);
  if (!json)
    return emitError(loc) << "is not JSON ("
                          << llvm::toString(json.takeError()) << ")";
  const Object *entries = json->getAsObject();
  if (!entries)
    return emitError(loc) << "must hold one JSON object of metadata entries";
  // Values are strings in the program; numbers are written as their text.
  SmallVector<NamedAttribute> metadata;
  for (const auto &[key, value] : *entries) {
    std::string text;
    if (std::optional<StringRef> string = value.getAsString())
      text = string->str();
    else if (std::optional<int64_t> integer = value.getAsInteger())
      text = std::to_string(*integer);
    else if (std::optional<double> number = value.getAsNumber())
      text = llvm::formatv("{0}", *number).str();
    else
      return emitError(loc) << "entry '" << key.str()
                            << "' must be a string or a number";
    metadata.push_back(
        builder.getNamedAttr(key.str(), builder.getStringAttr(text)));
  }
  module->setAttr("etch.metadata", builder.getDictionaryAttr(metadata));
  return success();
}

} // namespace etch::torch_import

namespace etch {

static OwningOpRef<ModuleOp>
importPt2Contents(StringRef path,
                  std::optional<torch_import::Pt2Contents> contents,
                  const std::string &error, MLIRContext *context) {
  context->loadDialect<edge::EdgeDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  if (!contents) {
    emitError(fileLoc) << error;
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  torch_import::TorchImporter importer(*module, *contents, path);
  if (failed(importer.run()) || failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> importTorchExport(StringRef path, MLIRContext *context) {
  std::string error;
  std::optional<torch_import::Pt2Contents> contents =
      torch_import::readPt2(path.str(), error);
  return importPt2Contents(path, std::move(contents), error, context);
}

OwningOpRef<ModuleOp> importTorchExportFromBytes(StringRef name,
                                                 std::string bytes,
                                                 MLIRContext *context) {
  std::string error;
  std::optional<torch_import::Pt2Contents> contents =
      torch_import::readPt2FromBytes(std::move(bytes), error);
  return importPt2Contents(name, std::move(contents), error, context);
}

} // namespace etch
