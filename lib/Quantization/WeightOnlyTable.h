//===- WeightOnlyTable.h - Dequantized constant weights as int tables ----===//
//
// A weight W[rows, columns] (rows: output features) that the program
// dequantizes from constants -- edge.dequantize of a quantized constant
// (per channel or per tensor) or edge.dequantize_per_channel_group of
// integer constants -- read back as integers with their scales and zero
// points, and packed the way the weight-only kernels read it
// (runtime/kernels/portable/WeightPacking.h).
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_QUANTIZATION_WEIGHTONLYTABLE_H
#define ETCH_LIB_QUANTIZATION_WEIGHTONLYTABLE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <vector>

namespace etch::quantization {

struct WeightOnlyTable {
  int bits = 8; // 4 when every value and zero point fits -8..7
  int64_t rows = 0, columns = 0, group = 0;
  std::vector<int8_t> values;     // [rows, columns], row-major
  std::vector<float> scales;      // [rows, columns / group]
  std::vector<int8_t> zeroPoints; // same shape; empty when all zero
};

/// The table \p weight dequantizes, when it is a dequantized constant of
/// 8 or fewer bits. With \p transposed, \p weight is W^T [columns, rows]
/// (mm/addmm operands): a permute of a dequantized W, or a dequantize
/// quantized along dim 1.
std::optional<WeightOnlyTable> readWeightOnlyTable(mlir::Value weight,
                                                   bool transposed);

/// The packed weight, scales and (null when all zero) zero points as
/// edge.constant ops.
struct PackedWeightOnly {
  mlir::Value weight, scales, zeroPoints;
};
PackedWeightOnly packWeightOnlyTable(mlir::OpBuilder &builder,
                                     mlir::Location loc,
                                     const WeightOnlyTable &table);

} // namespace etch::quantization

#endif // ETCH_LIB_QUANTIZATION_WEIGHTONLYTABLE_H
