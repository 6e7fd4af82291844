#include "runtime/platform/Platform.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdint>
#include <cstdlib>

namespace etch::runtime {
namespace {

const char *levelName(LogLevel level) {
  // In LogLevel's order.
  static const char *const kNames[] = {"debug", "info", "error", "fatal"};
  auto index = static_cast<size_t>(level);
  return index < sizeof(kNames) / sizeof(kNames[0]) ? kNames[index] : "?";
}

// The source location stays with the hook (an embedder may want it); users
// see the message alone, never the build machine's paths.
void defaultLog(LogLevel level, const char *, int, const char *message) {
  std::fprintf(stderr, "etch %s: %s\n", levelName(level), message);
}

uint64_t defaultNow() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void defaultAbort() { std::abort(); }

void *defaultAllocate(size_t size, size_t alignment) {
#if ETCH_BARE_METAL
  // No heap for arenas on a microcontroller: the embedder hands them in
  // (setPlatformHooks).
  (void)size, (void)alignment;
  return nullptr;
#else
  // aligned_alloc wants a multiple of the alignment; refuse what would wrap.
  if (size > SIZE_MAX - alignment)
    return nullptr;
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment *
                                           alignment);
#endif
}

void defaultDeallocate(void *pointer) { std::free(pointer); }

PlatformHooks &hooks() {
  static PlatformHooks installed{defaultLog, defaultNow, defaultAbort,
                                 defaultAllocate, defaultDeallocate};
  return installed;
}

} // namespace

void setPlatformHooks(const PlatformHooks &newHooks) {
  PlatformHooks &current = hooks();
  if (newHooks.log)
    current.log = newHooks.log;
  if (newHooks.nowNanoseconds)
    current.nowNanoseconds = newHooks.nowNanoseconds;
  if (newHooks.abort)
    current.abort = newHooks.abort;
  if (newHooks.allocate && newHooks.deallocate) {
    current.allocate = newHooks.allocate;
    current.deallocate = newHooks.deallocate;
  }
}

const PlatformHooks &platformHooks() { return hooks(); }

void logMessage(LogLevel level, const char *file, int line, const char *format,
                ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  hooks().log(level, file, line, buffer);
}

uint64_t nowNanoseconds() { return hooks().nowNanoseconds(); }

void platformAbort() {
  hooks().abort();
  std::abort(); // a hook that returns must not let execution go on
}

void *platformAllocate(size_t size, size_t alignment) {
  return hooks().allocate(size, alignment);
}

void platformDeallocate(void *pointer) { hooks().deallocate(pointer); }

} // namespace etch::runtime
