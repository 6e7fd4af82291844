// UTF-8 reading and writing, and the character classes the Hugging Face
// tokenizers take from Rust's char methods.
#pragma once

#include "runtime/llm/QuotedText.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace etch::llm {

/// The length of the well-formed UTF-8 sequence at \p text[pos], or 0 when
/// it is not one; \p codepoint gets its value.
size_t decodeUtf8(std::string_view text, size_t pos, char32_t &codepoint);

void appendUtf8(std::string &out, char32_t codepoint);

/// \p text with every ill-formed subsequence replaced by U+FFFD, one per
/// maximal subpart (what Rust's from_utf8_lossy and Python's
/// decode(errors="replace") both do).
std::string toValidUtf8(std::string_view text);

/// The length of the longest prefix of \p text that ends on a character
/// boundary (an incomplete sequence at the end is left out).
size_t completeUtf8Prefix(std::string_view text);

/// Rust's char::is_whitespace (the White_Space property).
bool isWhitespace(char32_t c);
/// Rust's char::is_numeric (general categories Nd, Nl, No).
bool isNumeric(char32_t c);
/// Rust's char::is_alphanumeric, as a general-category approximation
/// (letters and numbers).
bool isAlphanumeric(char32_t c);
/// Unicode punctuation (P*) or ASCII punctuation, as the Punctuation and
/// Bert pre-tokenizers define it.
bool isPunctuation(char32_t c);

/// Calls \p visit(codepoint, start, length) for every character of valid
/// UTF-8 \p text.
template <typename Visit> void forEachChar(std::string_view text, Visit visit) {
  for (size_t pos = 0; pos < text.size();) {
    char32_t c = 0;
    size_t length = decodeUtf8(text, pos, c);
    if (length == 0) { // not reached for valid text; keeps the loop finite
      c = 0xFFFD;
      length = 1;
    }
    visit(c, pos, length);
    pos += length;
  }
}

} // namespace etch::llm
