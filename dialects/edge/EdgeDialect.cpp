//===- EdgeDialect.cpp - Edge dialect registration, constant op -----------===//
#include "edge/EdgeDialect.h"

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
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::verify() {
  if (!isa<RankedTensorType>(getValue().getType()))
    return emitOpError("value must be a ranked tensor, got ")
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
