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

#define GET_OP_CLASSES
#include "edge/EdgeOps.cpp.inc"
