//===- OnnxImporter.cpp - Driver: values, constants, unmapped ops ---------===//
#include "../ImportEntry.h"
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"
#include "etch/Import/Import.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include <cstring>

using namespace mlir;

namespace etch::onnx_import {

OnnxImporter::OnnxImporter(ModuleOp module, const OnnxGraph &graph,
                           StringRef path)
    : edge(builder), builder(module.getContext()), module(module), graph(graph),
      path(path.str()) {
  converters = {
      {"Conv", &OnnxImporter::convertConv},
      {"ConvTranspose", &OnnxImporter::convertConv},
      {"Gemm", &OnnxImporter::convertGemm},
      {"MatMul", &OnnxImporter::convertMatMul},
      {"BatchNormalization", &OnnxImporter::convertBatchNormalization},
      {"LayerNormalization", &OnnxImporter::convertLayerNormalization},
      {"MaxPool", &OnnxImporter::convertPool},
      {"AveragePool", &OnnxImporter::convertPool},
      {"GlobalAveragePool", &OnnxImporter::convertGlobalPool},
      {"GlobalMaxPool", &OnnxImporter::convertGlobalPool},
      {"Add", &OnnxImporter::convertBinary},
      {"Sub", &OnnxImporter::convertBinary},
      {"Mul", &OnnxImporter::convertBinary},
      {"Div", &OnnxImporter::convertBinary},
      {"Relu", &OnnxImporter::convertUnary},
      {"Sigmoid", &OnnxImporter::convertUnary},
      {"Tanh", &OnnxImporter::convertUnary},
      {"HardSwish", &OnnxImporter::convertUnary},
      {"Exp", &OnnxImporter::convertUnary},
      {"Log", &OnnxImporter::convertUnary},
      {"Sqrt", &OnnxImporter::convertUnary},
      {"Neg", &OnnxImporter::convertUnary},
      {"Abs", &OnnxImporter::convertUnary},
      {"Sin", &OnnxImporter::convertUnary},
      {"Cos", &OnnxImporter::convertUnary},
      {"Tan", &OnnxImporter::convertUnary},
      {"Asin", &OnnxImporter::convertUnary},
      {"Acos", &OnnxImporter::convertUnary},
      {"Atan", &OnnxImporter::convertUnary},
      {"Sinh", &OnnxImporter::convertUnary},
      {"Cosh", &OnnxImporter::convertUnary},
      {"Asinh", &OnnxImporter::convertUnary},
      {"Acosh", &OnnxImporter::convertUnary},
      {"Atanh", &OnnxImporter::convertUnary},
      {"Sign", &OnnxImporter::convertUnary},
      {"Reciprocal", &OnnxImporter::convertUnary},
      {"Floor", &OnnxImporter::convertUnary},
      {"Ceil", &OnnxImporter::convertUnary},
      {"Round", &OnnxImporter::convertUnary},
      {"Equal", &OnnxImporter::convertCompare},
      {"Less", &OnnxImporter::convertCompare},
      {"LessOrEqual", &OnnxImporter::convertCompare},
      {"Greater", &OnnxImporter::convertCompare},
      {"GreaterOrEqual", &OnnxImporter::convertCompare},
      {"Where", &OnnxImporter::convertWhere},
      {"Cast", &OnnxImporter::convertCast},
      {"Pad", &OnnxImporter::convertPad},
      {"Split", &OnnxImporter::convertSplit},
      {"Resize", &OnnxImporter::convertResize},
      {"QuantizeLinear", &OnnxImporter::convertQuantizeLinear},
      {"DequantizeLinear", &OnnxImporter::convertDequantizeLinear},
      {"And", &OnnxImporter::convertBinary},
      {"Or", &OnnxImporter::convertBinary},
      {"Xor", &OnnxImporter::convertBinary},
      {"Mod", &OnnxImporter::convertBinary},
      {"BitShift", &OnnxImporter::convertBinary},
      {"DynamicQuantizeLinear", &OnnxImporter::convertDynamicQuantizeLinear},
      {"ConvInteger", &OnnxImporter::convertIntegerProduct},
      {"MatMulInteger", &OnnxImporter::convertIntegerProduct},
      {"QLinearConv", &OnnxImporter::convertIntegerProduct},
      {"QLinearMatMul", &OnnxImporter::convertIntegerProduct},
      {"Not", &OnnxImporter::convertUnary},
      {"Size", &OnnxImporter::convertShape},
      {"HardSigmoid", &OnnxImporter::convertHardSigmoid},
      {"LeakyRelu", &OnnxImporter::convertLeakyReluOrElu},
      {"Elu", &OnnxImporter::convertLeakyReluOrElu},
      {"Clip", &OnnxImporter::convertClip},
      {"Softmax", &OnnxImporter::convertSoftmax},
      {"LogSoftmax", &OnnxImporter::convertSoftmax},
      {"Flatten", &OnnxImporter::convertFlatten},
      {"Reshape", &OnnxImporter::convertReshape},
      {"Transpose", &OnnxImporter::convertTranspose},
      {"Concat", &OnnxImporter::convertConcat},
      {"Gather", &OnnxImporter::convertGather},
      {"Unsqueeze", &OnnxImporter::convertUnsqueeze},
      {"Squeeze", &OnnxImporter::convertSqueeze},
      {"Slice", &OnnxImporter::convertSlice},
      {"ReduceMean", &OnnxImporter::convertReduce},
      {"ReduceSum", &OnnxImporter::convertReduce},
      {"ReduceProd", &OnnxImporter::convertReduce},
      {"ReduceMax", &OnnxImporter::convertReduce},
      {"ReduceMin", &OnnxImporter::convertReduce},
      {"ArgMax", &OnnxImporter::convertArgReduce},
      {"ArgMin", &OnnxImporter::convertArgReduce},
      {"Identity", &OnnxImporter::convertIdentity},
      {"If", &OnnxImporter::convertIf},
      {"Loop", &OnnxImporter::convertLoop},
      {"Scan", &OnnxImporter::convertScan},
      {"Constant", &OnnxImporter::convertConstant},
      {"Shape", &OnnxImporter::convertShape},
      {"Gelu", &OnnxImporter::convertGelu},
      {"Erf", &OnnxImporter::convertErf},
  };
  for (const auto &entry : composedOps())
    converters.try_emplace(entry.getKey(), &OnnxImporter::convertComposed);
}

Location OnnxImporter::locationOf(const OnnxNode &node) {
  MLIRContext *context = builder.getContext();
  Location file = FileLineColLoc::get(context, path, 0, 0);
  return NameLoc::get(StringAttr::get(context, node.name.empty()
                                                   ? node.outputs.front()
                                                   : node.name),
                      file);
}

std::string OnnxImporter::malformedNode(ArrayRef<OnnxNode> nodes) {
  for (auto [index, node] : llvm::enumerate(nodes)) {
    // Converters bind a node's first output: it must exist and have a name
    // (the recurrent ops bind each output they are asked for).
    if (node.opType.empty())
      return "node #" + std::to_string(index) + " '" + node.name +
             "' has no op_type";
    bool bindsEachOutput =
        node.opType == "RNN" || node.opType == "GRU" || node.opType == "LSTM";
    if (node.outputs.empty() ||
        (node.outputs.front().empty() && !bindsEachOutput) ||
        llvm::all_of(node.outputs,
                     [](const std::string &name) { return name.empty(); }))
      return "node #" + std::to_string(index) + " '" + node.name + "' (" +
             node.opType + ") has no named first output";
  }
  return "";
}

std::string OnnxImporter::nodeErrorPrefix(const OnnxNode &node) {
  return "node '" + (node.name.empty() ? node.outputs.front() : node.name) +
         "' (" + node.opType + "): ";
}

InFlightDiagnostic OnnxImporter::nodeError(const OnnxNode &node) {
  InFlightDiagnostic diag =
      emitError(FileLineColLoc::get(builder.getContext(), path, 0, 0));
  diag << nodeErrorPrefix(node);
  return diag;
}

Type OnnxImporter::elementType(OnnxDataType type) {
  MLIRContext *context = builder.getContext();
  switch (type) {
  case OnnxDataType::Float:
    return Float32Type::get(context);
  case OnnxDataType::Double:
    return Float64Type::get(context);
  case OnnxDataType::Float16:
    return Float16Type::get(context);
  case OnnxDataType::BFloat16:
    return BFloat16Type::get(context);
  case OnnxDataType::Int8:
    return IntegerType::get(context, 8);
  case OnnxDataType::Uint8:
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  case OnnxDataType::Uint16:
    return IntegerType::get(context, 16, IntegerType::Unsigned);
  case OnnxDataType::Uint32:
    return IntegerType::get(context, 32, IntegerType::Unsigned);
  case OnnxDataType::Uint64:
    return IntegerType::get(context, 64, IntegerType::Unsigned);
  case OnnxDataType::Int16:
    return IntegerType::get(context, 16);
  case OnnxDataType::Int32:
    return IntegerType::get(context, 32);
  case OnnxDataType::Int64:
    return IntegerType::get(context, 64);
  case OnnxDataType::Bool:
    return IntegerType::get(context, 1);
  default:
    return {};
  }
}

Value OnnxImporter::constantFromTensor(const OnnxTensor &tensor, Location loc) {
  Type element = elementType(tensor.elementType);
  auto type = RankedTensorType::get(tensor.dims, element);
  OpBuilder::InsertionGuard guard(builder);
  // Constants go to the top of the function so every use is dominated.
  auto func = cast<func::FuncOp>(builder.getInsertionBlock()->getParentOp());
  builder.setInsertionPointToStart(&func.getBody().front());
  return edge.constantFromBytes(
      loc, type, ArrayRef<char>(tensor.bytes.data(), tensor.bytes.size()),
      tensor.name);
}

bool OnnxImporter::hasInput(const OnnxNode &node, size_t index) const {
  return index < node.inputs.size() && !node.inputs[index].empty();
}

Value OnnxImporter::input(const OnnxNode &node, size_t index) {
  if (!hasInput(node, index)) {
    nodeError(node) << "missing input #" << index;
    return {};
  }
  const std::string &name = node.inputs[index];
  if (Value value = values.lookup(name)) {
    // Converters read shapes: only an op kept as edge.custom without a
    // shape from ONNX inference can give an unranked value.
    if (!isa<RankedTensorType>(value.getType())) {
      nodeError(node) << "input '" << name
                      << "' has no known shape (it comes from an op etch "
                         "keeps as edge.custom)";
      return {};
    }
    return value;
  }
  if (const OnnxTensor *tensor = constants.lookup(name)) {
    if (!elementType(tensor->elementType)) {
      nodeError(node) << "constant '" << name << "' has an unsupported type";
      return {};
    }
    Value value = constantFromTensor(*tensor, locationOf(node));
    values[name] = value;
    return value;
  }
  nodeError(node) << "input '" << name
                  << "' is not defined by any earlier node";
  return {};
}

const OnnxTensor *OnnxImporter::constantInput(const OnnxNode &node,
                                              size_t index) const {
  if (!hasInput(node, index))
    return nullptr;
  return constants.lookup(node.inputs[index]);
}

std::optional<std::vector<int64_t>>
OnnxImporter::constantInts(const OnnxTensor &tensor) {
  std::vector<int64_t> result;
  auto read = [&](auto element) {
    using T = decltype(element);
    for (int64_t i = 0; i < tensor.numElements(); ++i) {
      std::memcpy(&element, tensor.bytes.data() + i * sizeof(T), sizeof(T));
      result.push_back(static_cast<int64_t>(element));
    }
  };
  switch (tensor.elementType) {
  case OnnxDataType::Int64: read(int64_t()); break;
  case OnnxDataType::Int32: read(int32_t()); break;
  case OnnxDataType::Int16: read(int16_t()); break;
  case OnnxDataType::Int8: read(int8_t()); break;
  case OnnxDataType::Uint8: read(uint8_t()); break;
  case OnnxDataType::Uint16:
    read(uint16_t());
    break;
  case OnnxDataType::Uint32:
    read(uint32_t());
    break;
  case OnnxDataType::Bool:
    read(uint8_t());
    break;
  default: return std::nullopt;
  }
  return result;
}

std::optional<std::vector<double>>
OnnxImporter::constantDoubles(const OnnxTensor &tensor) {
  std::vector<double> result;
  const char *data = tensor.bytes.data();
  for (int64_t i = 0; i < tensor.numElements(); ++i) {
    if (tensor.elementType == OnnxDataType::Float) {
      float value;
      std::memcpy(&value, data + i * 4, 4);
      result.push_back(value);
    } else if (tensor.elementType == OnnxDataType::Double) {
      double value;
      std::memcpy(&value, data + i * 8, 8);
      result.push_back(value);
    } else if (auto ints = constantInts(tensor)) {
      return std::vector<double>(ints->begin(), ints->end());
    } else {
      return std::nullopt;
    }
  }
  return result;
}

LogicalResult OnnxImporter::bind(const OnnxNode &node, FailureOr<Value> value,
                                 size_t outputIndex) {
  if (failed(value))
    return failure(); // the builder reported why, naming the node
  if (outputIndex < node.outputs.size() && !node.outputs[outputIndex].empty())
    values[node.outputs[outputIndex]] = *value;
  return success();
}

LogicalResult OnnxImporter::requireUnused(const OnnxNode &node, size_t index) {
  if (index < node.outputs.size() && !node.outputs[index].empty() &&
      useCounts.lookup(node.outputs[index]) > 0)
    return nodeError(node) << "output #" << index << " ('"
                           << node.outputs[index]
                           << "') is used, but only the first output is "
                              "supported";
  return success();
}

int64_t OnnxImporter::intAttr(const OnnxNode &node, StringRef name,
                              int64_t fallback) {
  auto it = node.attributes.find(name.str());
  return it == node.attributes.end() ? fallback : it->second.i;
}

float OnnxImporter::floatAttr(const OnnxNode &node, StringRef name,
                              float fallback) {
  auto it = node.attributes.find(name.str());
  return it == node.attributes.end() ? fallback : it->second.f;
}

std::string OnnxImporter::stringAttr(const OnnxNode &node, StringRef name,
                                     StringRef fallback) {
  auto it = node.attributes.find(name.str());
  return it == node.attributes.end() ? fallback.str() : it->second.s;
}

std::optional<std::vector<int64_t>> OnnxImporter::intsAttr(const OnnxNode &node,
                                                           StringRef name) {
  auto it = node.attributes.find(name.str());
  if (it == node.attributes.end())
    return std::nullopt;
  return it->second.ints;
}

RankedTensorType OnnxImporter::rankedTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

FailureOr<Value> OnnxImporter::view(Location loc, Value value,
                                    ArrayRef<int64_t> shape) {
  return edge.create<edge::ViewOp>(
      loc, value,
      {builder.getNamedAttr("size", builder.getDenseI64ArrayAttr(shape))});
}

FailureOr<Value> OnnxImporter::permute(Location loc, Value value,
                                       ArrayRef<int64_t> dims) {
  return edge.create<edge::PermuteOp>(
      loc, value,
      {builder.getNamedAttr("dims", builder.getDenseI64ArrayAttr(dims))});
}

LogicalResult OnnxImporter::convertIdentity(const OnnxNode &node) {
  if (const OnnxTensor *tensor = constantInput(node, 0)) {
    constants[node.outputs.front()] = tensor;
    return success();
  }
  Value value = input(node, 0);
  if (!value)
    return failure();
  values[node.outputs.front()] = value;
  return success();
}

LogicalResult OnnxImporter::convertConstant(const OnnxNode &node) {
  auto tensor = std::make_unique<OnnxTensor>();
  tensor->name = node.outputs.front();
  auto scalarOrList = [&](const OnnxAttribute &attribute) -> bool {
    using Kind = OnnxAttribute::Kind;
    auto append = [&](const void *data, size_t size) {
      tensor->bytes.append(static_cast<const char *>(data), size);
    };
    switch (attribute.kind) {
    case Kind::Tensor:
      *tensor = attribute.t;
      tensor->name = node.outputs.front();
      return true;
    case Kind::Float:
      tensor->elementType = OnnxDataType::Float;
      append(&attribute.f, 4);
      return true;
    case Kind::Int:
      tensor->elementType = OnnxDataType::Int64;
      append(&attribute.i, 8);
      return true;
    case Kind::Floats:
      tensor->elementType = OnnxDataType::Float;
      tensor->dims = {static_cast<int64_t>(attribute.floats.size())};
      append(attribute.floats.data(), attribute.floats.size() * 4);
      return true;
    case Kind::Ints:
      tensor->elementType = OnnxDataType::Int64;
      tensor->dims = {static_cast<int64_t>(attribute.ints.size())};
      append(attribute.ints.data(), attribute.ints.size() * 8);
      return true;
    default:
      return false;
    }
  };
  for (const char *name :
       {"value", "value_float", "value_int", "value_floats", "value_ints"}) {
    auto it = node.attributes.find(name);
    if (it != node.attributes.end() && scalarOrList(it->second)) {
      constants[node.outputs.front()] = tensor.get();
      ownedConstants.push_back(std::move(tensor));
      return success();
    }
  }
  return nodeError(node) << "only tensor, float(s) and int(s) constants are "
                            "supported";
}

LogicalResult OnnxImporter::convertShape(const OnnxNode &node) {
  Value value = input(node, 0);
  if (!value)
    return failure();
  RankedTensorType type = rankedTypeOf(value);
  if (!type.hasStaticShape())
    return nodeError(node) << node.opType << " of a dynamically shaped tensor ("
                           << type << ") is not supported";
  auto tensor = std::make_unique<OnnxTensor>();
  tensor->name = node.outputs.front();
  tensor->elementType = OnnxDataType::Int64;
  if (node.opType == "Size") {
    int64_t elements = type.getNumElements();
    tensor->bytes.append(reinterpret_cast<const char *>(&elements), 8);
    constants[node.outputs.front()] = tensor.get();
    ownedConstants.push_back(std::move(tensor));
    return success();
  }
  int64_t rank = type.getRank();
  int64_t start = intAttr(node, "start", 0), end = intAttr(node, "end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  tensor->dims = {std::max<int64_t>(end - start, 0)};
  for (int64_t i = start; i < end; ++i) {
    int64_t extent = type.getDimSize(i);
    tensor->bytes.append(reinterpret_cast<const char *>(&extent), 8);
  }
  constants[node.outputs.front()] = tensor.get();
  ownedConstants.push_back(std::move(tensor));
  return success();
}

/// An op no converter handles becomes edge.custom with the ONNX attributes,
/// typed by ONNX shape inference.
LogicalResult OnnxImporter::convertCustom(const OnnxNode &node) {
  SmallVector<Value> operands;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty())
      continue;
    // Custom ops read no shapes: an unranked input is fine here.
    Value value = values.lookup(node.inputs[i]);
    if (!value && !(value = input(node, i)))
      return failure();
    operands.push_back(value);
  }
  SmallVector<Type> resultTypes;
  for (const std::string &output : node.outputs) {
    auto it = graph.valueTypes.find(output);
    Type element = it == graph.valueTypes.end()
                       ? Type()
                       : elementType(it->second.elementType);
    if (!element)
      return nodeError(node) << "no known type for output '" << output
                             << "' (needed to keep the op as edge.custom)";
    if (it->second.hasShape) {
      SmallVector<int64_t> dims;
      for (int64_t dim : it->second.dims)
        dims.push_back(dim < 0 ? ShapedType::kDynamic : dim);
      resultTypes.push_back(RankedTensorType::get(dims, element));
    } else {
      resultTypes.push_back(UnrankedTensorType::get(element));
    }
  }
  SmallVector<NamedAttribute> attributes;
  std::string opName =
      (node.domain.empty() ? "onnx" : node.domain) + "::" + node.opType;
  for (const auto &[name, attribute] : node.attributes) {
    using Kind = OnnxAttribute::Kind;
    Attribute value;
    switch (attribute.kind) {
    case Kind::Float:
      value = builder.getF32FloatAttr(attribute.f);
      break;
    case Kind::Int:
      value = builder.getI64IntegerAttr(attribute.i);
      break;
    case Kind::String:
      value = builder.getStringAttr(attribute.s);
      break;
    case Kind::Floats:
      value = builder.getF32ArrayAttr(attribute.floats);
      break;
    case Kind::Ints:
      value = builder.getDenseI64ArrayAttr(attribute.ints);
      break;
    case Kind::Strings:
      value = builder.getStrArrayAttr(SmallVector<StringRef>(
          attribute.strings.begin(), attribute.strings.end()));
      break;
    default:
      return nodeError(node)
             << "attribute '" << name << "' has a kind edge.custom cannot keep";
    }
    attributes.push_back(builder.getNamedAttr(name, value));
  }
  Operation *custom = edge.createCustom(locationOf(node), opName, operands,
                                        resultTypes, attributes, unmapped);
  for (auto [index, output] : llvm::enumerate(node.outputs))
    if (!output.empty())
      values[output] = custom->getResult(index);
  return success();
}

LogicalResult OnnxImporter::convertNode(const OnnxNode &node) {
  if (fusedAway.contains(&node))
    return success();
  edge.setErrorContext(nodeErrorPrefix(node));
  if ((node.domain.empty() || node.domain == "ai.onnx") &&
      foldConstantNode(node))
    return success();
  if (node.domain.empty() || node.domain == "ai.onnx") {
    auto it = converters.find(node.opType);
    if (it != converters.end())
      return (this->*(it->second))(node);
  }
  return convertCustom(node);
}

void OnnxImporter::countUses(const std::vector<OnnxNode> &nodes) {
  for (const OnnxNode &node : nodes) {
    for (const std::string &name : node.inputs) {
      ++useCounts[name];
      consumers[name].push_back(&node);
    }
    for (const std::string &name : node.outputs)
      producers[name] = &node;
    // A subgraph reads its outputs and the outer names it captures.
    for (const auto &[name, attribute] : node.attributes)
      if (attribute.graph) {
        countUses(attribute.graph->nodes);
        for (const auto &[output, type] : attribute.graph->outputs)
          ++useCounts[output];
      }
  }
}

LogicalResult OnnxImporter::run() {
  MLIRContext *context = builder.getContext();
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  if (graph.opsetVersion == 0)
    return emitError(fileLoc) << "the model imports no opset of the default "
                                 "ONNX domain (ai.onnx), the only one etch "
                                 "reads";
  if (graph.opsetVersion < kOldestImportedOpset ||
      graph.opsetVersion > kNewestImportedOpset)
    return emitError(fileLoc)
           << "ONNX opset " << graph.opsetVersion
           << " is not supported (etch reads opsets 1 to "
           << kNewestImportedOpset << ", converting those before "
           << kOldestImportedOpset << ")";

  for (const OnnxTensor &initializer : graph.initializers)
    constants[initializer.name] = &initializer;
  if (std::string problem = malformedNode(graph.nodes); !problem.empty())
    return emitError(fileLoc) << problem;
  countUses(graph.nodes);
  for (const auto &[name, type] : graph.outputs)
    ++useCounts[name];

  SmallVector<Type> argumentTypes;
  for (const auto &[name, type] : graph.inputs) {
    Type element = elementType(type.elementType);
    if (type.elementType == OnnxDataType::Undefined)
      return emitError(fileLoc) << "graph input '" << name
                                << "' is not a tensor (sequences, maps and "
                                   "optionals are not supported)";
    if (!element)
      return emitError(fileLoc)
             << "graph input '" << name << "' has element type "
             << onnxTypeName(type.elementType)
             << ", which etch does not support (it reads float, double, "
                "float16, bfloat16, int8 to int64, uint8 to uint64, bool)";
    if (!type.hasShape)
      return emitError(fileLoc) << "graph input '" << name
                                << "' needs a tensor type with a known rank";
    SmallVector<int64_t> dims;
    for (int64_t dim : type.dims)
      dims.push_back(dim < 0 ? ShapedType::kDynamic : dim);
    argumentTypes.push_back(RankedTensorType::get(dims, element));
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func = builder.create<func::FuncOp>(
      fileLoc, "forward", builder.getFunctionType(argumentTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [index, input] : llvm::enumerate(graph.inputs)) {
    values[input.first] = body->getArgument(index);
    func.setArgAttr(index, "etch.name", builder.getStringAttr(input.first));
  }
  builder.setInsertionPointToEnd(body);

  for (const OnnxNode &node : graph.nodes)
    if (failed(convertNode(node)))
      return failure();

  SmallVector<Value> results;
  for (const auto &[name, type] : graph.outputs) {
    Value value = values.lookup(name);
    if (!value && constants.count(name))
      value = constantFromTensor(*constants.lookup(name), fileLoc);
    if (!value)
      return emitError(fileLoc)
             << "graph output '" << name << "' is not produced by any node";
    results.push_back(value);
  }
  builder.create<func::ReturnOp>(fileLoc, results);
  func.setType(
      builder.getFunctionType(argumentTypes, ValueRange(results).getTypes()));
  for (auto [index, output] : llvm::enumerate(graph.outputs))
    func.setResultAttr(index, "etch.name", builder.getStringAttr(output.first));
  eraseUnreadCustoms(module, unmapped);
  unmapped.report(fileLoc);
  return success();
}

} // namespace etch::onnx_import

namespace etch {

OwningOpRef<ModuleOp> importOnnx(StringRef path, MLIRContext *context) {
  std::string error;
  std::optional<onnx_import::OnnxGraph> graph =
      onnx_import::loadOnnxModel(path.str(), error);
  return importWith<onnx_import::OnnxImporter>(path, std::move(graph), error,
                                               context);
}

OwningOpRef<ModuleOp> importOnnxFromBytes(StringRef name,
                                          const std::string &bytes,
                                          StringRef modelDir,
                                          MLIRContext *context) {
  std::string error;
  std::optional<onnx_import::OnnxGraph> graph =
      onnx_import::loadOnnxModelFromBytes(bytes, modelDir.str(), error);
  return importWith<onnx_import::OnnxImporter>(name, std::move(graph), error,
                                               context);
}

} // namespace etch
