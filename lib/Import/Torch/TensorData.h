//===- TensorData.h - Weights read from a .pt2 ------------------*- C++ -*-===//
#ifndef ETCH_LIB_IMPORT_TORCH_TENSORDATA_H
#define ETCH_LIB_IMPORT_TORCH_TENSORDATA_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace etch::torch_import {

/// torch.export schema ScalarType codes (torch/_export/serde/schema.py).
enum class ScalarType : int {
  Byte = 1,
  Char = 2,
  Short = 3,
  Int = 4,
  Long = 5,
  Half = 6,
  Float = 7,
  Double = 8,
  ComplexHalf = 9,
  ComplexFloat = 10,
  ComplexDouble = 11,
  Bool = 12,
  BFloat16 = 13,
};

/// Bytes per element, or 0 for codes etch does not support.
int64_t scalarTypeSize(int code);
/// A readable name ("float32") for diagnostics; "code N" when unknown.
std::string scalarTypeName(int code);

/// A tensor's contiguous row-major bytes plus dtype and sizes.
struct TensorData {
  int dtype = 0; // ScalarType code
  std::vector<int64_t> sizes;
  std::string bytes;
};

/// The most bytes a view with zero or overlapping strides (more elements than
/// its storage) may expand to when materialised.
inline constexpr int64_t kMaxExpandedViewBytes = int64_t(256) << 20;

/// Copies the strided view (sizes, strides, storageOffset in elements) out of
/// \p storage into contiguous bytes, checking every index against the
/// storage. Returns false with \p error when the view does not fit.
bool gatherStrided(const std::string &storage, int dtype,
                   const std::vector<int64_t> &sizes,
                   const std::vector<int64_t> &strides, int64_t storageOffset,
                   TensorData &out, std::string &error);

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_TENSORDATA_H
