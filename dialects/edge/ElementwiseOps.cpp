//===- ElementwiseOps.cpp - Binary arithmetic and activation ops ----------===//
#include "edge/EdgeDialect.h"
#include "edge/InferenceRules.h"

using namespace mlir;
using namespace etch::edge;

/// Broadcasts `self` with `other` (NumPy rules); both must share an element
/// type because importers make ATen's type promotion explicit.
/// The broadcast of \p self and \p other's shapes into \p shape, or an
/// error naming both.
static LogicalResult operandsBroadcast(std::optional<Location> location,
                                       StringRef opName, Value self,
                                       Value other,
                                       SmallVectorImpl<int64_t> &shape) {
  ArrayRef<int64_t> lhs = rankedType(self).getShape(),
                    rhs = rankedType(other).getShape();
  if (broadcastShapes(lhs, rhs, shape))
    return success();
  return emitInferenceError(location, opName,
                            "operand shapes " + formatShape(lhs) + " and " +
                                formatShape(rhs) + " do not broadcast");
}

LogicalResult etch::edge::inferBroadcastResult(std::optional<Location> location,
                                               StringRef opName, Value self,
                                               Value other,
                                               SmallVectorImpl<Type> &types) {
  RankedTensorType lhs = rankedType(self), rhs = rankedType(other);
  if (lhs.getElementType() != rhs.getElementType())
    return emitInferenceError(location, opName,
                              Twine("operands have different element types (") +
                                  formatType(lhs.getElementType()) + " vs " +
                                  formatType(rhs.getElementType()) + ")");
  SmallVector<int64_t> shape;
  if (failed(operandsBroadcast(location, opName, self, other, shape)))
    return failure();
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(inferBroadcastResult(location, name, adaptor.getSelf(),
                                  adaptor.getOther(), types)))
    return failure();
  auto values = cast<RankedTensorType>(types.back());
  SmallVector<int64_t> shape;
  if (!broadcastShapes(values.getShape(),
                       rankedType(adaptor.getCondition()).getShape(), shape))
    return emitInferenceError(
        location, name,
        "condition of shape " +
            formatShape(rankedType(adaptor.getCondition()).getShape()) +
            " does not broadcast with " + formatShape(values.getShape()));
  types.back() = values.clone(shape);
  return success();
}

LogicalResult DivOp::verify() {
  std::optional<StringRef> mode = getRoundingMode();
  if (mode && *mode != "trunc" && *mode != "floor")
    return emitOpError("rounding_mode must be 'trunc' or 'floor', got '")
           << *mode << "'";
  return success();
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be 'none' or 'tanh', got '")
           << getApproximate() << "'";
  return success();
}

LogicalResult HardtanhOp::verify() {
  if (getMinVal().convertToDouble() > getMaxVal().convertToDouble())
    return emitOpError("min_val ")
           << getMinVal().convertToDouble() << " is greater than max_val "
           << getMaxVal().convertToDouble();
  return success();
}

LogicalResult ClampOp::verify() {
  std::optional<APFloat> low = getMin(), high = getMax();
  if (!low && !high)
    return emitOpError("needs at least one of min and max");
  if (low && high && low->convertToDouble() > high->convertToDouble())
    return emitOpError("min ")
           << low->convertToDouble() << " is greater than max "
           << high->convertToDouble();
  return success();
}

/// Logical ops read any element type as truth values: only shapes broadcast.
LogicalResult etch::edge::inferLogicalResult(MLIRContext *context,
                                             std::optional<Location> location,
                                             StringRef opName, Value self,
                                             Value other,
                                             SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape;
  if (failed(operandsBroadcast(location, opName, self, other, shape)))
    return failure();
  types.push_back(RankedTensorType::get(shape, IntegerType::get(context, 1)));
  return success();
}
