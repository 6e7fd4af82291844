#include "runtime/program/WeightsFile.h"

#include "runtime/core/Checksum.h"
#include "runtime/platform/Platform.h"
#include "runtime/program/FileHeader.h"

#include <cstring>

namespace etch::runtime {
namespace {

Error fail(Error error, const char *name, const char *what) {
  ET_LOG(Error, "%s: %s", name, what);
  return error;
}

bool fits(uint64_t a, uint64_t b, uint64_t limit) {
  return a <= limit && b <= limit - a;
}

bool before(uint64_t checksumA, uint64_t sizeA, uint64_t checksumB,
            uint64_t sizeB) {
  return checksumA < checksumB || (checksumA == checksumB && sizeA < sizeB);
}

} // namespace

Result<WeightsFile> WeightsFile::load(const void *data, size_t size,
                                      const char *name) {
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  if (!data || size < sizeof(FileHeader))
    return fail(Error::InvalidWeights, name,
                "weights file is shorter than the 32-byte header");
  if (reinterpret_cast<uintptr_t>(data) % kSegmentAlignment != 0)
    return fail(Error::InvalidArgument, name,
                "weights data must start on a 64-byte boundary (mmap it)");
  FileHeader header;
  std::memcpy(&header, bytes, sizeof(header));
  if (std::memcmp(header.magic, kWeightsMagic, sizeof(kWeightsMagic)) != 0)
    return fail(Error::InvalidWeights, name,
                "not an etch weights file (wrong magic; expected ETCHWTS)");
  if (header.headerVersion != kFileHeaderVersion)
    return fail(Error::ProgramVersionMismatch, name,
                "unsupported weights file header version");
  if (!fits(header.flatbufferOffset, header.flatbufferSize, size) ||
      header.flatbufferOffset % 8 != 0 ||
      header.flatbufferSize < 2 * sizeof(flatbuffers::uoffset_t))
    return fail(Error::InvalidWeights, name,
                "weights index extends past the end of the file (truncated?)");
  const uint8_t *buffer = bytes + header.flatbufferOffset;
  if (!flatbuffers::BufferHasIdentifier(buffer,
                                        schema::WeightsFileIdentifier()))
    return fail(Error::InvalidWeights, name,
                "weights index identifier is not ETW1");
  flatbuffers::Verifier verifier(buffer, header.flatbufferSize);
  if (!schema::VerifyWeightsFileBuffer(verifier))
    return fail(Error::InvalidWeights, name,
                "weights index verification failed (corrupt file)");
  const schema::WeightsFile *index = schema::GetWeightsFile(buffer);
  if (index->version() != kWeightsVersion) {
    ET_LOG(Error, "%s: weights file version %u, this runtime reads %u", name,
           index->version(), kWeightsVersion);
    return Error::ProgramVersionMismatch;
  }
  uint64_t base = segmentBase(header);
  const schema::WeightEntry *previous = nullptr;
  if (index->entries())
    for (const schema::WeightEntry *entry : *index->entries()) {
      if (entry->offset() % kSegmentAlignment != 0 ||
          !fits(base, entry->offset(), size) ||
          !fits(base + entry->offset(), entry->size(), size))
        return fail(Error::InvalidWeights, name,
                    "a weights entry lies outside the file (truncated?)");
      if (previous && !before(previous->checksum(), previous->size(),
                              entry->checksum(), entry->size()))
        return fail(Error::InvalidWeights, name,
                    "weights entries are not sorted by checksum and size");
      if (checksum64(bytes + base + entry->offset(), entry->size()) !=
          entry->checksum()) {
        ET_LOG(Error,
               "%s: the entry at offset %llu (%llu bytes) does not match its "
               "checksum (damaged file)",
               name, static_cast<unsigned long long>(entry->offset()),
               static_cast<unsigned long long>(entry->size()));
        return Error::InvalidWeights;
      }
      previous = entry;
    }
  return WeightsFile(bytes, size, index, base, name);
}

Span<const uint8_t> WeightsFile::find(uint64_t checksum, uint64_t size) const {
  const auto *entries = index_->entries();
  if (!entries)
    return Span<const uint8_t>(nullptr, 0);
  // Sorted at load: a binary search.
  uint32_t low = 0, high = entries->size();
  while (low < high) {
    uint32_t middle = low + (high - low) / 2;
    const schema::WeightEntry *entry = entries->Get(middle);
    if (before(entry->checksum(), entry->size(), checksum, size))
      low = middle + 1;
    else
      high = middle;
  }
  if (low == entries->size())
    return Span<const uint8_t>(nullptr, 0);
  const schema::WeightEntry *entry = entries->Get(low);
  if (entry->checksum() != checksum || entry->size() != size)
    return Span<const uint8_t>(nullptr, 0);
  return Span<const uint8_t>(data_ + base_ + entry->offset(), entry->size());
}

size_t WeightsFile::entryCount() const {
  return index_->entries() ? index_->entries()->size() : 0;
}

} // namespace etch::runtime
