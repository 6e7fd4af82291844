// A loaded, verified external weights file (schema/weights.fbs): the bytes
// programs refer to by checksum and size (et-compile --external-weights).
// Loading checks the header and the index and every entry's checksum, so a
// truncated or damaged file is an error at load, never wrong weights.
#pragma once

#include "runtime/core/Result.h"
#include "runtime/core/Span.h"
#include "runtime/schema/weights_generated.h"

#include <cstddef>
#include <cstdint>

namespace etch::runtime {

class WeightsFile {
public:
  /// Verifies \p data (64-byte aligned; it must outlive the WeightsFile).
  /// \p name stands for the file in messages.
  static Result<WeightsFile> load(const void *data, size_t size,
                                  const char *name);

  /// The entry with \p checksum and \p size; an empty span with a null
  /// data() when the file has none.
  Span<const uint8_t> find(uint64_t checksum, uint64_t size) const;
  const char *name() const { return name_; }
  size_t entryCount() const;
  size_t fileSize() const { return size_; }

private:
  WeightsFile(const uint8_t *data, size_t size,
              const schema::WeightsFile *index, uint64_t base, const char *name)
      : data_(data), size_(size), index_(index), base_(base), name_(name) {}

  const uint8_t *data_;
  size_t size_;
  const schema::WeightsFile *index_;
  uint64_t base_;
  const char *name_;
};

} // namespace etch::runtime
