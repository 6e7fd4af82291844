#include "WeightOnlyTable.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "runtime/kernels/portable/WeightPacking.h"

#include <cstring>

using namespace mlir;
using namespace etch::edge;
namespace packing = etch::runtime::weight_packing;

namespace etch::quantization {
namespace {

/// The values of an integer constant of \p storage type (any width, signed
/// or unsigned), or std::nullopt.
std::optional<std::vector<int64_t>> integerValues(ElementsAttr value,
                                                  Type storage) {
  auto integer = dyn_cast<IntegerType>(storage);
  if (!integer || integer.getWidth() % 8 != 0 || integer.getWidth() > 64)
    return std::nullopt;
  SmallVector<char> buffer;
  std::optional<ArrayRef<char>> bytes = getConstantBytes(value, buffer);
  size_t width = integer.getWidth() / 8;
  if (!bytes || bytes->size() % width != 0)
    return std::nullopt;
  std::vector<int64_t> values(bytes->size() / width);
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, bytes->data() + i * width, width); // little-endian
    int shift = 64 - integer.getWidth();
    values[i] = integer.isUnsigned()
                    ? static_cast<int64_t>(raw)
                    : (static_cast<int64_t>(raw << shift) >> shift);
  }
  return values;
}

/// A table read from the IR before its values are narrowed to int8.
struct WideTable {
  int64_t rows, columns, group;
  std::vector<int64_t> values, zeroPoints; // zeroPoints: one per group
  std::vector<float> scales;
  int64_t qmin, qmax;

  void transpose() { // [columns, rows] as read -> [rows, columns]
    std::vector<int64_t> transposed(values.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c)
        transposed[r * columns + c] = values[c * rows + r];
    values = std::move(transposed);
  }
};

std::optional<WideTable> readDequantize(DequantizeOp dequantize,
                                        bool transposed) {
  auto constant = dequantize.getInput().getDefiningOp<ConstantOp>();
  auto type = cast<RankedTensorType>(dequantize.getInput().getType());
  auto element = dyn_cast<quant::QuantizedType>(type.getElementType());
  if (!constant || type.getRank() != 2 || !type.hasStaticShape() || !element ||
      element.getStorageTypeIntegralWidth() > 8 ||
      !element.getExpressedType().isF32())
    return std::nullopt;
  std::optional<std::vector<int64_t>> values =
      integerValues(constant.getValue(), storageElementType(element));
  if (!values)
    return std::nullopt;
  WideTable table;
  table.rows = type.getDimSize(transposed ? 1 : 0);
  table.columns = type.getDimSize(transposed ? 0 : 1);
  table.group = table.columns;
  table.values = std::move(*values);
  table.qmin = element.getStorageTypeMin();
  table.qmax = element.getStorageTypeMax();
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(element)) {
    table.scales.assign(table.rows, uniform.getScale());
    table.zeroPoints.assign(table.rows, uniform.getZeroPoint());
  } else {
    auto perAxis = cast<quant::UniformQuantizedPerAxisType>(element);
    // One scale per output feature: the rows.
    if (perAxis.getQuantizedDimension() != (transposed ? 1 : 0))
      return std::nullopt;
    table.scales.assign(perAxis.getScales().begin(), perAxis.getScales().end());
    table.zeroPoints.assign(perAxis.getZeroPoints().begin(),
                            perAxis.getZeroPoints().end());
  }
  if (transposed)
    table.transpose();
  return table;
}

std::optional<WideTable> readGroupDequantize(DequantizePerChannelGroupOp op) {
  auto input = op.getInput().getDefiningOp<ConstantOp>();
  auto type = cast<RankedTensorType>(op.getInput().getType());
  std::optional<SmallVector<double>> scales =
      getConstantNumbers(op.getScales());
  if (!input || !type.hasStaticShape() || !scales)
    return std::nullopt;
  std::optional<std::vector<int64_t>> values =
      integerValues(input.getValue(), type.getElementType());
  if (!values)
    return std::nullopt;
  WideTable table;
  table.rows = type.getDimSize(0);
  table.columns = type.getDimSize(1);
  table.group = op.getGroupSizeAttr().getInt();
  table.values = std::move(*values);
  table.scales.assign(scales->begin(), scales->end());
  table.zeroPoints.assign(table.scales.size(), 0);
  if (Value zeroPoints = op.getZeroPoints()) {
    std::optional<SmallVector<double>> numbers = getConstantNumbers(zeroPoints);
    if (!numbers)
      return std::nullopt;
    table.zeroPoints.assign(numbers->begin(), numbers->end());
  }
  table.qmin = op.getQuantMinAttr().getInt();
  table.qmax = op.getQuantMaxAttr().getInt();
  return table;
}

std::optional<WideTable> readWide(Value weight, bool transposed) {
  if (auto permute = weight.getDefiningOp<PermuteOp>()) {
    ArrayRef<int64_t> dims = permute.getDims();
    bool swaps = dims.size() == 2 && dims[0] == 1 && dims[1] == 0;
    return swaps && transposed ? readWide(permute.getSelf(), false)
                               : std::nullopt;
  }
  if (auto dequantize = weight.getDefiningOp<DequantizeOp>())
    return readDequantize(dequantize, transposed);
  if (auto group = weight.getDefiningOp<DequantizePerChannelGroupOp>())
    return transposed ? std::nullopt : readGroupDequantize(group);
  return std::nullopt;
}

/// Whether \p values all lie in [low, high] after adding \p shift.
bool fits(const std::vector<int64_t> &values, int64_t shift, int64_t low,
          int64_t high) {
  for (int64_t value : values)
    if (value + shift < low || value + shift > high)
      return false;
  return true;
}

} // namespace

std::optional<WeightOnlyTable> readWeightOnlyTable(Value weight,
                                                   bool transposed) {
  std::optional<WideTable> wide = readWide(weight, transposed);
  if (!wide || wide->group <= 0 || wide->columns % wide->group != 0 ||
      static_cast<int64_t>(wide->scales.size()) !=
          wide->rows * (wide->columns / wide->group))
    return std::nullopt;
  // The declared range picks the width (an int8 weight stays 8 bits even
  // when its values happen to be small). Unsigned storage moves down so
  // values are signed; zero points move with them, which leaves (q - zp)
  // unchanged.
  int64_t shift = 0;
  int bits = 0;
  bool blocks = wide->columns % packing::kInt4Block == 0 &&
                wide->group % packing::kInt4Block == 0;
  for (auto [candidateBits, candidateShift] :
       {std::pair{4, int64_t(0)}, {4, int64_t(-8)}, {8, int64_t(0)},
        {8, int64_t(-128)}}) {
    int64_t low = candidateBits == 4 ? -8 : -128,
            high = candidateBits == 4 ? 7 : 127;
    bool declared = wide->qmin + candidateShift >= low &&
                    wide->qmax + candidateShift <= high;
    if (!declared || (candidateBits == 4 && !blocks) ||
        !fits(wide->values, candidateShift, low, high) ||
        !fits(wide->zeroPoints, candidateShift, -128, 127))
      continue;
    bits = candidateBits;
    shift = candidateShift;
    break;
  }
  if (!bits)
    return std::nullopt;
  WeightOnlyTable table;
  table.bits = bits;
  table.rows = wide->rows;
  table.columns = wide->columns;
  table.group = wide->group;
  table.values.reserve(wide->values.size());
  for (int64_t value : wide->values)
    table.values.push_back(static_cast<int8_t>(value + shift));
  table.scales = std::move(wide->scales);
  bool anyZeroPoint = false;
  for (int64_t zeroPoint : wide->zeroPoints)
    anyZeroPoint |= zeroPoint + shift != 0;
  if (anyZeroPoint)
    for (int64_t zeroPoint : wide->zeroPoints)
      table.zeroPoints.push_back(static_cast<int8_t>(zeroPoint + shift));
  return table;
}

PackedWeightOnly packWeightOnlyTable(OpBuilder &builder, Location loc,
                                     const WeightOnlyTable &table) {
  MLIRContext *context = builder.getContext();
  int64_t groups = table.columns / table.group;
  std::string bytes;
  Type storage;
  int64_t packedColumns = packing::rowBytes(table.bits, table.columns);
  if (table.bits == 4) {
    bytes.assign(table.rows * packedColumns, '\0');
    for (int64_t r = 0; r < table.rows; ++r) {
      auto *row = reinterpret_cast<uint8_t *>(bytes.data()) + r * packedColumns;
      for (int64_t c = 0; c < table.columns; ++c)
        packing::setInt4(row, c, table.values[r * table.columns + c]);
    }
    storage = IntegerType::get(context, 8, IntegerType::Unsigned);
  } else {
    bytes.assign(reinterpret_cast<const char *>(table.values.data()),
                 table.values.size());
    storage = IntegerType::get(context, 8);
  }
  auto weightType =
      RankedTensorType::get({table.rows, packedColumns}, storage);
  auto groupType = [&](Type element) {
    return RankedTensorType::get({table.rows, groups}, element);
  };
  PackedWeightOnly packed;
  packed.weight = builder.create<ConstantOp>(
      loc, makeConstantFromOwnedBytes(weightType, std::move(bytes),
                                      "weight_only_packed"));
  packed.scales = builder.create<ConstantOp>(
      loc, makeFloatConstant(groupType(builder.getF32Type()), table.scales,
                             "weight_only_scales"));
  if (!table.zeroPoints.empty())
    packed.zeroPoints = builder.create<ConstantOp>(
        loc, makeConstantFromBytes(
                 groupType(builder.getI8Type()),
                 ArrayRef<char>(
                     reinterpret_cast<const char *>(table.zeroPoints.data()),
                     table.zeroPoints.size()),
                 "weight_only_zero_points"));
  return packed;
}

} // namespace etch::quantization
