// The framing every target's delegate blob shares: a 4-byte magic, a u32
// version, the u64 size of the flatbuffer that follows, then the constant
// section at the next 64-byte boundary. Header-only: the compiler halves
// write it, the runtime halves read it.
#pragma once

#include "runtime/core/Span.h"

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace etch::runtime {

inline constexpr uint64_t kBlobHeaderSize = 16;
inline constexpr uint64_t kBlobConstantAlignment = 64;

/// Where the constant section starts after a flatbuffer of \p size bytes.
inline uint64_t blobConstantSectionOffset(uint64_t flatbufferSize) {
  uint64_t end = kBlobHeaderSize + flatbufferSize;
  return (end + kBlobConstantAlignment - 1) / kBlobConstantAlignment *
         kBlobConstantAlignment;
}

/// Zero bytes that bring \p size up to the next constant's alignment.
inline size_t blobConstantPadding(size_t size) {
  return (kBlobConstantAlignment - size % kBlobConstantAlignment) %
         kBlobConstantAlignment;
}

/// A delegate's blob as a program holds it: the framed bytes and, when the
/// program stores the constant section apart (DelegateEntry's
/// constants_segment: shared between methods, or in an external weights
/// file), that section; a null constants.data() means inside the bytes.
struct DelegateBlob {
  Span<const uint8_t> bytes;
  Span<const uint8_t> constants;
};

/// A blob's pieces (pointers into the blob and its constants).
struct FramedBlob {
  const uint8_t *flatbuffer = nullptr;
  uint64_t flatbufferSize = 0;
  const uint8_t *constants = nullptr;
  uint64_t constantsSize = 0;
};

/// Splits \p delegate; empty when it holds a \p magic blob of \p version
/// (the flatbuffer not yet verified), otherwise what is wrong.
inline std::string unframeBlob(const DelegateBlob &delegate, const char *magic,
                               uint32_t version, FramedBlob &blob) {
  Span<const uint8_t> bytes = delegate.bytes;
  if (bytes.size() < kBlobHeaderSize ||
      std::memcmp(bytes.data(), magic, 4) != 0)
    return "blob does not start with " + std::string(magic, 4);
  uint32_t actualVersion;
  uint64_t size;
  std::memcpy(&actualVersion, bytes.data() + 4, 4);
  std::memcpy(&size, bytes.data() + 8, 8);
  if (actualVersion != version)
    return "unsupported blob version";
  if (size > bytes.size() - kBlobHeaderSize)
    return "blob flatbuffer extends past the blob (truncated?)";
  uint64_t constants = blobConstantSectionOffset(size);
  if (constants > bytes.size())
    return "constant section lies outside the blob";
  if (delegate.constants.data()) {
    if (constants != bytes.size())
      return "a blob stored apart from its constants goes on past its "
             "flatbuffer";
    blob = {bytes.data() + kBlobHeaderSize, size, delegate.constants.data(),
            delegate.constants.size()};
    return "";
  }
  blob = {bytes.data() + kBlobHeaderSize, size, bytes.data() + constants,
          bytes.size() - constants};
  return "";
}

/// unframeBlob, then the flatbuffer through the schema's \p Verify
/// (VerifyBlobBuffer of the target's generated header).
template <bool (*Verify)(flatbuffers::Verifier &)>
std::string openBlob(const DelegateBlob &delegate, const char *magic,
                     uint32_t version, FramedBlob &blob) {
  if (std::string problem = unframeBlob(delegate, magic, version, blob);
      !problem.empty())
    return problem;
  flatbuffers::Verifier verifier(blob.flatbuffer, blob.flatbufferSize);
  return Verify(verifier)
             ? ""
             : "blob flatbuffer verification failed (corrupt blob)";
}

/// The framed bytes and the constant section of a whole blob (what the
/// program writer stores as two segments); false when \p bytes is not
/// framed.
inline bool splitBlobConstants(Span<const uint8_t> bytes,
                               Span<const uint8_t> &framed,
                               Span<const uint8_t> &constants) {
  if (bytes.size() < kBlobHeaderSize)
    return false;
  uint64_t size;
  std::memcpy(&size, bytes.data() + 8, 8);
  if (size > bytes.size() - kBlobHeaderSize)
    return false;
  uint64_t offset = blobConstantSectionOffset(size);
  if (offset > bytes.size())
    return false;
  framed = Span<const uint8_t>(bytes.data(), offset);
  constants = Span<const uint8_t>(bytes.data() + offset, bytes.size() - offset);
  return true;
}

/// The blob around \p flatbuffer and \p constants.
inline std::vector<uint8_t> frameBlob(const char *magic, uint32_t version,
                                      const uint8_t *flatbuffer, uint64_t size,
                                      const std::string &constants) {
  std::vector<uint8_t> bytes(blobConstantSectionOffset(size), 0);
  std::memcpy(bytes.data(), magic, 4);
  std::memcpy(bytes.data() + 4, &version, 4);
  std::memcpy(bytes.data() + 8, &size, 8);
  std::memcpy(bytes.data() + kBlobHeaderSize, flatbuffer, size);
  bytes.insert(bytes.end(), constants.begin(), constants.end());
  return bytes;
}

} // namespace etch::runtime
