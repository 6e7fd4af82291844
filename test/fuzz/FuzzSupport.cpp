#include "FuzzSupport.h"

namespace etch::fuzz {
namespace {
bool verboseFlag = false;
}
bool verbose() { return verboseFlag; }
void setVerbose(bool on) { verboseFlag = on; }
} // namespace etch::fuzz
