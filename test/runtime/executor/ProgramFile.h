// Program files built in tests with the schema's own builders, laid out as
// the compiler writes them: header, flatbuffer, 64-byte-aligned segments.
#pragma once

#include "runtime/program/FileHeader.h"
#include "runtime/schema/program_generated.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace etch::runtime::testing {

/// The bytes of a program file: \p fbb's finished Program, then the
/// segment area, \p segmentBytes long, starting with \p segment (64-byte
/// aligned memory, as mmap gives).
class ProgramFile {
public:
  ProgramFile(const flatbuffers::FlatBufferBuilder &fbb, size_t segmentBytes,
              const std::string &segment = "") {
    FileHeader header{};
    std::memcpy(header.magic, kProgramMagic, sizeof(header.magic));
    header.headerVersion = kFileHeaderVersion;
    header.flatbufferOffset = sizeof(FileHeader);
    header.flatbufferSize = fbb.GetSize();
    uint64_t base = segmentBase(header);
    size_ = base + (segmentBytes + 63) / 64 * 64;
    data_ = static_cast<uint8_t *>(std::aligned_alloc(64, size_));
    std::memset(data_, 0, size_);
    std::memcpy(data_, &header, sizeof(header));
    std::memcpy(data_ + sizeof(header), fbb.GetBufferPointer(), fbb.GetSize());
    std::memcpy(data_ + base, segment.data(), segment.size());
  }
  ~ProgramFile() { std::free(data_); }
  ProgramFile(const ProgramFile &) = delete;
  ProgramFile &operator=(const ProgramFile &) = delete;

  uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  uint8_t *data_;
  size_t size_;
};

} // namespace etch::runtime::testing
