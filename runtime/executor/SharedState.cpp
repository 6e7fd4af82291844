#include "runtime/executor/SharedState.h"

#include <cstring>

namespace etch::runtime {

Result<uint8_t *> SharedState::acquire(const char *name, ScalarType type,
                                       size_t nbytes,
                                       Span<const uint8_t> initial,
                                       const char *method) {
  for (Buffer &buffer : buffers_) {
    if (std::strcmp(buffer.name, name) != 0)
      continue;
    if (buffer.type != type || buffer.nbytes != nbytes) {
      ET_LOG(Error,
             "state buffer '%s' is %zu bytes of %s in method '%s' but %zu "
             "bytes of %s in method '%s': methods share state buffers by name",
             name, nbytes, scalarTypeName(type), method, buffer.nbytes,
             scalarTypeName(buffer.type), buffer.firstMethod);
      return Error::InvalidProgram;
    }
    if (initial.empty() != buffer.initial.empty() ||
        (!initial.empty() &&
         std::memcmp(initial.data(), buffer.initial.data(), nbytes) != 0)) {
      ET_LOG(Error,
             "state buffer '%s' starts with other contents in method '%s' "
             "than in method '%s'",
             name, method, buffer.firstMethod);
      return Error::InvalidProgram;
    }
    return buffer.memory.get();
  }
  PlatformBlock memory = allocatePlatformBlock(nbytes ? nbytes : 1, 64);
  if (!memory) {
    ET_LOG(Error, "cannot allocate %zu bytes for state buffer '%s'", nbytes,
           name);
    return Error::MemoryAllocationFailed;
  }
  if (initial.empty())
    std::memset(memory.get(), 0, nbytes);
  else
    std::memcpy(memory.get(), initial.data(), nbytes);
  buffers_.push_back({name, method, type, nbytes, initial, std::move(memory)});
  return buffers_.back().memory.get();
}

size_t SharedState::totalBytes() const {
  size_t total = 0;
  for (const Buffer &buffer : buffers_)
    total += buffer.nbytes;
  return total;
}

} // namespace etch::runtime
