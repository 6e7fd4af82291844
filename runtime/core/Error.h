// Runtime error codes, grouped by kind so callers can tell a bad input from a
// bad program file without string matching.
#pragma once

#include <cstdint>

namespace etch::runtime {

enum class Error : uint32_t {
  Ok = 0x00,
  Internal = 0x01,
  NotSupported = 0x02,
  NotImplemented = 0x03,

  // The caller passed something wrong.
  InvalidArgument = 0x10,
  InvalidType = 0x11,
  InvalidShape = 0x12,
  IndexOutOfRange = 0x13,

  // The environment could not provide something.
  MemoryAllocationFailed = 0x20,
  AccessFailed = 0x21,
  NotFound = 0x22,

  // The program file is malformed.
  InvalidProgram = 0x30,
  ProgramVersionMismatch = 0x31,
  OperatorMissing = 0x32,
  // An external weights file is damaged, or is not the program's.
  InvalidWeights = 0x33,
  WeightsMismatch = 0x34,

  // A delegate failed.
  DelegateInvalidBlob = 0x40,
  DelegateInitFailed = 0x41,
  DelegateExecuteFailed = 0x42,
  DelegateMissing = 0x43,
};

/// A short stable name for \p error, for logs and tool output.
const char *errorName(Error error);

} // namespace etch::runtime
