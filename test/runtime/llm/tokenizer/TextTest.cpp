// UTF-8 handling and the pattern splits under the tokenizers: each rule as
// the reference documents or defines it.
#include "runtime/llm/tokenizer/TextPattern.h"
#include "runtime/llm/tokenizer/Utf8.h"

#include <gtest/gtest.h>

namespace etch::llm {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(Utf8, ValidTextIsKept) {
  std::string text = "a\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80";
  EXPECT_EQ(toValidUtf8(text), text);
}

// One U+FFFD per maximal subpart of an ill-formed sequence (Unicode's
// recommended practice, which Rust's from_utf8_lossy and Python follow).
TEST(Utf8, IllFormedBecomesOneReplacementPerMaximalSubpart) {
  EXPECT_EQ(toValidUtf8("\xF0\x9F\x98"), kReplacement); // truncated 4-byte
  EXPECT_EQ(toValidUtf8("\xE2\x82x"), kReplacement + "x");
  EXPECT_EQ(toValidUtf8("\xC0\x80"), kReplacement + kReplacement); // overlong
  EXPECT_EQ(toValidUtf8("\xED\xA0\x80"), // a surrogate: three subparts
            kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(toValidUtf8("\x80\xBF"), kReplacement + kReplacement);
  EXPECT_EQ(toValidUtf8("\xF4\x90\x80\x80"), // above U+10FFFF
            kReplacement + kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(toValidUtf8("\xFF"), kReplacement);
}

TEST(Utf8, CompletePrefixLeavesAnUnfinishedSequenceOut) {
  EXPECT_EQ(completeUtf8Prefix("ab\xF0\x9F\x98"), 2u);
  EXPECT_EQ(completeUtf8Prefix("ab\xF0\x9F\x98\x80"), 6u);
  EXPECT_EQ(completeUtf8Prefix("\xC3"), 0u);
  EXPECT_EQ(completeUtf8Prefix(""), 0u);
}

TEST(Utf8, CharacterClassesFollowRust) {
  EXPECT_TRUE(isWhitespace(0x3000));  // ideographic space
  EXPECT_FALSE(isWhitespace(0x200B)); // zero-width space is not
  EXPECT_TRUE(isNumeric(0x2460));     // circled one (No)
  EXPECT_TRUE(isAlphanumeric(0x65E5));
  EXPECT_TRUE(isPunctuation('$')); // ASCII punctuation, though a symbol
  EXPECT_TRUE(isPunctuation(0x3002));
  EXPECT_FALSE(isPunctuation(0x20AC)); // the euro sign is a symbol
}

std::vector<std::string> pieces(std::string_view text, SplitBehavior behavior,
                                bool invert = false) {
  std::vector<std::string> out;
  for (const ByteRange &range :
       splitText(text, literalPattern("-"), behavior, invert))
    out.emplace_back(text.substr(range.first, range.second - range.first));
  return out;
}

// The examples of the reference's SplitDelimiterBehavior documentation.
TEST(SplitText, EveryBehavior) {
  using V = std::vector<std::string>;
  std::string_view text = "the-final--countdown";
  EXPECT_EQ(pieces(text, SplitBehavior::Removed),
            (V{"the", "final", "countdown"}));
  EXPECT_EQ(pieces(text, SplitBehavior::Isolated),
            (V{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(pieces(text, SplitBehavior::MergedWithPrevious),
            (V{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(pieces(text, SplitBehavior::MergedWithNext),
            (V{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(pieces(text, SplitBehavior::Contiguous),
            (V{"the", "-", "final", "--", "countdown"}));
  EXPECT_EQ(pieces(text, SplitBehavior::Removed, /*invert=*/true),
            (V{"-", "-", "-"}));
  EXPECT_EQ(pieces("", SplitBehavior::Isolated), V{});
}

TEST(Regex, UnicodeClassesAndLookahead) {
  std::string error;
  std::unique_ptr<Regex> regex =
      Regex::compile(R"(\p{L}+|\s+(?!\S)|\s+)", error);
  ASSERT_TRUE(regex) << error;
  std::string text = "ab  \xE6\x97\xA5";
  std::vector<ByteRange> matches = regex->findAll(text);
  // "ab", one space (the lookahead leaves the last for the word), " ", "日"
  ASSERT_EQ(matches.size(), 4u);
  EXPECT_EQ(matches[1], ByteRange(2, 3));
  EXPECT_EQ(matches[3], ByteRange(4, 7));
  EXPECT_FALSE(Regex::compile("(unclosed", error));
  EXPECT_EQ(error, "end pattern with unmatched parenthesis");
}

} // namespace
} // namespace etch::llm
