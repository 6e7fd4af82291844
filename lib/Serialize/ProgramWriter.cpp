//===- ProgramWriter.cpp - Planned Edge IR -> .etp program file -----------===//
#include "etch/Serialize/ProgramWriter.h"
#include "BundledCases.h"
#include "DebugHandles.h"

#include "etch/Serialize/ExternalWeights.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "runtime/backend/BlobFraming.h"
#include "runtime/core/Checksum.h"
#include "runtime/kernels/KernelCall.h"
#include "runtime/program/FileHeader.h"
#include "runtime/schema/program_generated.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OpDefinition.h"

#include "llvm/Support/Path.h"

#include <cstring>
#include <map>

using namespace mlir;
namespace fb = flatbuffers;
namespace schema = etch::schema;

namespace etch {

// A dynamic size entry: MLIR's marker is the runtime's (one value on both
// sides of the program file).
static_assert(edge::kDynamicSize == runtime::kSizeFromInput,
              "size-list markers of compiler and runtime differ");
namespace {

std::optional<schema::ScalarType> scalarTypeOf(Type type) {
  std::optional<runtime::ScalarType> scalar = programScalarType(type);
  if (!scalar)
    return std::nullopt;
  return static_cast<schema::ScalarType>(*scalar);
}

/// The program's description of a quantized element type; null otherwise.
fb::Offset<schema::Quantization> quantization(fb::FlatBufferBuilder &fbb,
                                              Type elementType) {
  std::vector<double> scales;
  std::vector<int64_t> zeroPoints;
  int32_t axis = -1;
  auto quantized = dyn_cast<quant::QuantizedType>(elementType);
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(elementType)) {
    scales.push_back(uniform.getScale());
    zeroPoints.push_back(uniform.getZeroPoint());
  } else if (auto perAxis =
                 dyn_cast<quant::UniformQuantizedPerAxisType>(elementType)) {
    scales.assign(perAxis.getScales().begin(), perAxis.getScales().end());
    zeroPoints.assign(perAxis.getZeroPoints().begin(),
                      perAxis.getZeroPoints().end());
    axis = perAxis.getQuantizedDimension();
  } else {
    return 0;
  }
  return schema::CreateQuantizationDirect(fbb, &scales, &zeroPoints, axis,
                                          quantized.getStorageTypeMin(),
                                          quantized.getStorageTypeMax());
}

/// Builds the flatbuffer and collects constant segments.
class ProgramBuilder {
public:
  ProgramBuilder(bool debugHandles, ExternalWeights *externalWeights)
      : debugHandles(debugHandles), externalWeights(externalWeights) {}
  LogicalResult addMethod(func::FuncOp func);
  /// Program metadata: the module's `etch.metadata` string entries.
  void setMetadata(DictionaryAttr metadata);
  /// A file carried by name, in a segment of its own.
  void addNamedData(const NamedData &data);
  void finish(raw_ostream &os);

private:
  struct MethodState {
    /// The plan's state prefix [0, stateBytes): arena 1 in the program.
    uint64_t stateBytes = 0;
    std::vector<fb::Offset<schema::Value>> values;
    llvm::DenseMap<Value, uint32_t> index;
    std::vector<fb::Offset<schema::Operator>> operators;
    llvm::StringMap<uint32_t> operatorIndex;
    std::vector<fb::Offset<schema::DelegateEntry>> delegates;
  };

  LogicalResult
  addDelegateCall(MethodState &state, edge::DelegateOp delegate,
                  std::vector<fb::Offset<schema::Instruction>> &instructions);

  FailureOr<uint32_t> tensorValue(MethodState &state, Value value,
                                  Location loc);
  /// The state entry of \p buffer: its tensor, the function result with its
  /// new contents, and its initial contents.
  FailureOr<fb::Offset<schema::MutableBuffer>>
  mutableBuffer(MethodState &state, edge::BufferOp buffer,
                ArrayAttr mutations, size_t userResults);
  uint32_t scalarValue(MethodState &state, fb::Offset<schema::Value> value) {
    state.values.push_back(value);
    return state.values.size() - 1;
  }
  std::optional<uint32_t> attributeValue(MethodState &state, Attribute attr);
  /// Weights (constants, delegate constant sections, initial state) may go
  /// to the external weights file; blobs and named data stay.
  enum class SegmentKind { Weights, Program };
  /// The segment holding \p bytes: equal bytes of a kind share one.
  uint32_t segmentFor(ArrayRef<char> bytes, SegmentKind kind);

  struct SegmentData {
    std::string bytes;
    SegmentKind kind;
    uint64_t checksum;
  };

  fb::FlatBufferBuilder fbb{1 << 16};
  bool debugHandles;
  ExternalWeights *externalWeights;
  std::vector<fb::Offset<schema::Method>> methods;
  std::vector<fb::Offset<schema::Metadata>> metadata;
  std::vector<fb::Offset<schema::NamedData>> namedData;
  std::vector<SegmentData> segments;
  std::multimap<std::pair<uint64_t, uint64_t>, uint32_t> segmentsByContent;
};

uint32_t ProgramBuilder::segmentFor(ArrayRef<char> bytes, SegmentKind kind) {
  uint64_t checksum = runtime::checksum64(bytes.data(), bytes.size());
  auto key = std::make_pair(checksum, static_cast<uint64_t>(bytes.size()));
  auto [first, last] = segmentsByContent.equal_range(key);
  for (auto it = first; it != last; ++it) {
    const SegmentData &segment = segments[it->second];
    if (segment.kind == kind &&
        std::memcmp(segment.bytes.data(), bytes.data(), bytes.size()) == 0)
      return it->second;
  }
  segmentsByContent.emplace(key, segments.size());
  segments.push_back({std::string(bytes.data(), bytes.size()), kind, checksum});
  return segments.size() - 1;
}

/// The type the program holds for \p value: for a dynamic one, the bounded
/// type the memory planner recorded (the runtime resizes within it).
static Type plannedType(Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType());
      tensor && tensor.hasStaticShape())
    return tensor;
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (auto func = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp()))
      if (auto planned = func.getArgAttrOfType<TypeAttr>(
              argument.getArgNumber(), "etch.planned_type"))
        return planned.getValue();
    return value.getType();
  }
  if (auto planned =
          value.getDefiningOp()->getAttrOfType<ArrayAttr>("etch.planned_types"))
    return cast<TypeAttr>(planned[cast<OpResult>(value).getResultNumber()])
        .getValue();
  return value.getType();
}

FailureOr<uint32_t> ProgramBuilder::tensorValue(MethodState &state, Value value,
                                                Location loc) {
  if (auto it = state.index.find(value); it != state.index.end())
    return it->second;
  auto type = dyn_cast<RankedTensorType>(plannedType(value));
  Type storageType =
      type ? edge::storageOrElementType(type.getElementType()) : Type();
  std::optional<schema::ScalarType> scalarType =
      type ? scalarTypeOf(storageType) : std::nullopt;
  if (!type || !type.hasStaticShape() || !scalarType)
    return emitError(loc) << "the program format needs int/float tensors of "
                             "static or bounded (planned) shapes, got "
                          << value.getType();
  uint64_t element = std::max<uint64_t>(
      1, (storageType.getIntOrFloatBitWidth() + 7) / 8);
  uint64_t nbytes = element * type.getNumElements();
  std::vector<int64_t> sizes(type.getShape().begin(), type.getShape().end());
  std::vector<uint8_t> dimOrder(sizes.size());
  for (size_t d = 0; d < dimOrder.size(); ++d)
    dimOrder[d] = d;

  schema::TensorStorage storage = schema::TensorStorage::Arena;
  uint32_t arena = 0, segment = 0;
  uint64_t offset = 0;
  if (auto constant = value.getDefiningOp<edge::ConstantOp>()) {
    SmallVector<char> storageBytes;
    std::optional<ArrayRef<char>> bytes =
        edge::getConstantBytes(constant.getValue(), storageBytes);
    if (!bytes)
      return emitError(loc)
             << "constant payload of " << type << " is not available";
    storage = schema::TensorStorage::Constant;
    segment = segmentFor(*bytes, SegmentKind::Weights);
  } else {
    IntegerAttr planned;
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      auto func = cast<func::FuncOp>(argument.getOwner()->getParentOp());
      planned = func.getArgAttrOfType<IntegerAttr>(argument.getArgNumber(),
                                                   "etch.arena_offset");
    } else if (auto offsets =
                   value.getDefiningOp()->getAttrOfType<DenseI64ArrayAttr>(
                       "etch.arena_offsets")) {
      int64_t planOffset = offsets[cast<OpResult>(value).getResultNumber()];
      if (planOffset >= 0)
        planned = IntegerAttr::get(IntegerType::get(value.getContext(), 64),
                                   planOffset);
    }
    if (!planned)
      return emitError(loc) << "value of type " << type
                            << " has no memory plan (run etch-memory-plan)";
    offset = planned.getInt();
    // The state prefix of the plan is arena 1; the rest arena 0.
    if (state.stateBytes) {
      arena = offset < state.stateBytes ? 1 : 0;
      offset = arena ? offset : offset - state.stateBytes;
    }
  }
  auto tensor = schema::CreateTensorDirect(
      fbb, *scalarType, &sizes, &dimOrder, storage, arena, segment, offset,
      nbytes,
      quantization(fbb, cast<ShapedType>(value.getType()).getElementType()));
  state.values.push_back(
      schema::CreateValue(fbb, schema::ValueKind::Tensor, tensor.Union()));
  state.index[value] = state.values.size() - 1;
  return state.values.size() - 1;
}

std::optional<uint32_t> ProgramBuilder::attributeValue(MethodState &state,
                                                       Attribute attr) {
  auto make = [&](schema::ValueKind kind, fb::Offset<void> payload) {
    return scalarValue(state, schema::CreateValue(fbb, kind, payload));
  };
  // A dtype attribute travels as its schema ScalarType code.
  if (auto type = dyn_cast<TypeAttr>(attr)) {
    std::optional<schema::ScalarType> code = scalarTypeOf(type.getValue());
    if (!code)
      return std::nullopt;
    return make(schema::ValueKind::Int,
                schema::CreateInt(fbb, static_cast<int64_t>(*code)).Union());
  }
  if (auto flag = dyn_cast<BoolAttr>(attr))
    return make(schema::ValueKind::Bool,
                schema::CreateBool(fbb, flag.getValue()).Union());
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return make(
        schema::ValueKind::Int,
        schema::CreateInt(fbb, integer.getValue().getSExtValue()).Union());
  if (auto real = dyn_cast<FloatAttr>(attr))
    return make(schema::ValueKind::Double,
                schema::CreateDouble(fbb, real.getValueAsDouble()).Union());
  if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr)) {
    std::vector<int64_t> items(ints.asArrayRef().begin(),
                               ints.asArrayRef().end());
    return make(schema::ValueKind::IntList,
                schema::CreateIntListDirect(fbb, &items).Union());
  }
  if (auto bools = dyn_cast<DenseBoolArrayAttr>(attr)) {
    std::vector<uint8_t> items(bools.asArrayRef().begin(),
                               bools.asArrayRef().end());
    return make(schema::ValueKind::BoolList,
                schema::CreateBoolListDirect(fbb, &items).Union());
  }
  if (auto text = dyn_cast<StringAttr>(attr))
    return make(
        schema::ValueKind::String,
        schema::CreateStringDirect(fbb, text.getValue().str().c_str()).Union());
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    std::vector<double> items;
    for (Attribute element : array) {
      auto real = dyn_cast<FloatAttr>(element);
      if (!real)
        return std::nullopt;
      items.push_back(real.getValueAsDouble());
    }
    return make(schema::ValueKind::DoubleList,
                schema::CreateDoubleListDirect(fbb, &items).Union());
  }
  return std::nullopt;
}

LogicalResult ProgramBuilder::addDelegateCall(
    MethodState &state, edge::DelegateOp delegate,
    std::vector<fb::Offset<schema::Instruction>> &instructions) {
  std::optional<ElementsAttr> blob = delegate.getBlob();
  SmallVector<char> storage;
  std::optional<ArrayRef<char>> bytes =
      blob ? edge::getConstantBytes(*blob, storage) : std::nullopt;
  if (!bytes)
    return delegate.emitOpError("has no compiled blob (run etch-codegen)");
  std::vector<uint32_t> inputs, outputs;
  for (Value input : delegate.getInputs()) {
    FailureOr<uint32_t> index = tensorValue(state, input, delegate.getLoc());
    if (failed(index))
      return failure();
    inputs.push_back(*index);
  }
  for (Value result : delegate.getResults()) {
    FailureOr<uint32_t> index = tensorValue(state, result, delegate.getLoc());
    if (failed(index))
      return failure();
    outputs.push_back(*index);
  }
  std::vector<fb::Offset<schema::CompileSpec>> specs;
  if (std::optional<DictionaryAttr> dictionary = delegate.getSpecs())
    for (NamedAttribute spec : *dictionary)
      if (auto text = dyn_cast<StringAttr>(spec.getValue())) {
        std::vector<uint8_t> value(text.getValue().begin(),
                                   text.getValue().end());
        specs.push_back(schema::CreateCompileSpecDirect(
            fbb, spec.getName().getValue().str().c_str(), &value));
      }
  // The constant section apart from the blob: methods share equal weights,
  // and they can live in the external weights file.
  runtime::Span<const uint8_t> whole(
      reinterpret_cast<const uint8_t *>(bytes->data()), bytes->size());
  runtime::Span<const uint8_t> framed, constants;
  if (!runtime::splitBlobConstants(whole, framed, constants))
    return delegate.emitOpError("blob is not framed (runtime/backend/"
                                "BlobFraming.h)");
  auto asChars = [](runtime::Span<const uint8_t> span) {
    return ArrayRef<char>(reinterpret_cast<const char *>(span.data()),
                          span.size());
  };
  uint32_t segment = segmentFor(asChars(constants.empty() ? whole : framed),
                                SegmentKind::Program);
  int32_t constantsSegment =
      constants.empty() ? -1
                        : static_cast<int32_t>(segmentFor(
                              asChars(constants), SegmentKind::Weights));
  state.delegates.push_back(
      schema::CreateDelegateEntryDirect(fbb, delegate.getTarget().str().c_str(),
                                        segment, &specs, constantsSegment));
  auto call = schema::CreateDelegateCallDirect(fbb, state.delegates.size() - 1,
                                               &inputs, &outputs);
  instructions.push_back(schema::CreateInstruction(
      fbb, schema::InstructionKind::DelegateCall, call.Union()));
  return success();
}

LogicalResult ProgramBuilder::addMethod(func::FuncOp func) {
  MethodState state;
  auto arenaSize = func->getAttrOfType<IntegerAttr>("etch.arena_size");
  if (!arenaSize)
    return func.emitError("function '")
           << func.getSymName()
           << "' has no memory plan (run etch-memory-plan)";
  if (auto stateBytes = func->getAttrOfType<IntegerAttr>("etch.state_bytes"))
    state.stateBytes = stateBytes.getInt();

  std::vector<uint32_t> inputs, outputs;
  std::vector<fb::Offset<fb::String>> inputNames, outputNames;
  for (BlockArgument argument : func.getArguments()) {
    FailureOr<uint32_t> index = tensorValue(state, argument, func.getLoc());
    if (failed(index))
      return failure();
    inputs.push_back(*index);
    auto name =
        func.getArgAttrOfType<StringAttr>(argument.getArgNumber(), "etch.name");
    inputNames.push_back(fbb.CreateString(
        name ? name.getValue().str()
             : "input" + std::to_string(argument.getArgNumber())));
  }

  // Inputs with dynamic dimensions: the sizes they accept.
  std::vector<fb::Offset<schema::InputBounds>> inputBounds;
  for (BlockArgument argument : func.getArguments()) {
    auto min = func.getArgAttrOfType<DenseI64ArrayAttr>(
        argument.getArgNumber(), "etch.min_sizes");
    auto max = func.getArgAttrOfType<DenseI64ArrayAttr>(
        argument.getArgNumber(), "etch.max_sizes");
    if (!min || !max)
      continue;
    std::vector<int64_t> low(min.asArrayRef().begin(), min.asArrayRef().end());
    std::vector<int64_t> high(max.asArrayRef().begin(), max.asArrayRef().end());
    inputBounds.push_back(schema::CreateInputBoundsDirect(
        fbb, argument.getArgNumber(), &low, &high));
  }
  // Sizes of dynamic shapes (sym_size and arithmetic on such sizes) are
  // computed while the runtime prepares new input shapes.
  llvm::DenseSet<Value> sizeValues;
  auto isShapeOnly = [&](Operation &op) {
    if (isa<edge::SymSizeOp>(op))
      return true;
    if (op.getNumResults() != 1 || op.getNumOperands() == 0)
      return false;
    auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!type || type.getRank() != 0 || !type.getElementType().isInteger(64))
      return false;
    bool readsSize = false;
    for (Value operand : op.getOperands()) {
      if (sizeValues.contains(operand))
        readsSize = true;
      else if (!operand.getDefiningOp<edge::ConstantOp>())
        return false;
    }
    return readsSize;
  };

  // Trailing results are mutable buffers' new contents, not outputs.
  auto mutations = func->getAttrOfType<ArrayAttr>("etch.buffer_mutations");
  size_t userResults = func.getNumResults() - (mutations ? mutations.size() : 0);
  std::vector<fb::Offset<schema::Instruction>> instructions;
  std::vector<fb::Offset<schema::InstructionDebug>> debug;
  std::vector<fb::Offset<schema::MutableBuffer>> mutableBuffers;
  for (Operation &op : func.getBody().front()) {
    if (isa<edge::ConstantOp>(op))
      continue;
    if (auto buffer = dyn_cast<edge::BufferOp>(op)) {
      FailureOr<fb::Offset<schema::MutableBuffer>> entry =
          mutableBuffer(state, buffer, mutations, userResults);
      if (failed(entry))
        return failure();
      mutableBuffers.push_back(*entry);
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, operand] :
           llvm::enumerate(ret.getOperands().take_front(userResults))) {
        FailureOr<uint32_t> index = tensorValue(state, operand, op.getLoc());
        if (failed(index))
          return failure();
        outputs.push_back(*index);
        auto name = func.getResultAttrOfType<StringAttr>(i, "etch.name");
        outputNames.push_back(fbb.CreateString(
            name ? name.getValue().str() : "output" + std::to_string(i)));
      }
      continue;
    }
    if (auto delegate = dyn_cast<edge::DelegateOp>(op)) {
      if (failed(addDelegateCall(state, delegate, instructions)))
        return failure();
      if (debugHandles)
        debug.push_back(instructionDebug(fbb, delegate));
      continue;
    }
    if (auto custom = dyn_cast<edge::CustomOp>(op)) {
      // Located at the model's source line; say which node and what to do.
      std::string node;
      if (auto named = dyn_cast<NameLoc>(op.getLoc()))
        node = "node '" + named.getName().str() + "' ";
      return op.emitError()
             << node << "(" << custom.getOpName()
             << "): etch has no Edge op or kernel for this operator. Export "
                "with ep.run_decompositions() so torch decomposes it into "
                "core ATen ops, or rewrite it with a pass plugin "
                "(docs/pass-plugins.md)";
    }
    if (op.getDialect() == nullptr || !isa<edge::EdgeDialect>(op.getDialect()))
      return op.emitError("op ")
             << op.getName() << " cannot be written to a program";

    // Operands in ODS order; absent optional operands keep their slot as -1
    // so each kernel sees a fixed layout.
    std::vector<int32_t> callInputs;
    auto pushOperands = [&](ValueRange operands) -> LogicalResult {
      for (Value operand : operands) {
        FailureOr<uint32_t> index = tensorValue(state, operand, op.getLoc());
        if (failed(index))
          return failure();
        callInputs.push_back(*index);
      }
      return success();
    };
    if (op.hasTrait<OpTrait::AttrSizedOperandSegments>()) {
      auto segments =
          op.getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
      unsigned next = 0;
      for (int32_t size : segments.asArrayRef()) {
        if (size == 0)
          callInputs.push_back(-1);
        else if (failed(pushOperands(op.getOperands().slice(next, size))))
          return failure();
        next += size;
      }
    } else if (failed(pushOperands(op.getOperands()))) {
      return failure();
    }
    std::vector<uint32_t> callOutputs;
    for (Value result : op.getResults()) {
      FailureOr<uint32_t> index = tensorValue(state, result, op.getLoc());
      if (failed(index))
        return failure();
      callOutputs.push_back(*index);
    }

    // Every inherent attribute, defaults included, so the runtime never
    // needs to know ODS defaults.
    NamedAttrList attributes(op.getAttrDictionary());
    op.getName().getRegisteredInfo()->populateDefaultAttrs(attributes);
    std::vector<fb::Offset<schema::NamedArgument>> callAttributes;
    for (const NamedAttribute &attribute : attributes) {
      StringRef name = attribute.getName().getValue();
      if (name == "operandSegmentSizes" || name.starts_with("etch."))
        continue;
      std::optional<uint32_t> index =
          attributeValue(state, attribute.getValue());
      if (!index)
        return op.emitError("attribute '")
               << name << "' cannot be written to a program";
      callAttributes.push_back(
          schema::CreateNamedArgumentDirect(fbb, name.str().c_str(), *index));
    }

    StringRef opName = op.getName().getStringRef();
    auto [it, inserted] =
        state.operatorIndex.try_emplace(opName, state.operators.size());
    if (inserted)
      state.operators.push_back(
          schema::CreateOperatorDirect(fbb, opName.str().c_str()));
    bool shapeOnly = isShapeOnly(op);
    if (shapeOnly)
      sizeValues.insert(op.getResult(0));
    auto call = schema::CreateKernelCallDirect(fbb, it->second, &callInputs,
                                               &callOutputs, &callAttributes,
                                               shapeOnly);
    instructions.push_back(schema::CreateInstruction(
        fbb, schema::InstructionKind::KernelCall, call.Union()));
    if (debugHandles)
      debug.push_back(instructionDebug(fbb, &op));
  }
  std::vector<uint64_t> arenaSizes = {
      static_cast<uint64_t>(arenaSize.getInt()) - state.stateBytes};
  if (state.stateBytes)
    arenaSizes.push_back(state.stateBytes);
  methods.push_back(schema::CreateMethodDirect(
      fbb, func.getSymName().str().c_str(), &state.values, &inputs, &outputs,
      &inputNames, &outputNames, &instructions, &state.operators,
      &state.delegates, &arenaSizes,
      inputBounds.empty() ? nullptr : &inputBounds,
      mutableBuffers.empty() ? nullptr : &mutableBuffers,
      debugHandles ? &debug : nullptr));
  return success();
}

FailureOr<fb::Offset<schema::MutableBuffer>>
ProgramBuilder::mutableBuffer(MethodState &state, edge::BufferOp buffer,
                              ArrayAttr mutations, size_t userResults) {
  auto func = buffer->getParentOfType<func::FuncOp>();
  Value update;
  if (mutations)
    for (auto [i, name] : llvm::enumerate(mutations))
      if (cast<StringAttr>(name).getValue() == buffer.getName())
        update = func.getBody().front().getTerminator()->getOperand(
            userResults + i);
  if (!update)
    return buffer.emitOpError("buffer '")
           << buffer.getName()
           << "' has no new contents among the function's results "
              "(etch.buffer_mutations)";
  if (update.getType() != buffer.getType())
    return buffer.emitOpError("buffer '")
           << buffer.getName() << "' is " << buffer.getType()
           << " but its new contents are " << update.getType();
  FailureOr<uint32_t> value = tensorValue(state, buffer, buffer.getLoc());
  FailureOr<uint32_t> updated = tensorValue(state, update, buffer.getLoc());
  if (failed(value) || failed(updated))
    return failure();
  // Zeros (a fresh KV cache) need no segment: the runtime clears it.
  SmallVector<char> storage;
  std::optional<ArrayRef<char>> bytes =
      edge::getConstantBytes(buffer.getValue(), storage);
  if (!bytes)
    return buffer.emitOpError("initial contents of buffer '")
           << buffer.getName() << "' are not available";
  int32_t initial = -1;
  if (llvm::any_of(*bytes, [](char byte) { return byte != 0; }))
    initial = segmentFor(*bytes, SegmentKind::Weights);
  return schema::CreateMutableBufferDirect(fbb, buffer.getName().str().c_str(),
                                           *value, *updated, initial);
}

void ProgramBuilder::setMetadata(DictionaryAttr entries) {
  for (NamedAttribute entry : entries)
    if (auto text = dyn_cast<StringAttr>(entry.getValue()))
      metadata.push_back(schema::CreateMetadataDirect(
          fbb, entry.getName().str().c_str(), text.getValue().str().c_str()));
}

void ProgramBuilder::addNamedData(const NamedData &data) {
  namedData.push_back(schema::CreateNamedDataDirect(
      fbb, data.name.c_str(),
      segmentFor(ArrayRef<char>(data.bytes.data(), data.bytes.size()),
                 SegmentKind::Program)));
}

void ProgramBuilder::finish(raw_ostream &os) {
  auto isExternal = [&](const SegmentData &segment) {
    return externalWeights && segment.kind == SegmentKind::Weights;
  };
  std::vector<fb::Offset<schema::Segment>> segmentTable;
  uint64_t offset = 0;
  for (const SegmentData &segment : segments) {
    if (isExternal(segment)) {
      externalWeights->add(
          ArrayRef<char>(segment.bytes.data(), segment.bytes.size()));
      segmentTable.push_back(schema::CreateSegment(
          fbb, 0, segment.bytes.size(), /*external=*/true, segment.checksum));
      continue;
    }
    segmentTable.push_back(
        schema::CreateSegment(fbb, offset, segment.bytes.size()));
    offset = (offset + segment.bytes.size() + runtime::kSegmentAlignment - 1) /
             runtime::kSegmentAlignment * runtime::kSegmentAlignment;
  }
  // The name only: the weights are found beside the program.
  std::string weightsName =
      externalWeights ? llvm::sys::path::filename(externalWeights->path()).str()
                      : "";
  auto program = schema::CreateProgramDirect(
      fbb, runtime::kProgramVersion, &methods, &segmentTable,
      metadata.empty() ? nullptr : &metadata,
      namedData.empty() ? nullptr : &namedData,
      externalWeights ? weightsName.c_str() : nullptr);
  schema::FinishProgramBuffer(fbb, program);

  runtime::FileHeader header;
  std::memcpy(header.magic, runtime::kProgramMagic, sizeof(header.magic));
  header.headerVersion = runtime::kFileHeaderVersion;
  header.reserved = 0;
  header.flatbufferOffset = sizeof(runtime::FileHeader);
  header.flatbufferSize = fbb.GetSize();
  os.write(reinterpret_cast<const char *>(&header), sizeof(header));
  os.write(reinterpret_cast<const char *>(fbb.GetBufferPointer()),
           fbb.GetSize());
  uint64_t position = sizeof(header) + fbb.GetSize();
  uint64_t base = runtime::segmentBase(header);
  auto pad = [&](uint64_t target) {
    for (; position < target; ++position)
      os << '\0';
  };
  pad(base);
  offset = 0;
  for (const SegmentData &segment : segments) {
    if (isExternal(segment))
      continue;
    pad(base + offset);
    os.write(segment.bytes.data(), segment.bytes.size());
    position += segment.bytes.size();
    offset = (offset + segment.bytes.size() + runtime::kSegmentAlignment - 1) /
             runtime::kSegmentAlignment * runtime::kSegmentAlignment;
  }
}

} // namespace

LogicalResult writeProgram(ModuleOp module, raw_ostream &os,
                           const ProgramWriteOptions &options) {
  ProgramBuilder builder(options.debugHandles, options.externalWeights);
  if (auto metadata = module->getAttrOfType<DictionaryAttr>("etch.metadata"))
    builder.setMetadata(metadata);
  for (const NamedData &data : options.namedData)
    builder.addNamedData(data);
  if (!options.bundled.empty()) {
    FailureOr<NamedData> cases = bundledCasesData(module, options.bundled);
    if (failed(cases))
      return failure();
    builder.addNamedData(*cases);
  }
  bool any = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (failed(builder.addMethod(func)))
      return failure();
    any = true;
  }
  if (!any)
    return module.emitError("module has no function to write as a method");
  builder.finish(os);
  return success();
}

} // namespace etch
