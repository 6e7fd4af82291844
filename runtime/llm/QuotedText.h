// String literals for JSON and Python's repr: one escaping rule, two ways of
// writing a control byte. Header-only, so that et-run (runtime only, no
// tokenizer) writes its JSON the way the LLM tools do.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace etch::llm {

/// How a literal writes the control bytes it has no short escape for.
enum class QuoteStyle {
  Json,   ///< \b, \f and \u00XX (json.dumps with ensure_ascii=False)
  Python, ///< \xXX, DEL included (repr of a str)
};

/// \p text between \p quote characters: backslash, the quote, \n, \r and
/// \t escaped with a backslash, other control bytes as \p style writes them;
/// UTF-8 is kept as it is.
inline std::string quotedText(std::string_view text, char quote,
                              QuoteStyle style) {
  bool json = style == QuoteStyle::Json;
  std::string out(1, quote);
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    const char *escape = c == '\\'           ? "\\\\"
                         : c == '\n'         ? "\\n"
                         : c == '\r'         ? "\\r"
                         : c == '\t'         ? "\\t"
                         : json && c == '\b' ? "\\b"
                         : json && c == '\f' ? "\\f"
                                             : nullptr;
    if (escape) {
      out += escape;
    } else if (c == quote) {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || (!json && byte == 0x7F)) {
      char code[8];
      std::snprintf(code, sizeof code, json ? "\\u%04x" : "\\x%02x", byte);
      out += code;
    } else {
      out += c;
    }
  }
  return out + quote;
}

/// \p text as a JSON string literal.
inline std::string jsonQuoted(std::string_view text) {
  return quotedText(text, '"', QuoteStyle::Json);
}

} // namespace etch::llm
