// How weight-only quantized weights are stored for edge.weight_only_linear
// and edge.weight_only_embedding: the one definition the compiler packs by
// and every kernel reads by.
//
//   bits 8: int8 [N, K], row-major.
//   bits 4: [N, K / 2] bytes; each row is blocks of 32 columns in 16 bytes:
//           byte j of a block holds column j (low nibble) and column j + 16
//           (high nibble), each stored as value + 8 (0..15 for -8..7). One
//           16-byte load then widens to columns 0..15 and 16..31 in order.
//
// Scales (and optional int8 zero points) are [N, K / group_size]; for 4
// bits, group_size is a multiple of the 32-column block.
#pragma once

#include <cstdint>

namespace etch::runtime::weight_packing {

inline constexpr int64_t kInt4Block = 32;
inline constexpr int kInt4Offset = 8;

/// Bytes of one packed row of \p columns values.
inline int64_t rowBytes(int bits, int64_t columns) {
  return bits == 4 ? columns / 2 : columns;
}

/// Values in a packed row of \p bytes (rowBytes' inverse).
inline int64_t rowColumns(int bits, int64_t bytes) {
  return bits == 4 ? bytes * 2 : bytes;
}

/// Byte offset and nibble shift of column \p k within a 4-bit row.
inline void int4Position(int64_t k, int64_t &byte, int &shift) {
  int64_t block = k / kInt4Block, column = k % kInt4Block;
  byte = block * (kInt4Block / 2) + column % (kInt4Block / 2);
  shift = column < kInt4Block / 2 ? 0 : 4;
}

/// The value (-8..7) of column \p k of a 4-bit row.
inline int int4At(const uint8_t *row, int64_t k) {
  int64_t byte;
  int shift;
  int4Position(k, byte, shift);
  return ((row[byte] >> shift) & 0xF) - kInt4Offset;
}

/// Stores \p value (-8..7) as column \p k of a 4-bit row (zeroed first).
inline void setInt4(uint8_t *row, int64_t k, int value) {
  int64_t byte;
  int shift;
  int4Position(k, byte, shift);
  row[byte] = static_cast<uint8_t>(
      (row[byte] & ~(0xF << shift)) | ((value + kInt4Offset) << shift));
}

/// The stored value of column \p k of row \p row (either width).
inline int quantizedAt(int bits, const uint8_t *row, int64_t k) {
  return bits == 4 ? int4At(row, k)
                   : static_cast<int8_t>(row[k]);
}

} // namespace etch::runtime::weight_packing
