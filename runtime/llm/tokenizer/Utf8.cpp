#include "runtime/llm/tokenizer/Utf8.h"

#include <utf8proc.h>

#include <cstdio>

namespace etch::llm {

size_t decodeUtf8(std::string_view text, size_t pos, char32_t &codepoint) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos);
  if (lead < 0x80) {
    codepoint = lead;
    return 1;
  }
  size_t length;
  unsigned char low = 0x80, high = 0xBF; // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (pos + length > text.size())
    return 0;
  char32_t value = lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    unsigned char next = byte(pos + i);
    if (next < (i == 1 ? low : 0x80) || next > (i == 1 ? high : 0xBF))
      return 0;
    value = (value << 6) | (next & 0x3F);
  }
  codepoint = value;
  return length;
}

void appendUtf8(std::string &out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

namespace {

/// How many bytes from \p pos form the maximal subpart of an ill-formed
/// sequence: the longest prefix of a well-formed one, at least one byte.
size_t maximalSubpart(std::string_view text, size_t pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos);
  size_t length = lead >= 0xC2 && lead <= 0xDF   ? 2
                  : lead >= 0xE0 && lead <= 0xEF ? 3
                  : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                 : 1;
  unsigned char low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
  unsigned char high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
  size_t taken = 1;
  while (taken < length && pos + taken < text.size()) {
    unsigned char next = byte(pos + taken);
    if (next < (taken == 1 ? low : 0x80) || next > (taken == 1 ? high : 0xBF))
      break;
    ++taken;
  }
  return taken;
}

} // namespace

std::string toValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    char32_t c = 0;
    size_t length = decodeUtf8(text, pos, c);
    if (length) {
      out.append(text.substr(pos, length));
      pos += length;
    } else {
      appendUtf8(out, 0xFFFD);
      pos += maximalSubpart(text, pos);
    }
  }
  return out;
}

size_t completeUtf8Prefix(std::string_view text) {
  // Look back at most three bytes for the lead of an unfinished sequence.
  for (size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    unsigned char byte = static_cast<unsigned char>(text[text.size() - back]);
    if ((byte & 0xC0) == 0x80)
      continue; // a continuation byte: keep looking for its lead
    size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    return length > back ? text.size() - back : text.size();
  }
  return text.size();
}

bool isWhitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

namespace {
utf8proc_category_t categoryOf(char32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}
} // namespace

bool isNumeric(char32_t c) {
  utf8proc_category_t category = categoryOf(c);
  return category == UTF8PROC_CATEGORY_ND || category == UTF8PROC_CATEGORY_NL ||
         category == UTF8PROC_CATEGORY_NO;
}

bool isAlphanumeric(char32_t c) {
  utf8proc_category_t category = categoryOf(c);
  return (category >= UTF8PROC_CATEGORY_LU &&
          category <= UTF8PROC_CATEGORY_LO) ||
         isNumeric(c);
}

bool isPunctuation(char32_t c) {
  if (c < 0x80)
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) ||
           (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
  utf8proc_category_t category = categoryOf(c);
  return category >= UTF8PROC_CATEGORY_PC && category <= UTF8PROC_CATEGORY_PO;
}

} // namespace etch::llm
