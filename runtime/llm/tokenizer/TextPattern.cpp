#include "runtime/llm/tokenizer/TextPattern.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <oniguruma.h>

#include <algorithm>
#include <mutex>

namespace etch::llm {

namespace {
void initializeOniguruma() {
  static std::once_flag once;
  std::call_once(once, [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
  });
}
} // namespace

std::unique_ptr<Regex> Regex::compile(std::string_view pattern,
                                      std::string &error) {
  initializeOniguruma();
  regex_t *regex = nullptr;
  OnigErrorInfo info;
  auto *begin = reinterpret_cast<const OnigUChar *>(pattern.data());
  int status =
      onig_new(&regex, begin, begin + pattern.size(), ONIG_OPTION_CAPTURE_GROUP,
               ONIG_ENCODING_UTF8, ONIG_SYNTAX_RUBY, &info);
  if (status != ONIG_NORMAL) {
    OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
    onig_error_code_to_str(message, status, &info);
    error = reinterpret_cast<char *>(message);
    return nullptr;
  }
  return std::unique_ptr<Regex>(new Regex(regex));
}

Regex::~Regex() { onig_free(regex_); }

std::vector<ByteRange> Regex::findAll(std::string_view text) const {
  std::vector<ByteRange> matches;
  OnigRegion *region = onig_region_new();
  auto *begin = reinterpret_cast<const OnigUChar *>(text.data());
  auto *end = begin + text.size();
  size_t pos = 0;
  while (pos <= text.size()) {
    int found = onig_search(regex_, begin, end, begin + pos, end, region,
                            ONIG_OPTION_NONE);
    if (found < 0)
      break;
    size_t first = region->beg[0], last = region->end[0];
    if (last > first) {
      matches.emplace_back(first, last);
      pos = last;
      continue;
    }
    // An empty match: step over one character so the search moves on.
    if (first >= text.size())
      break;
    char32_t c;
    size_t length = decodeUtf8(text, first, c);
    pos = first + (length ? length : 1);
  }
  onig_region_free(region, 1);
  return matches;
}

Pattern regexPattern(std::shared_ptr<const Regex> regex) {
  return [regex](std::string_view text) { return regex->findAll(text); };
}

Pattern literalPattern(std::string literal) {
  return [literal](std::string_view text) {
    std::vector<ByteRange> matches;
    if (literal.empty())
      return matches;
    for (size_t at = text.find(literal); at != std::string_view::npos;
         at = text.find(literal, at + literal.size()))
      matches.emplace_back(at, at + literal.size());
    return matches;
  };
}

Pattern characterPattern(std::function<bool(char32_t)> predicate) {
  return [predicate](std::string_view text) {
    std::vector<ByteRange> matches;
    forEachChar(text, [&](char32_t c, size_t start, size_t length) {
      if (predicate(c))
        matches.emplace_back(start, start + length);
    });
    return matches;
  };
}

namespace {

struct Piece {
  ByteRange range;
  bool isMatch;
};

/// The whole of \p text as alternating pieces: between matches and matches.
std::vector<Piece> coverText(std::string_view text, const Pattern &pattern,
                             bool invert) {
  std::vector<Piece> pieces;
  size_t previous = 0;
  for (const ByteRange &match : pattern(text)) {
    if (previous != match.first)
      pieces.push_back({{previous, match.first}, invert});
    pieces.push_back({match, !invert});
    previous = match.second;
  }
  if (previous != text.size())
    pieces.push_back({{previous, text.size()}, invert});
  return pieces;
}

/// Glues each match to the piece before it (\p withPrevious) or after it.
std::vector<Piece> mergeMatches(const std::vector<Piece> &pieces,
                                bool withPrevious) {
  std::vector<Piece> merged;
  bool previousMatch = false;
  auto visit = [&](const Piece &piece) {
    if (piece.isMatch && !previousMatch && !merged.empty()) {
      if (withPrevious)
        merged.back().range.second = piece.range.second;
      else
        merged.back().range.first = piece.range.first;
    } else {
      merged.push_back({piece.range, false});
    }
    previousMatch = piece.isMatch;
  };
  if (withPrevious) {
    for (const Piece &piece : pieces)
      visit(piece);
  } else {
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it)
      visit(*it);
    std::reverse(merged.begin(), merged.end());
  }
  return merged;
}

} // namespace

std::vector<ByteRange> splitText(std::string_view text, const Pattern &pattern,
                                 SplitBehavior behavior, bool invert) {
  std::vector<Piece> pieces = coverText(text, pattern, invert);
  std::vector<ByteRange> result;
  switch (behavior) {
  case SplitBehavior::Removed:
    for (const Piece &piece : pieces)
      if (!piece.isMatch)
        result.push_back(piece.range);
    break;
  case SplitBehavior::Isolated:
    for (const Piece &piece : pieces)
      result.push_back(piece.range);
    break;
  case SplitBehavior::MergedWithPrevious:
  case SplitBehavior::MergedWithNext:
    for (const Piece &piece :
         mergeMatches(pieces, behavior == SplitBehavior::MergedWithPrevious))
      result.push_back(piece.range);
    break;
  case SplitBehavior::Contiguous: {
    bool previousMatch = false;
    for (const Piece &piece : pieces) {
      if (piece.isMatch == previousMatch && !result.empty())
        result.back().second = piece.range.second;
      else
        result.push_back(piece.range);
      previousMatch = piece.isMatch;
    }
    break;
  }
  }
  return result;
}

std::string replaceAll(std::string_view text, const Pattern &pattern,
                       std::string_view content) {
  std::string out;
  size_t previous = 0;
  for (const ByteRange &match : pattern(text)) {
    out.append(text.substr(previous, match.first - previous));
    out.append(content);
    previous = match.second;
  }
  out.append(text.substr(previous));
  return out;
}

} // namespace etch::llm
