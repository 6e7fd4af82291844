// Element types, one row each: the enumerator, its code (the same number in
// runtime/schema/program.fbs and include/etch/c/etch_runtime.h, checked row by
// row where those are compiled against the runtime), bytes per element, the
// name messages and tools print, and the C API's name after "ETCH_".
#pragma once

#include <cstddef>
#include <cstdint>

#define ETCH_FOR_EACH_SCALAR_TYPE(X)                                           \
  X(Float32, 0, 4, "float32", FLOAT32)                                         \
  X(Float16, 1, 2, "float16", FLOAT16)                                         \
  X(Float64, 2, 8, "float64", FLOAT64)                                         \
  X(BFloat16, 3, 2, "bfloat16", BFLOAT16)                                      \
  X(Int8, 4, 1, "int8", INT8)                                                  \
  X(UInt8, 5, 1, "uint8", UINT8)                                               \
  X(Int16, 6, 2, "int16", INT16)                                               \
  X(Int32, 7, 4, "int32", INT32)                                               \
  X(Int64, 8, 8, "int64", INT64)                                               \
  X(Bool, 9, 1, "bool", BOOL)                                                  \
  X(UInt16, 10, 2, "uint16", UINT16)                                           \
  X(UInt32, 11, 4, "uint32", UINT32)                                           \
  X(UInt64, 12, 8, "uint64", UINT64)

namespace etch::runtime {

enum class ScalarType : uint8_t {
#define ETCH_SCALAR_TYPE_ENUMERATOR(name, code, size, text, cName) name = code,
  ETCH_FOR_EACH_SCALAR_TYPE(ETCH_SCALAR_TYPE_ENUMERATOR)
#undef ETCH_SCALAR_TYPE_ENUMERATOR
};

/// Codes run from 0 to this without gaps (the table's rows are in code order),
/// so a stored byte is a valid type exactly when it is at most this.
inline constexpr uint8_t kLastScalarType =
    0
#define ETCH_SCALAR_TYPE_COUNT(name, code, size, text, cName) +1
    ETCH_FOR_EACH_SCALAR_TYPE(ETCH_SCALAR_TYPE_COUNT) -
    1;
#undef ETCH_SCALAR_TYPE_COUNT

#define ETCH_SCALAR_TYPE_IN_ORDER(name, code, size, text, cName)               \
  static_assert(code <= kLastScalarType, "scalar type codes have no gaps");
ETCH_FOR_EACH_SCALAR_TYPE(ETCH_SCALAR_TYPE_IN_ORDER)
#undef ETCH_SCALAR_TYPE_IN_ORDER

/// Bytes per element.
size_t elementSize(ScalarType type);
/// "float32", "int64", ... for messages and tools.
const char *scalarTypeName(ScalarType type);

} // namespace etch::runtime
