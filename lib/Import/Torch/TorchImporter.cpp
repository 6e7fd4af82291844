//===- TorchImporter.cpp - torch.export program -> Edge dialect -----------===//
//
// Nodes map to Edge ops by ATen name through AtenOpInterface: node inputs
// named like the Edge op's attributes become attributes, tensors become
// operands in schema order, and Python scalars in operand position become
// rank-0 constants (ATen's Scalar overloads). A few ATen forms with no Edge
// op of their own (t, clone, _to_copy, sym_size, flatten, ...) are handled
// in importSpecial; anything else becomes edge.custom.
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Import/Import.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
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
      name == "pin_memory" || name == "non_blocking")
    return true;
  if (name == "training" || name == "train")
    return arg.kind == Kind::Bool && !arg.bools.front();
  if (name == "dtype")
    return arg.kind == Kind::None;
  return false;
}

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
  std::vector<std::string> outputs =
      const_cast<TorchImporter *>(this)->outputTensorNames(node);
  return outputs.empty() ? "<unnamed>" : outputs.front();
}

/// The node's name, located at the user's source line from `stack_trace`
/// (the innermost `File "...", line N` entry) when the export recorded it.
Location TorchImporter::nodeLocation(const Object &node) {
  MLIRContext *context = builder.getContext();
  Location where = FileLineColLoc::get(context, path, 0, 0);
  if (const Object *metadata = node.getObject("metadata")) {
    if (auto trace = metadata->getString("stack_trace")) {
      llvm::Regex frame("File \"([^\"]+)\", line ([0-9]+)");
      StringRef rest = *trace;
      SmallVector<StringRef, 3> groups;
      while (frame.match(rest, &groups)) {
        unsigned line = 0;
        groups[2].getAsInteger(10, line);
        where = FileLineColLoc::get(context, groups[1], line, 0);
        rest = rest.drop_front(groups[0].end() - rest.begin());
      }
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

Value TorchImporter::tensor(StringRef name) { return values.lookup(name); }

FailureOr<Value> TorchImporter::constantFromTensorData(StringRef valueName,
                                                       StringRef fqn,
                                                       TensorData &data,
                                                       Location loc) {
  FailureOr<RankedTensorType> type = tensorType(valueName, loc);
  if (failed(type))
    return failure();
  // Sizes first: the element count of a dynamic or mismatched shape means
  // nothing (and the stored sizes were checked when the weight was read).
  if (!type->hasStaticShape() ||
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
    if (kind == "buffer")
      constant->getDefiningOp()->setAttr("etch.buffer",
                                         builder.getStringAttr(*fqn));
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
  }
  return names;
}

LogicalResult TorchImporter::bindOutputs(const Object &node, StringRef aten,
                                         FailureOr<Value> value) {
  if (failed(value))
    return failure(); // the builder reported why, naming the node
  std::vector<std::string> names = outputTensorNames(node);
  if (names.empty())
    return nodeError(node, aten) << "has no tensor output";
  FailureOr<RankedTensorType> declared =
      tensorType(names.front(), nodeLocation(node));
  if (failed(declared))
    return failure();
  Type inferred = value->getType();
  if (!edge::areCompatibleTensorTypes(inferred, *declared))
    return nodeError(node, aten) << "Edge infers " << inferred
                                 << " but the program records " << *declared;
  // The program may know extents inference cannot (symbolic shapes).
  if (Operation *op = value->getDefiningOp())
    if (op->getNumResults() == 1 && !isa<edge::ConstantOp>(op))
      value->setType(*declared);
  values[names.front()] = *value;
  for (size_t i = 1; i < names.size(); ++i)
    if (!names[i].empty())
      unusableOutputs[names[i]] = "output #" + std::to_string(i) +
                                  " of node '" + nodeName(node) + "' (" +
                                  aten.str() + ")";
  return success();
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

LogicalResult TorchImporter::importGeneric(const Object &node, StringRef aten,
                                           RegisteredOperationName edgeOp,
                                           const NamedArguments &args) {
  using Kind = TorchArgument::Kind;
  Location loc = nodeLocation(node);
  ArrayRef<StringAttr> attributeNames = edgeOp.getAttributeNames();
  auto isAttribute = [&](StringRef name) {
    return llvm::any_of(attributeNames, [&](StringAttr attr) {
      return attr.getValue() == name;
    });
  };
  SmallVector<Value> operands;
  SmallVector<int32_t> segments;
  SmallVector<NamedAttribute> attributes;
  Type firstElementType;
  for (const auto &[name, arg] : args) {
    if (arg.isTensorLike()) {
      int32_t count = 0;
      for (const std::string &tensorName : arg.tensors) {
        if (tensorName.empty())
          continue;
        if (unusableOutputs.count(tensorName))
          return nodeError(node, aten) << "uses " << unusableOutputs[tensorName]
                                       << ", which etch does not support";
        Value value = tensor(tensorName);
        if (!value)
          return nodeError(node, aten)
                 << "argument '" << name << "' uses '" << tensorName
                 << "', which no earlier node defines";
        if (!firstElementType)
          firstElementType = cast<ShapedType>(value.getType()).getElementType();
        operands.push_back(value);
        ++count;
      }
      segments.push_back(count);
      continue;
    }
    if (isAttribute(name)) {
      if (arg.kind == Kind::None)
        continue; // the Edge op's default applies
      Attribute attribute = attributeFor(arg, /*asFloat=*/false);
      if (!attribute)
        return nodeError(node, aten)
               << "argument '" << name
               << "' has a symbolic or unsupported value (" << arg.unionKey
               << ")";
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
        return nodeError(node, aten)
               << "argument '" << name << "' (" << arg.unionKey
               << ") does not fit " << edgeOp.getStringRef() << "'s attribute";
      attributes.push_back(builder.getNamedAttr(name, attribute));
      continue;
    }
    if (arg.kind == Kind::None) {
      segments.push_back(0); // an absent optional tensor
      continue;
    }
    if (isIgnorableArgument(name, arg))
      continue;
    if (arg.isScalar() && firstElementType) {
      // ATen's Scalar overloads (add.Scalar, mul.Scalar, ...): the scalar
      // becomes a rank-0 tensor of the tensor operand's element type.
      std::optional<double> scalar = arg.scalarValue();
      if (!scalar)
        return nodeError(node, aten)
               << "argument '" << name << "' is a symbolic scalar";
      operands.push_back(edge.scalarConstant(loc, firstElementType, *scalar));
      segments.push_back(1);
      continue;
    }
    return nodeError(node, aten)
           << "argument '" << name << "' (" << arg.unionKey
           << ") is not supported by " << edgeOp.getStringRef();
  }
  if (edgeOp.hasTrait<OpTrait::AttrSizedOperandSegments>())
    attributes.push_back(builder.getNamedAttr(
        "operandSegmentSizes", builder.getDenseI32ArrayAttr(segments)));
  return bindOutputs(
      node, aten,
      edge.create(loc, edgeOp.getStringRef(), operands, attributes));
}

LogicalResult TorchImporter::importCustom(const Object &node, StringRef aten,
                                          const NamedArguments &args) {
  Location loc = nodeLocation(node);
  SmallVector<Value> operands;
  SmallVector<NamedAttribute> attributes;
  for (const auto &[name, arg] : args) {
    if (arg.isTensorLike()) {
      for (const std::string &tensorName : arg.tensors) {
        if (tensorName.empty())
          continue;
        Value value = tensor(tensorName);
        if (!value)
          return nodeError(node, aten)
                 << "argument '" << name << "' uses '" << tensorName
                 << "', which no earlier node defines";
        operands.push_back(value);
      }
    } else if (Attribute attribute = attributeFor(arg, false)) {
      attributes.push_back(builder.getNamedAttr(name, attribute));
    }
  }
  std::vector<std::string> outputs = outputTensorNames(node);
  SmallVector<Type> resultTypes;
  for (const std::string &output : outputs) {
    FailureOr<RankedTensorType> type = tensorType(output, loc);
    if (failed(type))
      return failure();
    resultTypes.push_back(*type);
  }
  Operation *custom =
      edge.createCustom(loc, aten, operands, resultTypes, attributes, unmapped);
  for (auto [index, output] : llvm::enumerate(outputs))
    values[output] = custom->getResult(index);
  return success();
}

LogicalResult TorchImporter::importSpecial(const Object &node, StringRef aten,
                                           const NamedArguments &args,
                                           bool &handled) {
  using Kind = TorchArgument::Kind;
  handled = true;
  Location loc = nodeLocation(node);
  auto argument = [&](StringRef name) -> const TorchArgument * {
    for (const auto &[key, arg] : args)
      if (key == name)
        return &arg;
    return nullptr;
  };
  auto self = [&]() -> Value {
    const TorchArgument *arg = argument("self");
    if (!arg || !arg->isTensorLike() || arg->tensors.empty())
      arg = args.empty() ? nullptr : &args.front().second;
    return arg && arg->isTensorLike() && !arg->tensors.empty()
               ? tensor(arg->tensors.front())
               : Value();
  };
  // Value-preserving ops: the result is the input.
  if (aten == "aten::clone" || aten == "aten::alias" ||
      aten == "aten::detach" || aten == "aten::contiguous" ||
      aten == "aten::lift_fresh_copy" || aten == "aten::dropout" ||
      aten == "aten::_assert_tensor_metadata") {
    if (aten == "aten::dropout")
      if (const TorchArgument *train = argument("train"))
        if (train->kind == Kind::Bool && train->bools.front())
          return nodeError(node, aten) << "dropout in training mode";
    if (aten == "aten::_assert_tensor_metadata")
      return success();
    Value input = self();
    if (!input)
      return nodeError(node, aten) << "needs a defined tensor input";
    return bindOutputs(node, aten, input);
  }
  if (aten == "aten::_to_copy" || aten == "aten::to") {
    Value input = self();
    if (!input)
      return nodeError(node, aten) << "needs a defined tensor input";
    std::vector<std::string> outputs = outputTensorNames(node);
    FailureOr<RankedTensorType> target =
        outputs.empty() ? FailureOr<RankedTensorType>(failure())
                        : tensorType(outputs.front(), loc);
    if (failed(target))
      return failure();
    if (target->getElementType() ==
        cast<ShapedType>(input.getType()).getElementType())
      return bindOutputs(node, aten, input);
    return bindOutputs(
        node, aten,
        edge.create<edge::ToCopyOp>(
            loc, input,
            {builder.getNamedAttr("dtype",
                                  TypeAttr::get(target->getElementType()))}));
  }
  if (aten == "aten::rsub") {
    // rsub(self, other, alpha) = other - alpha * self.
    Value input = self();
    const TorchArgument *other = argument("other");
    if (!input || !other)
      return nodeError(node, aten) << "needs tensor 'self' and 'other'";
    // Bool Scalars are not accepted for rsub's operands.
    auto number = [](const TorchArgument &arg) {
      return arg.kind == Kind::Bool ? std::nullopt : arg.scalarValue();
    };
    Value minuend;
    if (other->isTensorLike() && !other->tensors.empty())
      minuend = tensor(other->tensors.front());
    else if (std::optional<double> value = number(*other))
      minuend = edge.scalarConstant(
          loc, cast<ShapedType>(input.getType()).getElementType(), *value);
    if (!minuend)
      return nodeError(node, aten)
             << "'other' must be a tensor or a constant scalar, got "
             << other->unionKey;
    SmallVector<NamedAttribute> attributes;
    if (const TorchArgument *alpha = argument("alpha");
        alpha && alpha->kind != Kind::None) {
      std::optional<double> value = number(*alpha);
      if (!value)
        return nodeError(node, aten) << "'alpha' must be a constant scalar";
      attributes.push_back(
          builder.getNamedAttr("alpha", builder.getF64FloatAttr(*value)));
    }
    return bindOutputs(
        node, aten,
        edge.create<edge::SubOp>(loc, {minuend, input}, attributes));
  }
  if (aten == "aten::t") {
    Value input = self();
    if (!input)
      return nodeError(node, aten) << "needs a defined tensor input";
    if (cast<ShapedType>(input.getType()).getRank() < 2)
      return bindOutputs(node, aten, input);
    return bindOutputs(
        node, aten,
        edge.create<edge::TransposeOp>(
            loc, input,
            {builder.getNamedAttr("dim0", builder.getI64IntegerAttr(0)),
             builder.getNamedAttr("dim1", builder.getI64IntegerAttr(1))}));
  }
  if (aten == "aten::flatten") {
    Value input = self();
    if (!input)
      return nodeError(node, aten) << "needs a defined tensor input";
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = std::max<int64_t>(type.getRank(), 1);
    auto dimArg = [&](StringRef name, int64_t fallback) {
      const TorchArgument *arg = argument(name);
      int64_t dim = arg && arg->kind == Kind::Int && arg->ints.front()
                        ? *arg->ints.front()
                        : fallback;
      return dim < 0 ? dim + rank : dim;
    };
    int64_t start = dimArg("start_dim", 0), end = dimArg("end_dim", -1);
    SmallVector<int64_t> shape;
    int64_t merged = 1;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (d < start || d > end) {
        shape.push_back(type.isDynamicDim(d) ? -1 : type.getDimSize(d));
        continue;
      }
      merged =
          type.isDynamicDim(d) || merged < 0 ? -1 : merged * type.getDimSize(d);
      if (d == end)
        shape.push_back(merged);
    }
    if (type.getRank() == 0)
      shape.push_back(1);
    return bindOutputs(node, aten,
                       edge.create<edge::ViewOp>(
                           loc, input,
                           {builder.getNamedAttr(
                               "size", builder.getDenseI64ArrayAttr(shape))}));
  }
  if (aten == "aten::split_with_sizes" || aten == "aten::split" ||
      aten == "aten::chunk" || aten == "aten::unbind") {
    // Multi-output splits become one slice (or select, for unbind) per
    // output; the ops stay single-result.
    Value input = self();
    std::vector<std::string> outputs = outputTensorNames(node);
    if (!input || outputs.empty())
      return nodeError(node, aten)
             << "needs a defined tensor input and outputs";
    auto type = cast<RankedTensorType>(input.getType());
    const TorchArgument *dimArg = argument("dim");
    int64_t dim = dimArg && !dimArg->ints.empty() && dimArg->ints.front()
                      ? *dimArg->ints.front()
                      : 0;
    if (dim < 0)
      dim += type.getRank();
    if (dim < 0 || dim >= type.getRank() || type.isDynamicDim(dim))
      return nodeError(node, aten)
             << "needs a static dim to split, got " << type;
    int64_t start = 0;
    for (auto [index, output] : llvm::enumerate(outputs)) {
      FailureOr<RankedTensorType> outType = tensorType(output, loc);
      if (failed(outType))
        return failure();
      FailureOr<Value> piece;
      if (aten == "aten::unbind") {
        piece = edge.create<edge::SelectOp>(
            loc, input,
            {builder.getNamedAttr("dim", builder.getI64IntegerAttr(dim)),
             builder.getNamedAttr("index", builder.getI64IntegerAttr(index))});
      } else {
        if (outType->getRank() != type.getRank() || outType->isDynamicDim(dim))
          return nodeError(node, aten)
                 << "output #" << index << " is " << *outType
                 << ", not a static piece of " << type << " along dim " << dim;
        int64_t length = outType->getDimSize(dim);
        piece = edge.create<edge::SliceOp>(
            loc, input,
            {builder.getNamedAttr("dim", builder.getI64IntegerAttr(dim)),
             builder.getNamedAttr("start", builder.getI64IntegerAttr(start)),
             builder.getNamedAttr("end",
                                  builder.getI64IntegerAttr(start + length))});
        start += length;
      }
      if (failed(piece))
        return failure(); // the builder reported why, naming the node
      if (!edge::areCompatibleTensorTypes(piece->getType(), *outType))
        return nodeError(node, aten)
               << "output #" << index << " is " << *outType
               << " but the split gives " << piece->getType();
      values[output] = *piece;
    }
    return success();
  }
  if (aten == "aten::upsample_nearest2d" ||
      aten == "aten::upsample_bilinear2d") {
    // The .vec forms give scale_factors instead of output_size: the output
    // size is the node's recorded output shape, the factors become scales.
    Value input = self();
    std::vector<std::string> outputs = outputTensorNames(node);
    if (!input || outputs.empty())
      return nodeError(node, aten) << "needs a defined tensor input and output";
    FailureOr<RankedTensorType> outType = tensorType(outputs.front(), loc);
    if (failed(outType))
      return failure();
    if (outType->getRank() != 4 || outType->isDynamicDim(2) ||
        outType->isDynamicDim(3))
      return nodeError(node, aten)
             << "needs a static NCHW output, got " << *outType;
    SmallVector<NamedAttribute> attributes = {builder.getNamedAttr(
        "output_size", builder.getDenseI64ArrayAttr(
                           {outType->getDimSize(2), outType->getDimSize(3)}))};
    const TorchArgument *factors = argument("scale_factors");
    if (factors && factors->kind == Kind::Floats &&
        factors->floats.size() == 2) {
      attributes.push_back(builder.getNamedAttr(
          "scales_h", builder.getF64FloatAttr(factors->floats[0])));
      attributes.push_back(builder.getNamedAttr(
          "scales_w", builder.getF64FloatAttr(factors->floats[1])));
    }
    for (const char *name : {"scales_h", "scales_w"})
      if (const TorchArgument *scale = argument(name))
        if (scale->kind == Kind::Float)
          attributes.push_back(builder.getNamedAttr(
              name, builder.getF64FloatAttr(scale->floats.front())));
    if (aten == "aten::upsample_nearest2d")
      return bindOutputs(
          node, aten,
          edge.create<edge::UpsampleNearest2dOp>(loc, input, attributes));
    const TorchArgument *align = argument("align_corners");
    attributes.push_back(builder.getNamedAttr(
        "align_corners",
        builder.getBoolAttr(align && align->kind == Kind::Bool &&
                            align->bools.front())));
    return bindOutputs(
        node, aten,
        edge.create<edge::UpsampleBilinear2dOp>(loc, input, attributes));
  }
  if (aten == "aten::sym_size") {
    Value input = self();
    const TorchArgument *dim = argument("dim");
    const Array *outputs = node.getArray("outputs");
    const Object *out =
        outputs && !outputs->empty() ? (*outputs)[0].getAsObject() : nullptr;
    const Object *sym = out ? out->getObject("as_sym_int") : nullptr;
    std::optional<StringRef> name =
        sym ? sym->getString("as_name") : std::nullopt;
    if (!input || !dim || !dim->ints.front() || !name)
      return nodeError(node, aten) << "malformed sym_size node";
    auto type = cast<RankedTensorType>(input.getType());
    int64_t d = *dim->ints.front();
    if (d < 0)
      d += type.getRank();
    if (d < 0 || d >= type.getRank())
      return nodeError(node, aten)
             << "dim " << *dim->ints.front() << " is out of range for " << type;
    symbols[*name] = type.isDynamicDim(d)
                         ? std::nullopt
                         : std::optional<int64_t>(type.getDimSize(d));
    return success();
  }
  if (aten == "aten::view" || aten == "aten::reshape" ||
      aten == "aten::_unsafe_view") {
    // Symbolic sizes: one unknown extent can be inferred (-1).
    const TorchArgument *size = argument("size");
    if (size && llvm::count(size->ints, std::nullopt) == 1) {
      TorchArgument resolved = *size;
      for (std::optional<int64_t> &extent : resolved.ints)
        if (!extent)
          extent = -1;
      NamedArguments rewritten = args;
      for (auto &[name, arg] : rewritten)
        if (name == "size")
          arg = resolved;
      if (std::optional<RegisteredOperationName> edgeOp = edgeOpFor(aten))
        return importGeneric(node, aten, *edgeOp, rewritten);
    }
  }
  handled = false;
  return success();
}

LogicalResult TorchImporter::importNode(const Object &node) {
  std::optional<StringRef> target = node.getString("target");
  if (!target)
    return emitError(nodeLocation(node))
           << "node '" << nodeName(node) << "' has no target";
  // "torch.ops.aten.add.Tensor" -> "aten::add"; "_operator.getitem" stays.
  StringRef qualified = *target;
  std::string aten = qualified.str();
  if (qualified.consume_front("torch.ops.")) {
    SmallVector<StringRef, 3> parts;
    qualified.split(parts, '.');
    if (parts.size() >= 2)
      aten = (parts[0] + "::" + parts[1]).str();
  }
  // ExecuTorch's Edge programs spell view ops as their *_copy variants; the
  // values are the same, and Edge ops are value semantics anyway.
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
  NamedArguments args;
  if (const Array *inputs = node.getArray("inputs")) {
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
  }

  if (aten == "_operator.getitem" || aten == "operator.getitem") {
    // getitem(tuple_of_tensors, index): alias of the chosen element.
    if (args.size() == 2 && args[0].second.isTensorLike() &&
        args[1].second.kind == TorchArgument::Kind::Int &&
        args[1].second.ints.front()) {
      size_t index = *args[1].second.ints.front();
      if (index < args[0].second.tensors.size())
        return bindOutputs(node, aten, tensor(args[0].second.tensors[index]));
    }
    return nodeError(node, aten) << "unsupported getitem form";
  }

  bool handled = false;
  if (failed(importSpecial(node, aten, args, handled)))
    return failure();
  if (!handled && failed(importFactory(node, aten, args, handled)))
    return failure();
  if (handled)
    return success();
  if (std::optional<RegisteredOperationName> edgeOp = edgeOpFor(aten))
    return importGeneric(node, aten, *edgeOp, args);
  return importCustom(node, aten, args);
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
  SmallVector<Attribute> mutatedBuffers;
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
      mutatedBuffers.push_back(builder.getStringAttr(*buffer));
    } else {
      return emitError(fileLoc)
             << "output spec kind '" << kind << "' is not supported";
    }
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
  if (!mutatedBuffers.empty())
    func->setAttr("etch.buffer_mutations",
                  builder.getArrayAttr(mutatedBuffers));
  return success();
}

LogicalResult TorchImporter::run() {
  MLIRContext *context = builder.getContext();
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(contents.programJson);
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
  for (auto [index, name] : llvm::enumerate(argumentNames))
    func.setArgAttr(index, "etch.name", builder.getStringAttr(name));
  builder.setInsertionPointToEnd(func.addEntryBlock());

  if (failed(importSignature(*graph, *signature)))
    return failure();
  const Array *nodes = graph->getArray("nodes");
  if (!nodes)
    return emitError(fileLoc) << "the graph has no nodes list";
  for (const llvm::json::Value &nodeValue : *nodes) {
    const Object *node = nodeValue.getAsObject();
    if (!node)
      return emitError(fileLoc) << "malformed node";
    if (failed(importNode(*node)))
      return failure();
  }
  if (failed(importOutputs(*graph, *signature)))
    return failure();
  unmapped.report(fileLoc);
  return success();
}

} // namespace etch::torch_import

namespace etch {

static OwningOpRef<ModuleOp>
importPt2Contents(StringRef path, std::optional<torch_import::Pt2Contents> contents,
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
