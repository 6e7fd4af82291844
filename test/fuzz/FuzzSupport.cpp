#include "FuzzSupport.h"

#include <cstdlib>

namespace etch::fuzz {
namespace {
bool verboseFlag = false;
}
// ETCH_FUZZ_VERBOSE=1 makes a libFuzzer build print the errors too, so a
// test can check what a replayed input is refused for.
bool verbose() {
  static const bool fromEnvironment = std::getenv("ETCH_FUZZ_VERBOSE") &&
                                      *std::getenv("ETCH_FUZZ_VERBOSE") == '1';
  return verboseFlag || fromEnvironment;
}
void setVerbose(bool on) { verboseFlag = on; }
} // namespace etch::fuzz
