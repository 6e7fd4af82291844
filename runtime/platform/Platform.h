// Platform abstraction layer: the few services the runtime needs from its
// host. An embedder replaces any of them with setPlatformHooks(); the defaults
// use stdio, steady_clock and std::abort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace etch::runtime {

enum class LogLevel : uint8_t { Debug, Info, Error, Fatal };

struct PlatformHooks {
  /// Writes one already-formatted message line.
  void (*log)(LogLevel level, const char *file, int line, const char *message);
  /// Monotonic time in nanoseconds.
  uint64_t (*nowNanoseconds)();
  /// Never returns. (Not marked [[noreturn]]: clang rejects the attribute
  /// on a function pointer.)
  void (*abort)();
  /// Memory the runtime owns for a loaded method (arenas): \p size bytes
  /// aligned to \p alignment (a power of two), or null when refused.
  void *(*allocate)(size_t size, size_t alignment);
  void (*deallocate)(void *pointer);
};

/// Installs \p hooks; null members keep their defaults.
void setPlatformHooks(const PlatformHooks &hooks);
const PlatformHooks &platformHooks();

/// printf-style logging through the installed hook (messages are truncated to
/// 512 bytes; no allocation).
void logMessage(LogLevel level, const char *file, int line, const char *format,
                ...) __attribute__((format(printf, 4, 5)));

uint64_t nowNanoseconds();

/// Through the installed hooks; never called while executing.
void *platformAllocate(size_t size, size_t alignment);
void platformDeallocate(void *pointer);

/// Owns a block from platformAllocate (arenas, delegates' buffers).
struct PlatformDeleter {
  void operator()(uint8_t *pointer) const { platformDeallocate(pointer); }
};
using PlatformBlock = std::unique_ptr<uint8_t, PlatformDeleter>;
/// \p size bytes (at least one) at \p alignment; null when refused.
inline PlatformBlock allocatePlatformBlock(size_t size, size_t alignment) {
  return PlatformBlock(
      static_cast<uint8_t *>(platformAllocate(size ? size : 1, alignment)));
}

[[noreturn]] void platformAbort();

} // namespace etch::runtime

#define ET_LOG(level, ...)                                                     \
  ::etch::runtime::logMessage(::etch::runtime::LogLevel::level, __FILE__,      \
                              __LINE__, __VA_ARGS__)
