#include "runtime/platform/Platform.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace etch::runtime {
namespace {

const char *levelName(LogLevel level) {
  switch (level) {
  case LogLevel::Debug:
    return "debug";
  case LogLevel::Info:
    return "info";
  case LogLevel::Error:
    return "error";
  case LogLevel::Fatal:
    return "fatal";
  }
  return "?";
}

void defaultLog(LogLevel level, const char *file, int line,
                const char *message) {
  std::fprintf(stderr, "etch %s [%s:%d] %s\n", levelName(level), file, line,
               message);
}

uint64_t defaultNow() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

[[noreturn]] void defaultAbort() { std::abort(); }

PlatformHooks &hooks() {
  static PlatformHooks installed{defaultLog, defaultNow, defaultAbort};
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

namespace {
size_t threadHint = 0;
}
void setPreferredThreadCount(size_t threads) { threadHint = threads; }
size_t preferredThreadCount() { return threadHint; }

void platformAbort() { hooks().abort(); }

} // namespace etch::runtime
