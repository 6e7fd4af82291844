// Files mapped read-only and shared: whatever opens a file (device and
// inode) that is mapped already gets that mapping, so programs compiled
// against one weights file keep one copy of the weights in memory. Plain
// reference counts and a spin lock (no std::map, shared_ptr or mutex: the
// runtime core stays small).
#pragma once

#include "runtime/core/Result.h"
#include "runtime/program/WeightsFile.h"

#include <cstddef>
#include <cstdint>

namespace etch::runtime {

struct MappedFile;

/// Maps \p path (\p what names it in messages: "file", "weights file");
/// release it with releaseFile.
Result<MappedFile *> mapFile(const char *path, const char *what);
void releaseFile(MappedFile *file);
const uint8_t *fileData(const MappedFile *file);
size_t fileSize(const MappedFile *file);

/// A reference to a mapped external weights file, verified (every checksum)
/// once per mapping. Move-only; the mapping lives while a reference does.
class WeightsMapping {
public:
  static Result<WeightsMapping> open(const char *path);
  WeightsMapping() = default;
  WeightsMapping(WeightsMapping &&other) : file_(other.file_) {
    other.file_ = nullptr;
  }
  WeightsMapping &operator=(WeightsMapping &&other);
  WeightsMapping(const WeightsMapping &) = delete;
  WeightsMapping &operator=(const WeightsMapping &) = delete;
  ~WeightsMapping() { releaseFile(file_); }

  /// Null when empty.
  const WeightsFile *get() const;
  /// Maps \p path into this mapping (what a Program::WeightsResolver
  /// returns); the error of open otherwise.
  Result<const WeightsFile *> reopen(const char *path);

private:
  explicit WeightsMapping(MappedFile *file) : file_(file) {}
  MappedFile *file_ = nullptr;
};

} // namespace etch::runtime
