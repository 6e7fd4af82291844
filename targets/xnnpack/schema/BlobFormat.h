// Framing of the XNNPACK blob around its flatbuffer (see xnnpack_blob.fbs).
#pragma once

#include <cstdint>

namespace etch::xnnpack {

inline constexpr char kBlobMagic[4] = {'E', 'X', 'N', 'N'};
inline constexpr uint32_t kBlobVersion = 1;
inline constexpr uint64_t kBlobHeaderSize = 16;
inline constexpr uint64_t kConstantAlignment = 64;
inline constexpr uint32_t kAbsentTensor = 0xFFFFFFFFu;

/// Parameter counts per NodeKind, in enum order (-1: checked per node).
inline constexpr int kParamCounts[] = {13, 12, 0,  0, 0, 0,  0, 0, 0,
                                       0,  0,  10, 8, 0, 0,  0, 0, 0,
                                       0,  0,  0,  0, 0, -1, 0, 0, 0};

inline uint64_t constantSectionOffset(uint64_t flatbufferSize) {
  uint64_t end = kBlobHeaderSize + flatbufferSize;
  return (end + kConstantAlignment - 1) / kConstantAlignment *
         kConstantAlignment;
}

} // namespace etch::xnnpack
