// What the Hugging Face tokenizers call a Pattern (a regex, a literal string
// or a character class) and the ways a string is split at its matches.
// Regexes are Oniguruma's, with the Ruby syntax the reference uses.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

typedef struct re_pattern_buffer OnigRegexType;

namespace etch::llm {

using ByteRange = std::pair<size_t, size_t>; // [first, second)

class Regex {
public:
  /// The compiled \p pattern, or null with \p error set.
  static std::unique_ptr<Regex> compile(std::string_view pattern,
                                        std::string &error);
  ~Regex();
  Regex(const Regex &) = delete;
  Regex &operator=(const Regex &) = delete;

  /// The non-overlapping matches in valid UTF-8 \p text, left to right.
  std::vector<ByteRange> findAll(std::string_view text) const;

private:
  explicit Regex(OnigRegexType *regex) : regex_(regex) {}
  OnigRegexType *regex_;
};

/// Finds the matches of a pattern in a string.
using Pattern = std::function<std::vector<ByteRange>(std::string_view)>;

Pattern regexPattern(std::shared_ptr<const Regex> regex);
Pattern literalPattern(std::string literal);
/// Every character for which \p predicate holds is one match.
Pattern characterPattern(std::function<bool(char32_t)> predicate);

enum class SplitBehavior {
  Removed,
  Isolated,
  MergedWithPrevious,
  MergedWithNext,
  Contiguous
};

/// The non-empty pieces of \p text split at \p pattern's matches; with
/// \p invert the matches are the pieces and the text between them the
/// delimiters.
std::vector<ByteRange> splitText(std::string_view text, const Pattern &pattern,
                                 SplitBehavior behavior, bool invert = false);

/// \p text with every match of \p pattern replaced by \p content.
std::string replaceAll(std::string_view text, const Pattern &pattern,
                       std::string_view content);

} // namespace etch::llm
