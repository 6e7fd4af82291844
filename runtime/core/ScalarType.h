// Element types, numbered as in runtime/schema/program.fbs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etch::runtime {

enum class ScalarType : uint8_t {
  Float32 = 0,
  Float16 = 1,
  Float64 = 2,
  BFloat16 = 3,
  Int8 = 4,
  UInt8 = 5,
  Int16 = 6,
  Int32 = 7,
  Int64 = 8,
  Bool = 9,
  UInt16 = 10,
  UInt32 = 11,
  UInt64 = 12,
};

inline constexpr uint8_t kLastScalarType = 12;

/// Bytes per element.
size_t elementSize(ScalarType type);
/// "float32", "int64", ... for messages and tools.
const char *scalarTypeName(ScalarType type);

} // namespace etch::runtime
