//===- EdgeDialect.cpp - Edge dialect registration, constant op -----------===//
#include "edge/EdgeDialect.h"
#include "edge/InferenceRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace etch::edge;

#include "edge/EdgeDialect.cpp.inc"
#include "edge/EdgeInterfaces.cpp.inc"

void EdgeDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "edge/EdgeOps.cpp.inc"
      >();
}

Operation *EdgeDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!elements || !tensor ||
      (elements.getType() != type &&
       elements.getType() != storageTensorType(tensor)))
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::verify() {
  auto valueType = dyn_cast<RankedTensorType>(getValue().getType());
  if (!valueType)
    return emitOpError("value must be a ranked tensor, got ")
           << getValue().getType();
  auto resultType = cast<RankedTensorType>(getType());
  if (valueType == resultType)
    return success();
  if (!isQuantized(resultType))
    return emitOpError("value type ")
           << valueType << " differs from result type " << resultType;
  if (valueType != storageTensorType(resultType))
    return emitOpError("a quantized constant must hold its storage type ")
           << storageTensorType(resultType) << ", got " << valueType;
  return verifyQuantizedTensor(getOperation(), resultType);
}

// `edge.constant <value> [as <quantized type>]`: the value's own type is the
// result type unless a quantized type follows.
ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  ElementsAttr value;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseAttribute(value, "value", result.attributes))
    return failure();
  Type resultType = value.getType();
  if (succeeded(parser.parseOptionalKeyword("as")) &&
      parser.parseType(resultType))
    return failure();
  result.addTypes(resultType);
  return success();
}

void ConstantOp::print(OpAsmPrinter &printer) {
  printer.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  printer << ' ';
  printer.printAttribute(getValue());
  if (getValue().getType() != getType())
    printer << " as " << getType();
}

//===----------------------------------------------------------------------===//
// BufferOp
//===----------------------------------------------------------------------===//

LogicalResult BufferOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &types) {
  auto *props = properties.as<Properties *>();
  if (!props || !props->value)
    return failure();
  types.push_back(props->value.getType());
  return success();
}

LogicalResult BufferOp::verify() {
  if (getName().empty())
    return emitOpError("needs the buffer's name");
  auto type = dyn_cast<RankedTensorType>(getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("a buffer needs a statically shaped tensor value, got ")
           << getValue().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// CustomOp
//===----------------------------------------------------------------------===//

LogicalResult CustomOp::verify() {
  if (getOpName().empty())
    return emitOpError("needs a non-empty op_name naming the source operator");
  return success();
}

//===----------------------------------------------------------------------===//
// DelegateOp
//===----------------------------------------------------------------------===//

LogicalResult DelegateOp::verify() {
  if (getTarget().empty())
    return emitOpError("needs a target name");
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments for " << getInputs().size()
           << " inputs";
  for (auto [argument, input] : llvm::zip(body.getArguments(), getInputs()))
    if (argument.getType() != input.getType())
      return emitOpError("body argument type ")
             << argument.getType() << " differs from input type "
             << input.getType();
  auto terminator = cast<DelegateReturnOp>(body.getTerminator());
  if (terminator.getOperandTypes() != getResultTypes())
    return emitOpError("returns ")
           << terminator.getOperandTypes().size()
           << " values whose types differ from the op's results";
  return success();
}

#define GET_OP_CLASSES
#include "edge/EdgeOps.cpp.inc"
