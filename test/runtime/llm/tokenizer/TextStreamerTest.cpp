// Streaming decode: every piece passed on is whole UTF-8 (byte-level tokens
// split characters; the streamer holds their bytes back), and the pieces
// add up to decode() of all the tokens.
#include "runtime/llm/tokenizer/TextStreamer.h"
#include "runtime/llm/tokenizer/Utf8.h"

#include <gtest/gtest.h>

namespace etch::llm {
namespace {

void expectWholeCharacters(const char *file, std::string_view text) {
  TokenizerLoad load =
      loadTokenizer(std::string(ETCH_TEST_INPUTS) + "/" + file);
  ASSERT_TRUE(load.tokenizer) << load.error;
  std::vector<int32_t> ids = load.tokenizer->encode(text, false);
  // Byte-level tokens end inside characters here: the test means something.
  ASSERT_GT(ids.size(), 12u);
  std::vector<std::string> pieces;
  TextStreamer streamer(*load.tokenizer, [&](std::string_view piece) {
    pieces.emplace_back(piece);
  });
  for (int32_t id : ids)
    streamer.push(id);
  streamer.finish();
  std::string joined;
  for (const std::string &piece : pieces) {
    EXPECT_FALSE(piece.empty());
    EXPECT_EQ(toValidUtf8(piece), piece);
    EXPECT_EQ(piece.find("\xEF\xBF\xBD"), std::string::npos) << piece;
    joined += piece;
  }
  EXPECT_EQ(joined, load.tokenizer->decode(ids));
  EXPECT_EQ(joined, streamer.text());
  EXPECT_EQ(joined, text);
}

TEST(TextStreamer, ByteLevelBpeNeverSplitsACharacter) {
  expectWholeCharacters("byte_level_bpe.json",
                        "na\xC3\xAFve caf\xC3\xA9 \xF0\x9F\x98\x80 "
                        "\xE6\x97\xA5\xE6\x9C\xAC Hello");
}

TEST(TextStreamer, TiktokenNeverSplitsACharacter) {
  expectWholeCharacters("ranks.tiktoken",
                        "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9 "
                        "\xE4\xB8\xAD\xE6\x96\x87 world");
}

// A sequence that ends inside a character passes the rest on at finish().
TEST(TextStreamer, FinishPassesOnAnUnfinishedCharacter) {
  TokenizerLoad load =
      loadTokenizer(std::string(ETCH_TEST_INPUTS) + "/byte_level_bpe.json");
  ASSERT_TRUE(load.tokenizer) << load.error;
  std::vector<int32_t> ids = load.tokenizer->encode("a\xF0\x9F\x98\x80", false);
  ids.pop_back(); // the emoji's last byte
  std::string out;
  TextStreamer streamer(*load.tokenizer,
                        [&](std::string_view piece) { out += piece; });
  for (int32_t id : ids)
    streamer.push(id);
  EXPECT_EQ(out, "a");
  streamer.finish();
  EXPECT_EQ(out, "a\xEF\xBF\xBD");
}

} // namespace
} // namespace etch::llm

namespace etch::llm {
namespace {

// A stop string ends the text before it, also when it spans tokens; text
// that may begin one waits until it cannot.
TEST(TextStreamer, StopStringsEndTheText) {
  TokenizerLoad load =
      loadTokenizer(std::string(ETCH_TEST_INPUTS) + "/byte_level_bpe.json");
  ASSERT_TRUE(load.tokenizer) << load.error;
  std::vector<int32_t> ids =
      load.tokenizer->encode("Hello world, hello etch. The end", false);
  std::vector<std::string> pieces;
  TextStreamer streamer(
      *load.tokenizer,
      [&](std::string_view piece) { pieces.emplace_back(piece); },
      {"hello et", "zzz"});
  size_t pushed = 0;
  for (int32_t id : ids) {
    ++pushed;
    if (streamer.push(id))
      break;
  }
  EXPECT_LT(pushed, ids.size());
  EXPECT_TRUE(streamer.push(ids.back())); // stays stopped
  streamer.finish();
  EXPECT_EQ(streamer.text(), "Hello world, ");
  for (const std::string &piece : pieces) // never a part of "hello et"
    EXPECT_EQ(piece.find('h'), std::string::npos) << piece;
}

TEST(TextStreamer, AHeldBackTailThatIsNoStopIsPassedOn) {
  TokenizerLoad load =
      loadTokenizer(std::string(ETCH_TEST_INPUTS) + "/byte_level_bpe.json");
  ASSERT_TRUE(load.tokenizer) << load.error;
  std::vector<int32_t> ids = load.tokenizer->encode("Hello wor", false);
  TextStreamer streamer(*load.tokenizer, [](std::string_view) {}, {"world!"});
  for (int32_t id : ids)
    EXPECT_FALSE(streamer.push(id));
  EXPECT_EQ(streamer.text(), "Hello "); // "wor" could begin "world!"
  streamer.finish();
  EXPECT_EQ(streamer.text(), "Hello wor");
}

} // namespace
} // namespace etch::llm
