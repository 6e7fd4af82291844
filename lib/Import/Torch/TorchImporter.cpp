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
#include "../ImportEntry.h"

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

std::string TorchImporter::nodeErrorPrefix(const Object &node, StringRef aten) {
  // Located at the user's source line: also name the archive.
  auto file =
      dyn_cast<FileLineColLoc>(cast<NameLoc>(nodeLocation(node)).getChildLoc());
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
             << (text ? *text : StringRef("?"))
             << "): " << (error.empty() ? "not a symbolic expression" : error)
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

/// Whether \p aten names an in-place variant ("aten::relu_", not
/// "aten::__and__").
static bool isInPlaceName(StringRef aten) {
  return aten.ends_with("_") && !aten.ends_with("__");
}

/// The name handlers and Edge ops know \p target by.
static std::string canonicalAtenName(StringRef target) {
  std::string aten = atenNameOf(target);
  // ExecuTorch's Edge programs spell view ops as their *_copy variants; the
  // values are the same, and Edge ops have value semantics anyway.
  static const llvm::StringSet<> viewCopies = {
      "aten::alias_copy",     "aten::detach_copy",
      "aten::expand_copy",    "aten::permute_copy",
      "aten::select_copy",    "aten::slice_copy",
      "aten::split_copy",     "aten::split_with_sizes_copy",
      "aten::squeeze_copy",   "aten::t_copy",
      "aten::transpose_copy", "aten::unbind_copy",
      "aten::unsqueeze_copy", "aten::view_copy",
      "aten::diagonal_copy",  "aten::unfold_copy"};
  if (viewCopies.contains(aten))
    aten.resize(aten.size() - StringRef("_copy").size());
  // ATen's aliases (same schema, another name) that the training IR keeps;
  // in-place forms keep their trailing underscore.
  static const llvm::StringMap<StringRef> aliases = {
      {"aten::multiply", "aten::mul"},
      {"aten::divide", "aten::div"},
      {"aten::true_divide", "aten::div"},
      {"aten::subtract", "aten::sub"},
      {"aten::greater", "aten::gt"},
      {"aten::greater_equal", "aten::ge"},
      {"aten::less", "aten::lt"},
      {"aten::less_equal", "aten::le"},
      {"aten::not_equal", "aten::ne"},
      {"aten::absolute", "aten::abs"},
      {"aten::negative", "aten::neg"},
      {"aten::arccos", "aten::acos"},
      {"aten::arcsin", "aten::asin"},
      {"aten::arctan", "aten::atan"},
      {"aten::arccosh", "aten::acosh"},
      {"aten::arcsinh", "aten::asinh"},
      {"aten::arctanh", "aten::atanh"},
      {"aten::clip", "aten::clamp"},
      {"aten::broadcast_to", "aten::expand"},
      {"aten::unsafe_split", "aten::split"},
      {"aten::unsafe_split_with_sizes", "aten::split_with_sizes"},
      {"aten::unsafe_chunk", "aten::chunk"},
      {"aten::fix", "aten::trunc"},
      {"aten::special_expit", "aten::sigmoid"},
      {"aten::special_erf", "aten::erf"},
      {"aten::special_expm1", "aten::expm1"},
      {"aten::special_log1p", "aten::log1p"}};
  bool inPlace = isInPlaceName(aten);
  if (auto alias = aliases.find(inPlace ? StringRef(aten).drop_back() : aten);
      alias != aliases.end())
    aten = (alias->second + (inPlace ? "_" : "")).str();
  return aten;
}

LogicalResult TorchImporter::importNode(const Object &node) {
  std::optional<StringRef> target = node.getString("target");
  if (!target)
    return emitError(nodeLocation(node))
           << "node '" << nodeName(node) << "' has no target";
  if (target->starts_with("torch.ops.higher_order."))
    return importHigherOrder(node, *target);
  std::string aten = canonicalAtenName(*target);
  // Runtime checks torch.export writes on symbolic sizes (u0 <= 24, ...):
  // the memory plan bounds every size, so nothing is left to check. Their
  // operands can be symbols etch never evaluates: they are not decoded.
  static const llvm::StringSet<> runtimeChecks = {
      "aten::_assert_tensor_metadata",
      "aten::_assert_scalar",
      "aten::_assert_async",
      "aten::sym_constrain_range",
      "aten::sym_constrain_range_for_size",
      "aten::_functional_assert_async"};
  if (runtimeChecks.contains(aten))
    return success();
  // torch.vmap as the training IR keeps it: functorch's batching levels
  // around per-sample code (transformers' mask functions). Decomposing
  // applies the vmap.
  if (StringRef(aten).starts_with("torch._functorch.predispatch."))
    return nodeError(node, aten)
           << "torch.vmap in the training IR is not supported; export with "
              "ep.run_decompositions(), which applies it";
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
  if (isInPlaceName(aten)) {
    std::string functional = StringRef(aten).drop_back().str();
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
  eraseUnreadCustoms(module, unmapped);
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
    return emitError(loc) << "is not JSON (" << llvm::toString(json.takeError())
                          << ")";
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
      return emitError(loc)
             << "entry '" << key.str() << "' must be a string or a number";
    metadata.push_back(
        builder.getNamedAttr(key.str(), builder.getStringAttr(text)));
  }
  module->setAttr("etch.metadata", builder.getDictionaryAttr(metadata));
  return success();
}

} // namespace etch::torch_import

namespace etch {

OwningOpRef<ModuleOp> importTorchExport(StringRef path, MLIRContext *context) {
  std::string error;
  std::optional<torch_import::Pt2Contents> contents =
      torch_import::readPt2(path.str(), error);
  return importWith<torch_import::TorchImporter>(path, std::move(contents),
                                                 error, context);
}

OwningOpRef<ModuleOp> importTorchExportFromBytes(StringRef name,
                                                 std::string bytes,
                                                 MLIRContext *context) {
  std::string error;
  std::optional<torch_import::Pt2Contents> contents =
      torch_import::readPt2FromBytes(std::move(bytes), error);
  return importWith<torch_import::TorchImporter>(name, std::move(contents),
                                                 error, context);
}

} // namespace etch
