#include "TensorData.h"

#include <cstring>

namespace etch::torch_import {

int64_t scalarTypeSize(int code) {
  switch (static_cast<ScalarType>(code)) {
  case ScalarType::Byte:
  case ScalarType::Char:
  case ScalarType::Bool:
    return 1;
  case ScalarType::Short:
  case ScalarType::Half:
  case ScalarType::BFloat16:
    return 2;
  case ScalarType::Int:
  case ScalarType::Float:
    return 4;
  case ScalarType::Long:
  case ScalarType::Double:
    return 8;
  default:
    return 0;
  }
}

std::string scalarTypeName(int code) {
  switch (static_cast<ScalarType>(code)) {
  case ScalarType::Byte:
    return "uint8";
  case ScalarType::Char:
    return "int8";
  case ScalarType::Short:
    return "int16";
  case ScalarType::Int:
    return "int32";
  case ScalarType::Long:
    return "int64";
  case ScalarType::Half:
    return "float16";
  case ScalarType::Float:
    return "float32";
  case ScalarType::Double:
    return "float64";
  case ScalarType::Bool:
    return "bool";
  case ScalarType::BFloat16:
    return "bfloat16";
  case ScalarType::ComplexHalf:
  case ScalarType::ComplexFloat:
  case ScalarType::ComplexDouble:
    return "complex (unsupported)";
  }
  return "code " + std::to_string(code);
}

bool gatherStrided(const std::string &storage, int dtype,
                   const std::vector<int64_t> &sizes,
                   const std::vector<int64_t> &strides, int64_t storageOffset,
                   TensorData &out, std::string &error) {
  int64_t elementSize = scalarTypeSize(dtype);
  if (elementSize == 0) {
    error = "unsupported dtype " + scalarTypeName(dtype);
    return false;
  }
  if (sizes.size() != strides.size()) {
    error = "sizes and strides differ in length";
    return false;
  }
  int64_t storageElements = static_cast<int64_t>(storage.size()) / elementSize;
  // Every product and sum below comes from the file: checked, so a crafted
  // size or stride cannot wrap around the bounds check.
  int64_t count = 1, lastIndex = storageOffset;
  bool overflow = storageOffset < 0;
  for (size_t d = 0; d < sizes.size() && !overflow; ++d) {
    if (sizes[d] < 0 || strides[d] < 0) {
      error = "negative size or stride";
      return false;
    }
    int64_t reach = 0;
    overflow = __builtin_mul_overflow(count, sizes[d], &count) ||
               (sizes[d] > 0 &&
                (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
                 __builtin_add_overflow(lastIndex, reach, &lastIndex)));
  }
  if (overflow || (count > 0 && lastIndex >= storageElements)) {
    error = overflow ? std::string("sizes, strides or offset overflow")
                     : "needs element " + std::to_string(lastIndex) +
                           " but the storage holds " +
                           std::to_string(storageElements) + " elements (" +
                           std::to_string(storage.size()) + " bytes)";
    return false;
  }
  // A view with zero or overlapping strides can name more elements than its
  // storage holds; cap what such a view may expand to.
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, elementSize, &bytes) ||
      (count > storageElements && bytes > kMaxExpandedViewBytes)) {
    error = "a broadcast view of " + std::to_string(count) +
            " elements over a storage of " + std::to_string(storageElements) +
            " exceeds etch's limit of " +
            std::to_string(kMaxExpandedViewBytes >> 20) + " MiB";
    return false;
  }
  out.dtype = dtype;
  out.sizes = sizes;
  out.bytes.assign(bytes, '\0');
  // Walk the view in row-major order with an odometer over the sizes.
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t source = storageOffset;
    for (size_t d = 0; d < sizes.size(); ++d)
      source += index[d] * strides[d];
    std::memcpy(&out.bytes[flat * elementSize],
                storage.data() + source * elementSize, elementSize);
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return true;
}

} // namespace etch::torch_import
