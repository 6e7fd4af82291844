#include "runtime/executor/SharedState.h"

#include <cstring>
#include <new>

namespace etch::runtime {

SharedState::~SharedState() {
  while (Buffer *buffer = buffers_) {
    buffers_ = buffer->next;
    delete buffer;
  }
}

Result<uint8_t *> SharedState::acquire(const char *name, ScalarType type,
                                       size_t nbytes,
                                       Span<const uint8_t> initial,
                                       const char *method) {
  for (Buffer *buffer = buffers_; buffer; buffer = buffer->next) {
    if (std::strcmp(buffer->name, name) != 0)
      continue;
    if (buffer->type != type || buffer->nbytes != nbytes) {
      ET_LOG(Error,
             "state buffer '%s' is %zu bytes of %s in method '%s' but %zu "
             "bytes of %s in method '%s': methods share state buffers by name",
             name, nbytes, scalarTypeName(type), method, buffer->nbytes,
             scalarTypeName(buffer->type), buffer->firstMethod);
      return Error::InvalidProgram;
    }
    if (initial.empty() != buffer->initial.empty() ||
        (!initial.empty() &&
         std::memcmp(initial.data(), buffer->initial.data(), nbytes) != 0)) {
      ET_LOG(Error,
             "state buffer '%s' starts with other contents in method '%s' "
             "than in method '%s'",
             name, method, buffer->firstMethod);
      return Error::InvalidProgram;
    }
    return buffer->memory.get();
  }
  PlatformBlock memory = allocatePlatformBlock(nbytes ? nbytes : 1, 64);
  Buffer *buffer = memory ? new (std::nothrow)
                                Buffer{name,    method,  type,    nbytes,
                                       initial, nullptr, buffers_}
                          : nullptr;
  if (!buffer) {
    ET_LOG(Error, "cannot allocate %zu bytes for state buffer '%s'", nbytes,
           name);
    return Error::MemoryAllocationFailed;
  }
  if (initial.empty())
    std::memset(memory.get(), 0, nbytes);
  else
    std::memcpy(memory.get(), initial.data(), nbytes);
  buffer->memory = std::move(memory);
  buffers_ = buffer;
  ++count_;
  total_ += nbytes;
  return buffer->memory.get();
}

} // namespace etch::runtime
