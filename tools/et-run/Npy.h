// Reading and writing NumPy .npy files (versions 1-3, little-endian, C order).
#pragma once

#include "runtime/core/ScalarType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etch::tools {

struct NpyArray {
  runtime::ScalarType type = runtime::ScalarType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// Reads \p path; on failure returns false with \p error saying why.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);
bool writeNpy(const std::string &path, runtime::ScalarType type,
              const int64_t *shape, int rank, const void *data, size_t nbytes,
              std::string &error);

} // namespace etch::tools
