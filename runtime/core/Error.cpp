#include "runtime/core/Error.h"

namespace etch::runtime {

const char *errorName(Error error) {
  switch (error) {
#define ETCH_ERROR_NAME(name, code, cName)                                     \
  case Error::name:                                                            \
    return #name;
    ETCH_FOR_EACH_ERROR(ETCH_ERROR_NAME)
#undef ETCH_ERROR_NAME
  }
  return "Unknown";
}

} // namespace etch::runtime
