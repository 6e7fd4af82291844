// tokenizer.json "normalizer" objects.
#include "runtime/llm/tokenizer/ByteLevel.h"
#include "runtime/llm/tokenizer/Components.h"
#include "runtime/llm/tokenizer/Utf8.h"

#include <utf8proc.h>

#include <cstdlib>

namespace etch::llm {

namespace {

/// One of the four Unicode normalization forms, by utf8proc's options.
Normalizer unicodeForm(int options) {
  return [options](std::string_view text) {
    if (text.empty())
      return std::string();
    utf8proc_uint8_t *mapped = nullptr;
    utf8proc_ssize_t length =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t *>(text.data()),
                     static_cast<utf8proc_ssize_t>(text.size()), &mapped,
                     static_cast<utf8proc_option_t>(options | UTF8PROC_STABLE));
    if (length < 0) // not reached: the text was made valid UTF-8 first
      return std::string(text);
    std::string out(reinterpret_cast<char *>(mapped), length);
    std::free(mapped);
    return out;
  };
}

/// Each character's full lowercase mapping on its own (the reference maps
/// character by character: U+0130 becomes two, a final sigma stays σ).
std::string lowercase(std::string_view text) {
  std::string out;
  forEachChar(text, [&](char32_t c, size_t, size_t) {
    if (c == 0x130) {
      appendUtf8(out, 'i');
      appendUtf8(out, 0x307);
    } else {
      appendUtf8(out, utf8proc_tolower(c));
    }
  });
  return out;
}

/// Combining marks dropped: every kind (Mn, Mc, Me) for StripAccents, the
/// nonspacing ones alone for BertNormalizer, as in the reference.
std::string stripAccents(std::string_view text, bool nonspacingOnly = false) {
  std::string out;
  forEachChar(text, [&](char32_t c, size_t start, size_t length) {
    utf8proc_category_t category = utf8proc_category(c);
    bool mark = category == UTF8PROC_CATEGORY_MN ||
                (!nonspacingOnly && (category == UTF8PROC_CATEGORY_MC ||
                                     category == UTF8PROC_CATEGORY_ME));
    if (!mark)
      out.append(text.substr(start, length));
  });
  return out;
}

std::string strip(std::string_view text, bool left, bool right) {
  size_t first = 0, last = text.size();
  std::vector<std::pair<size_t, size_t>> spans;
  forEachChar(text, [&](char32_t c, size_t start, size_t length) {
    if (!isWhitespace(c))
      spans.emplace_back(start, start + length);
  });
  if (spans.empty())
    return left || right ? std::string() : std::string(text);
  if (left)
    first = spans.front().first;
  if (right)
    last = spans.back().second;
  return std::string(text.substr(first, last - first));
}

bool isChineseCharacter(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

/// BERT's cleanup: control characters dropped, whitespace made a space,
/// CJK ideographs set apart, then accents and case as configured.
Normalizer bert(const JsonField &field) {
  bool cleanText = field.getBool("clean_text", true);
  bool chinese = field.getBool("handle_chinese_chars", true);
  bool lower = field.getBool("lowercase", true);
  bool accents = field.getBool("strip_accents", lower);
  return [=](std::string_view text) {
    std::string out;
    forEachChar(text, [&](char32_t c, size_t start, size_t length) {
      utf8proc_category_t category = utf8proc_category(c);
      bool control = c != '\t' && c != '\n' && c != '\r' &&
                     (category == UTF8PROC_CATEGORY_CC ||
                      category == UTF8PROC_CATEGORY_CF ||
                      category == UTF8PROC_CATEGORY_CN ||
                      category == UTF8PROC_CATEGORY_CO);
      if (cleanText && (c == 0 || c == 0xFFFD || control))
        return;
      if (cleanText && isWhitespace(c)) {
        out += ' ';
      } else if (chinese && isChineseCharacter(c)) {
        out += ' ';
        out.append(text.substr(start, length));
        out += ' ';
      } else {
        out.append(text.substr(start, length));
      }
    });
    if (accents)
      out = stripAccents(unicodeForm(UTF8PROC_DECOMPOSE)(out),
                         /*nonspacingOnly=*/true);
    return lower ? lowercase(out) : out;
  };
}

using Handler = Normalizer (*)(const JsonField &);

Normalizer sequence(const JsonField &field) {
  std::vector<Normalizer> stages;
  for (const JsonField &stage : field.at("normalizers").elements())
    stages.push_back(makeNormalizer(stage));
  return [stages](std::string_view text) {
    std::string out(text);
    for (const Normalizer &stage : stages)
      out = stage(out);
    return out;
  };
}

const std::pair<const char *, Handler> kNormalizers[] = {
    {"Sequence", sequence},
    {"NFC", [](const JsonField &) { return unicodeForm(UTF8PROC_COMPOSE); }},
    {"NFD", [](const JsonField &) { return unicodeForm(UTF8PROC_DECOMPOSE); }},
    {"NFKC",
     [](const JsonField &) {
       return unicodeForm(UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
     }},
    {"NFKD",
     [](const JsonField &) {
       return unicodeForm(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
     }},
    {"Lowercase",
     [](const JsonField &) -> Normalizer {
       return [](std::string_view text) { return lowercase(text); };
     }},
    {"StripAccents",
     [](const JsonField &) -> Normalizer {
       return [](std::string_view text) { return stripAccents(text); };
     }},
    {"Strip",
     [](const JsonField &field) -> Normalizer {
       bool left = field.getBool("strip_left", true);
       bool right = field.getBool("strip_right", true);
       return [=](std::string_view text) { return strip(text, left, right); };
     }},
    {"Replace",
     [](const JsonField &field) -> Normalizer {
       Pattern pattern = readPattern(field.at("pattern"));
       std::string content = field.at("content").string();
       return [=](std::string_view text) {
         return replaceAll(text, pattern, content);
       };
     }},
    {"Prepend",
     [](const JsonField &field) -> Normalizer {
       std::string prefix = field.at("prepend").string();
       return [=](std::string_view text) {
         return text.empty() ? std::string() : prefix + std::string(text);
       };
     }},
    {"ByteLevel",
     [](const JsonField &) -> Normalizer {
       return [](std::string_view text) { return toByteLevel(text); };
     }},
    {"BertNormalizer", bert},
};

} // namespace

Normalizer makeNormalizer(const JsonField &field) {
  return buildByType<Normalizer>(field, kNormalizers, "normalizer");
}

} // namespace etch::llm
