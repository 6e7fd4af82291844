#include "runtime/core/Error.h"

namespace etch::runtime {

const char *errorName(Error error) {
  switch (error) {
  case Error::Ok:
    return "Ok";
  case Error::Internal:
    return "Internal";
  case Error::NotSupported:
    return "NotSupported";
  case Error::NotImplemented:
    return "NotImplemented";
  case Error::InvalidArgument:
    return "InvalidArgument";
  case Error::InvalidType:
    return "InvalidType";
  case Error::InvalidShape:
    return "InvalidShape";
  case Error::IndexOutOfRange:
    return "IndexOutOfRange";
  case Error::MemoryAllocationFailed:
    return "MemoryAllocationFailed";
  case Error::AccessFailed:
    return "AccessFailed";
  case Error::NotFound:
    return "NotFound";
  case Error::InvalidProgram:
    return "InvalidProgram";
  case Error::ProgramVersionMismatch:
    return "ProgramVersionMismatch";
  case Error::OperatorMissing:
    return "OperatorMissing";
  case Error::InvalidWeights:
    return "InvalidWeights";
  case Error::WeightsMismatch:
    return "WeightsMismatch";
  case Error::DelegateInvalidBlob:
    return "DelegateInvalidBlob";
  case Error::DelegateInitFailed:
    return "DelegateInitFailed";
  case Error::DelegateExecuteFailed:
    return "DelegateExecuteFailed";
  case Error::DelegateMissing:
    return "DelegateMissing";
  }
  return "Unknown";
}

} // namespace etch::runtime
