// State buffers (a method's mutable buffers: an LLM's KV cache) that the
// methods of one program share by name: prefill writes the cache that decode
// reads. The caller makes one per sequence (a conversation) and loads each
// method that takes part with it; those methods' state values (and every
// value planned inside their bytes) then point at the shared memory instead
// of the method's arena. It must outlive the methods.
#pragma once

#include "runtime/core/Result.h"
#include "runtime/core/ScalarType.h"
#include "runtime/core/Span.h"
#include "runtime/platform/Platform.h"

#include <cstddef>
#include <cstdint>

namespace etch::runtime {

class SharedState {
public:
  SharedState() = default;
  ~SharedState();
  SharedState(const SharedState &) = delete;
  SharedState &operator=(const SharedState &) = delete;

  /// The memory of buffer \p name, \p nbytes of \p type: allocated and
  /// given its \p initial contents (empty: zeros) on first use; later
  /// methods must declare it alike. \p method names the caller in errors.
  Result<uint8_t *> acquire(const char *name, ScalarType type, size_t nbytes,
                            Span<const uint8_t> initial, const char *method);
  size_t bufferCount() const { return count_; }
  size_t totalBytes() const { return total_; }

private:
  // A list, not a vector: the runtime core stays small.
  struct Buffer {
    const char *name; // in the program, which outlives this
    const char *firstMethod;
    ScalarType type;
    size_t nbytes;
    Span<const uint8_t> initial; // in the program; empty: zeros
    PlatformBlock memory;
    Buffer *next;
  };
  Buffer *buffers_ = nullptr;
  size_t count_ = 0, total_ = 0;
};

} // namespace etch::runtime
