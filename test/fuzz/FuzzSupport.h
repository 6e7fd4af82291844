// What the fuzz targets share: quiet by default (libFuzzer runs millions of
// inputs), verbose when replaying files, so a regression shows its error.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etch::fuzz {

/// What a fuzzed program or blob may make the runtime allocate: large
/// enough for the seed models, small enough for libFuzzer's memory limit.
inline constexpr uint64_t kFuzzMemoryLimit = uint64_t(64) << 20;

/// True when replaying inputs by hand (ReplayMain.cpp) or with
/// ETCH_FUZZ_VERBOSE=1: errors are printed.
bool verbose();
void setVerbose(bool on);

} // namespace etch::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
