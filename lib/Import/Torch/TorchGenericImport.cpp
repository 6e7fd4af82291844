//===- TorchGenericImport.cpp - ATen ops without handlers -----------------===//
//
// The generic mapping by AtenOpInterface (named arguments to attributes,
// tensors to operands, scalars to rank-0 constants, torch's type
// promotion), in-place ops through their functional form, and what is left
// as edge.custom.
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"

#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/StringSet.h"

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
  // ATen's dtype= on an op whose Edge form has none (softmax, sum, mean,
  // ...): ATen converts the input first, so the op runs in that type.
  bool convertSelf = false;
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
        return node.error()
               << "argument '" << name << "' (" << arg.unionKey
               << ") does not fit " << edgeOp.getStringRef() << "'s attribute";
      attributes.push_back(builder.getNamedAttr(name, attribute));
      continue;
    }
    if (arg.kind == Kind::None) {
      operands.push_back({name, {}, std::nullopt, true}); // absent optional
      continue;
    }
    if (isIgnorableArgument(name, arg))
      continue;
    if (name == "dtype" && arg.kind == Kind::ScalarType) {
      convertSelf = true;
      continue;
    }
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
        return node.error() << "argument '" << name << "' is a symbolic scalar";
      floatScalar |= arg.kind == Kind::Float;
      operands.push_back({name, {}, scalar, false});
      continue;
    }
    return node.error() << "argument '" << name << "' (" << arg.unionKey
                        << ") is not supported by " << edgeOp.getStringRef();
  }

  auto self = llvm::find_if(operands, [](const Operand &o) {
    return !o.values.empty() && !o.symbolicScalar;
  });
  // ATen sums integers and bools in int64 unless dtype= says otherwise; the
  // Edge op keeps its input's type (prod's handler converts the same way).
  if (!convertSelf && self != operands.end() && node.aten() == "aten::sum") {
    Type element = getElementTypeOrSelf(self->values.front().getType());
    convertSelf = element.isInteger() && !element.isInteger(64);
  }
  if (convertSelf) {
    FailureOr<RankedTensorType> result = node.outputType();
    if (failed(result))
      return failure();
    if (self == operands.end())
      return node.error() << "has a dtype but no tensor to convert";
    FailureOr<Value> converted =
        node.castTo(self->values.front(), result->getElementType());
    if (failed(converted))
      return failure();
    self->values.front() = *converted;
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
  // ATen wraps `dim` of a 0-d tensor as if it had one dim (sum(x, 0),
  // argmax(x, -1), ...): the Edge op sees a 1-element vector, and its result
  // takes the recorded shape (keepdim's one dim back to none).
  bool scalarSelf = self != operands.end() &&
                    edge::rankedType(self->values.front()).getRank() == 0;
  if (scalarSelf && isAttribute("dim") && !values.empty() &&
      values.front() == self->values.front()) {
    FailureOr<Value> vector = node.build<edge::ViewOp>(
        values.front(), ValueRange(), builder.getDenseI64ArrayAttr({1}));
    FailureOr<RankedTensorType> recorded = node.outputType();
    if (failed(vector) || failed(recorded))
      return failure();
    values.front() = *vector;
    FailureOr<Value> result =
        edge.create(loc, edgeOp.getStringRef(), values, attributes);
    if (failed(result) ||
        edge::rankedType(*result).getRank() == recorded->getRank())
      return bindOutputs(node, result);
    return bindOutputs(node,
                       node.build<edge::ViewOp>(
                           *result, ValueRange(),
                           builder.getDenseI64ArrayAttr(recorded->getShape())));
  }
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
  else if (std::optional<RegisteredOperationName> edgeOp =
               edgeOpFor(functional))
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
  auto *it = llvm::find_if(
      mutatedBuffers, [&](const auto &entry) { return entry.first == buffer; });
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

} // namespace etch::torch_import
