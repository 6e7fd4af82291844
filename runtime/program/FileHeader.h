// The fixed header in front of the flatbuffer (see schema/program.fbs).
#pragma once

#include <cstdint>

namespace etch::runtime {

inline constexpr char kProgramMagic[8] = {'E', 'T', 'C', 'H',
                                          'P', 'R', 'G', '\0'};
inline constexpr uint32_t kFileHeaderVersion = 1;
/// Program.version the compiler writes; bumped on incompatible schema
/// changes. Version 3 added external segments and delegate constants stored
/// apart; a version-2 program has neither and loads as it is.
inline constexpr uint32_t kProgramVersion = 3;
inline constexpr uint32_t kOldestProgramVersion = 2;
/// External weights files (schema/weights.fbs) share the header layout.
inline constexpr char kWeightsMagic[8] = {'E', 'T', 'C', 'H',
                                          'W', 'T', 'S', '\0'};
inline constexpr uint32_t kWeightsVersion = 1;
inline constexpr uint64_t kSegmentAlignment = 64;
/// The named data holding a program's bundled test cases
/// (runtime/schema/bundled.fbs; et-compile --bundle, et-run --verify).
inline constexpr char kBundledCasesName[] = "etch.bundled_cases";

struct FileHeader {
  char magic[8];
  uint32_t headerVersion;
  uint32_t reserved;
  uint64_t flatbufferOffset;
  uint64_t flatbufferSize;
};
static_assert(sizeof(FileHeader) == 32, "FileHeader is 32 bytes");

/// Where segments start: the end of the flatbuffer, rounded up to 64.
inline uint64_t segmentBase(const FileHeader &header) {
  uint64_t end = header.flatbufferOffset + header.flatbufferSize;
  return (end + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment;
}

} // namespace etch::runtime
