// Runtime error codes, grouped by kind so callers can tell a bad input from a
// bad program file without string matching. One row each: the enumerator (also
// its name in logs), its code, and the C API's name after "ETCH_"
// (include/etch/c/etch_runtime.h, checked row by row in runtime/c/CApi.cpp).
#pragma once

#include <cstdint>

#define ETCH_FOR_EACH_ERROR(X)                                                 \
  X(Ok, 0x00, OK)                                                              \
  X(Internal, 0x01, INTERNAL)                                                  \
  X(NotSupported, 0x02, NOT_SUPPORTED)                                         \
  X(NotImplemented, 0x03, NOT_IMPLEMENTED)                                     \
  /* The caller passed something wrong. */                                     \
  X(InvalidArgument, 0x10, INVALID_ARGUMENT)                                   \
  X(InvalidType, 0x11, INVALID_TYPE)                                           \
  X(InvalidShape, 0x12, INVALID_SHAPE)                                         \
  X(IndexOutOfRange, 0x13, INDEX_OUT_OF_RANGE)                                 \
  /* The environment could not provide something. */                           \
  X(MemoryAllocationFailed, 0x20, MEMORY_ALLOCATION_FAILED)                    \
  X(AccessFailed, 0x21, ACCESS_FAILED)                                         \
  X(NotFound, 0x22, NOT_FOUND)                                                 \
  /* The program file is malformed. */                                         \
  X(InvalidProgram, 0x30, INVALID_PROGRAM)                                     \
  X(ProgramVersionMismatch, 0x31, PROGRAM_VERSION_MISMATCH)                    \
  X(OperatorMissing, 0x32, OPERATOR_MISSING)                                   \
  /* An external weights file is damaged, or is not the program's. */          \
  X(InvalidWeights, 0x33, INVALID_WEIGHTS)                                     \
  X(WeightsMismatch, 0x34, WEIGHTS_MISMATCH)                                   \
  /* A delegate failed. */                                                     \
  X(DelegateInvalidBlob, 0x40, DELEGATE_INVALID_BLOB)                          \
  X(DelegateInitFailed, 0x41, DELEGATE_INIT_FAILED)                            \
  X(DelegateExecuteFailed, 0x42, DELEGATE_EXECUTE_FAILED)                      \
  X(DelegateMissing, 0x43, DELEGATE_MISSING)

namespace etch::runtime {

enum class Error : uint32_t {
#define ETCH_ERROR_ENUMERATOR(name, code, cName) name = code,
  ETCH_FOR_EACH_ERROR(ETCH_ERROR_ENUMERATOR)
#undef ETCH_ERROR_ENUMERATOR
};

/// A short stable name for \p error, for logs and tool output.
const char *errorName(Error error);

} // namespace etch::runtime
