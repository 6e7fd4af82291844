// What the runtime-side fuzz targets share: the runtime's log through
// ETCH_FUZZ_VERBOSE, and input bytes copied to a 64-byte aligned buffer (as
// a mapped file is) that the loaders require.
#pragma once

#include "FuzzSupport.h"

#include "runtime/core/LoadOptions.h"
#include "runtime/platform/Platform.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace etch::fuzz {

struct FreeDeleter {
  void operator()(void *pointer) const { std::free(pointer); }
};
using AlignedBytes = std::unique_ptr<uint8_t, FreeDeleter>;

/// \p size bytes at \p data in a 64-byte aligned buffer (with room past
/// the end, so a zero-size input has a valid pointer).
inline AlignedBytes alignedCopy(const void *data, size_t size) {
  AlignedBytes copy(static_cast<uint8_t *>(
      std::aligned_alloc(64, (size + 63) / 64 * 64 + 64)));
  if (size)
    std::memcpy(copy.get(), data, size);
  return copy;
}

/// One thread (runs repeat) and kFuzzMemoryLimit for what a fuzzed input
/// loads.
inline runtime::LoadOptions fuzzLoadOptions() {
  runtime::LoadOptions options;
  options.threads = 1;
  options.memoryLimit = kFuzzMemoryLimit;
  return options;
}

/// Installs a log hook that prints only with ETCH_FUZZ_VERBOSE=1.
inline void quietRuntimeLog() {
  runtime::PlatformHooks hooks{};
  hooks.log = [](runtime::LogLevel, const char *, int, const char *message) {
    if (verbose())
      std::fprintf(stderr, "etch: %s\n", message);
  };
  runtime::setPlatformHooks(hooks);
}

} // namespace etch::fuzz
