//===- WeightOnlyOps.cpp - Groupwise dequantize, weight-only linear -------===//
//
// The verifiers hold what the kernels index by: scales (and zero points)
// of one value per output row and column group, groups that divide the
// columns, and packed weights whose shape matches their bit width
// (runtime/kernels/portable/WeightPacking.h).
//
//===----------------------------------------------------------------------===//
#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"
#include "runtime/kernels/portable/WeightPacking.h"

using namespace mlir;
namespace packing = etch::runtime::weight_packing;

namespace etch::edge {
namespace {

/// Scales [rows, columns / group] (float) and zero points of that shape
/// (integer), when present.
LogicalResult verifyGroupParameters(Operation *op, Value scales,
                                    Value zeroPoints, int64_t rows,
                                    int64_t columns, int64_t group) {
  if (group <= 0)
    return op->emitOpError() << "group_size must be positive, got " << group;
  if (!ShapedType::isDynamic(columns) && columns % group != 0)
    return op->emitOpError() << "group_size " << group
                             << " does not divide the " << columns
                             << " columns";
  int64_t groups =
      ShapedType::isDynamic(columns) ? ShapedType::kDynamic : columns / group;
  auto shapeIs = [&](Value value) {
    ArrayRef<int64_t> shape = rankedType(value).getShape();
    return shape.size() == 2 && extentsAgree(shape[0], rows) &&
           extentsAgree(shape[1], groups);
  };
  if (!shapeIs(scales))
    return op->emitOpError() << "scales must be [" << rows << ", " << groups
                             << "] (one per row and group), got "
                             << scales.getType();
  if (zeroPoints && !shapeIs(zeroPoints))
    return op->emitOpError() << "zero_points must be [" << rows << ", "
                             << groups << "] like the scales, got "
                             << zeroPoints.getType();
  return success();
}

/// A packed weight-only table [rows, K] (K as the op computes with it): its
/// storage type and shape for \p bits, and its group parameters.
LogicalResult verifyPackedWeight(Operation *op, Value weight, Value scales,
                                 Value zeroPoints, int64_t bits, int64_t group,
                                 int64_t &rows, int64_t &columns) {
  auto type = rankedType(weight);
  if (bits != 4 && bits != 8)
    return op->emitOpError() << "bits must be 4 or 8, got " << bits;
  Type storage = IntegerType::get(
      op->getContext(), 8,
      bits == 4 ? IntegerType::Unsigned : IntegerType::Signless);
  if (type.getRank() != 2 || type.getElementType() != storage)
    return op->emitOpError() << "a " << bits << "-bit weight is stored as "
                             << storage << " [rows, "
                             << (bits == 4 ? "columns / 2" : "columns")
                             << "], got " << weight.getType();
  rows = type.getDimSize(0);
  columns = type.getDimSize(1);
  if (bits == 4 && !ShapedType::isDynamic(columns)) {
    columns = packing::rowColumns(bits, columns);
    if (columns % packing::kInt4Block != 0 || group % packing::kInt4Block != 0)
      return op->emitOpError()
             << "4-bit weights pack columns in blocks of "
             << packing::kInt4Block << ": the " << columns
             << " columns and group_size " << group << " must be multiples";
  }
  if (zeroPoints && !rankedType(zeroPoints).getElementType().isInteger(8))
    return op->emitOpError() << "zero_points must be i8, got "
                             << zeroPoints.getType();
  return verifyGroupParameters(op, scales, zeroPoints, rows, columns, group);
}

LogicalResult verifyShape(Operation *op, Value result,
                          ArrayRef<int64_t> expected) {
  if (failed(verifyResultShape(op, expected)))
    return failure();
  if (!rankedType(result).getElementType().isF32())
    return op->emitOpError() << "result must be f32, got "
                             << result.getType();
  return success();
}

} // namespace

LogicalResult DequantizePerChannelGroupOp::verify() {
  RankedTensorType input = rankedType(getInput());
  if (input.getRank() != 2)
    return emitOpError() << "input must be 2-D [rows, columns], got "
                         << getInput().getType();
  // I64Attr getters are unsigned: read the attributes as signed.
  int64_t low = getQuantMinAttr().getInt(), high = getQuantMaxAttr().getInt();
  if (low > high)
    return emitOpError() << "quant_min " << low << " exceeds quant_max "
                         << high;
  if (failed(verifyGroupParameters(*this, getScales(), getZeroPoints(),
                                   input.getDimSize(0), input.getDimSize(1),
                                   getGroupSize())))
    return failure();
  return verifyShape(*this, getResult(), input.getShape());
}

LogicalResult WeightOnlyLinearOp::verify() {
  int64_t rows, columns;
  if (failed(verifyPackedWeight(*this, getWeight(), getScales(),
                                getZeroPoints(), getBits(), getGroupSize(),
                                rows, columns)))
    return failure();
  RankedTensorType input = rankedType(getInput());
  if (input.getRank() < 1 || !extentsAgree(input.getShape().back(), columns))
    return emitOpError() << "input " << getInput().getType()
                         << " must end in the weight's " << columns
                         << " columns";
  if (getBias()) {
    RankedTensorType bias = rankedType(getBias());
    if (bias.getRank() != 1 || !extentsAgree(bias.getDimSize(0), rows) ||
        !bias.getElementType().isF32())
      return emitOpError() << "bias must be f32 [" << rows << "], got "
                           << getBias().getType();
  }
  SmallVector<int64_t> expected(input.getShape());
  expected.back() = rows;
  return verifyShape(*this, getResult(), expected);
}

LogicalResult WeightOnlyEmbeddingOp::verify() {
  int64_t rows, columns;
  if (failed(verifyPackedWeight(*this, getWeight(), getScales(),
                                getZeroPoints(), getBits(), getGroupSize(),
                                rows, columns)))
    return failure();
  SmallVector<int64_t> expected(rankedType(getIndices()).getShape());
  expected.push_back(columns);
  return verifyShape(*this, getResult(), expected);
}

} // namespace etch::edge
