#include "runtime/platform/Platform.h"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string lastMessage;
etch::runtime::LogLevel lastLevel;

void captureLog(etch::runtime::LogLevel level, const char *, int,
                const char *message) {
  lastLevel = level;
  lastMessage = message;
}

uint64_t fixedClock() { return 42; }

TEST(Platform, EmbedderHooksReplaceDefaults) {
  etch::runtime::PlatformHooks saved = etch::runtime::platformHooks();
  etch::runtime::setPlatformHooks({captureLog, fixedClock, nullptr});
  ET_LOG(Error, "tensor %d has %s", 3, "wrong shape");
  EXPECT_EQ(lastMessage, "tensor 3 has wrong shape");
  EXPECT_EQ(lastLevel, etch::runtime::LogLevel::Error);
  EXPECT_EQ(etch::runtime::nowNanoseconds(), 42u);
  // The abort hook was left null, so the default stays installed.
  EXPECT_EQ(etch::runtime::platformHooks().abort, saved.abort);
  etch::runtime::setPlatformHooks(saved);
}

TEST(Platform, DefaultClockIsMonotonic) {
  uint64_t first = etch::runtime::nowNanoseconds();
  uint64_t second = etch::runtime::nowNanoseconds();
  EXPECT_LE(first, second);
}

TEST(Platform, LongMessagesAreTruncatedNotOverflowed) {
  etch::runtime::PlatformHooks saved = etch::runtime::platformHooks();
  etch::runtime::setPlatformHooks({captureLog, nullptr, nullptr});
  std::string longText(2000, 'x');
  ET_LOG(Info, "%s", longText.c_str());
  EXPECT_EQ(lastMessage.size(), 511u);
  etch::runtime::setPlatformHooks(saved);
}

} // namespace
