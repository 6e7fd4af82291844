//===- FuzzWeights.cpp - Fuzz the external weights file loader ------------===//
//
// Input: an external weights file (.etw). Loads and verifies it, then finds
// and reads every entry its index names.
//
//===----------------------------------------------------------------------===//
#include "FuzzRuntime.h"

#include "runtime/program/WeightsFile.h"

#include <cstdio>

using namespace etch::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialised = [] {
    etch::fuzz::quietRuntimeLog();
    return true;
  }();
  (void)initialised;
  // Weights files are mmapped in real use: page-aligned.
  etch::fuzz::AlignedBytes copy = etch::fuzz::alignedCopy(data, size);
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
