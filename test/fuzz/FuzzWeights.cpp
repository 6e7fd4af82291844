//===- FuzzWeights.cpp - Fuzz the external weights file loader ------------===//
//
// Input: an external weights file (.etw). Loads and verifies it, then finds
// and reads every entry its index names.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "runtime/platform/Platform.h"
#include "runtime/program/WeightsFile.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace etch::runtime;

namespace {

void log(LogLevel, const char *, int, const char *message) {
  if (etch::fuzz::verbose())
    std::fprintf(stderr, "etch: %s\n", message);
}

struct AlignedFree {
  void operator()(void *pointer) const { std::free(pointer); }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialised = [] {
    PlatformHooks hooks{};
    hooks.log = log;
    setPlatformHooks(hooks);
    return true;
  }();
  (void)initialised;
  // Weights files are mmapped in real use: page-aligned.
  std::unique_ptr<uint8_t, AlignedFree> copy(static_cast<uint8_t *>(
      std::aligned_alloc(64, (size + 63) / 64 * 64 + 64)));
  std::memcpy(copy.get(), data, size);
  Result<WeightsFile> weights = WeightsFile::load(copy.get(), size, "fuzz");
  if (!weights.ok())
    return 0;
  const auto *header = reinterpret_cast<const uint64_t *>(copy.get() + 16);
  const auto *index = etch::schema::GetWeightsFile(copy.get() + header[0]);
  unsigned sum = 0;
  if (index->entries())
    for (const etch::schema::WeightEntry *entry : *index->entries()) {
      Span<const uint8_t> bytes =
          weights->find(entry->checksum(), entry->size());
      for (uint8_t byte : bytes)
        sum += byte;
    }
  if (etch::fuzz::verbose())
    std::fprintf(stderr, "weights accepted: %zu entries (sum %u)\n",
                 weights->entryCount(), sum);
  return 0;
}
