#include "runtime/llm/chat/JinjaStrings.h"
#include "runtime/llm/chat/JinjaBuiltins.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <utf8proc.h>

#include <algorithm>

namespace etch::llm::jinja {

namespace {

std::string mapCharacters(const std::string &text,
                          utf8proc_int32_t (*map)(utf8proc_int32_t)) {
  std::string out;
  forEachChar(text,
              [&](char32_t c, size_t, size_t) { appendUtf8(out, map(c)); });
  return out;
}

bool isCased(char32_t c) {
  return utf8proc_tolower(c) != static_cast<utf8proc_int32_t>(c) ||
         utf8proc_toupper(c) != static_cast<utf8proc_int32_t>(c);
}

} // namespace

/// Argument \p index, or keyword \p name, or \p fallback.
Value argument(const Arguments &args, const KeywordArguments &keywords,
               size_t index, const char *name, Value fallback) {
  if (index < args.size())
    return args[index];
  for (const auto &[key, value] : keywords)
    if (key == name)
      return value;
  return fallback;
}

const std::string &needString(const Value &value, const char *what) {
  if (!value.is(Value::Kind::String))
    fail(std::string(what) + " expects a string, not " + value.typeName());
  return value.string();
}

int64_t needInteger(const Value &value, const char *what) {
  if (value.is(Value::Kind::Int))
    return value.integer();
  if (value.is(Value::Kind::Bool))
    return value.boolean();
  fail(std::string(what) + " expects an integer, not " + value.typeName());
}

std::string lower(const std::string &text) {
  return mapCharacters(text, utf8proc_tolower);
}
std::string upper(const std::string &text) {
  return mapCharacters(text, utf8proc_toupper);
}

/// Python's str.title(): a letter after an uncased character is upper.
std::string title(const std::string &text) {
  std::string out;
  bool previousCased = false;
  forEachChar(text, [&](char32_t c, size_t, size_t) {
    appendUtf8(out, previousCased ? utf8proc_tolower(c) : utf8proc_totitle(c));
    previousCased = isCased(c);
  });
  return out;
}

std::string capitalize(const std::string &text) {
  std::string out;
  bool first = true;
  forEachChar(text, [&](char32_t c, size_t, size_t) {
    appendUtf8(out, first ? utf8proc_totitle(c) : utf8proc_tolower(c));
    first = false;
  });
  return out;
}

/// str.strip / lstrip / rstrip: whitespace, or the characters of \p chars.
std::string strip(const std::string &text, const Value &chars, bool left,
                  bool right) {
  std::vector<std::string> characterList = characters(text);
  std::vector<std::string> set;
  if (chars.is(Value::Kind::String))
    set = characters(chars.string());
  auto strippable = [&](const std::string &c) {
    if (!chars.is(Value::Kind::String)) {
      char32_t code = 0;
      decodeUtf8(c, 0, code);
      return isWhitespace(code);
    }
    return std::find(set.begin(), set.end(), c) != set.end();
  };
  size_t first = 0, last = characterList.size();
  while (left && first < last && strippable(characterList[first]))
    ++first;
  while (right && last > first && strippable(characterList[last - 1]))
    --last;
  std::string out;
  for (size_t i = first; i < last; ++i)
    out += characterList[i];
  return out;
}

std::string replace(const std::string &text, const std::string &from,
                    const std::string &to, int64_t count) {
  std::string out;
  size_t pos = 0;
  int64_t done = 0;
  if (from.empty()) {
    // Python inserts \p to between characters (and at both ends).
    std::vector<std::string> chars = characters(text);
    for (size_t i = 0; i <= chars.size(); ++i) {
      if (count < 0 || done < count) {
        out += to;
        ++done;
      }
      if (i < chars.size())
        out += chars[i];
    }
    return out;
  }
  for (size_t at; (count < 0 || done < count) &&
                  (at = text.find(from, pos)) != std::string::npos;
       ++done) {
    out.append(text, pos, at - pos);
    out += to;
    pos = at + from.size();
  }
  return out + text.substr(pos);
}

/// Python's str.split(sep=None, maxsplit=-1).
List split(const std::string &text, const Value &separator, int64_t maxSplit) {
  List parts;
  if (!separator.is(Value::Kind::String)) {
    std::vector<std::string> chars = characters(text);
    std::string current;
    bool inWord = false;
    for (size_t i = 0; i < chars.size(); ++i) {
      char32_t code = 0;
      decodeUtf8(chars[i], 0, code);
      if (isWhitespace(code)) {
        if (inWord) {
          parts.push_back(Value(current));
          current.clear();
          inWord = false;
        }
        continue;
      }
      if (!inWord && maxSplit >= 0 &&
          static_cast<int64_t>(parts.size()) == maxSplit) {
        std::string rest;
        for (size_t j = i; j < chars.size(); ++j)
          rest += chars[j];
        parts.push_back(Value(strip(rest, Value(), false, true)));
        return parts;
      }
      current += chars[i];
      inWord = true;
    }
    if (inWord)
      parts.push_back(Value(current));
    return parts;
  }
  const std::string &sep = separator.string();
  if (sep.empty())
    fail("split(): empty separator");
  size_t pos = 0;
  for (size_t at;
       (maxSplit < 0 || static_cast<int64_t>(parts.size()) < maxSplit) &&
       (at = text.find(sep, pos)) != std::string::npos;) {
    parts.push_back(Value(text.substr(pos, at - pos)));
    pos = at + sep.size();
  }
  parts.push_back(Value(text.substr(pos)));
  return parts;
}

bool affix(const std::string &text, const Value &candidates, bool prefix) {
  List options =
      candidates.is(Value::Kind::List) ? candidates.items() : List{candidates};
  for (const Value &option : options) {
    const std::string &a =
        needString(option, prefix ? "startswith" : "endswith");
    if (a.size() <= text.size() &&
        text.compare(prefix ? 0 : text.size() - a.size(), a.size(), a) == 0)
      return true;
  }
  return false;
}

int64_t length(const Value &value) {
  switch (value.kind()) {
  case Value::Kind::String:
    return static_cast<int64_t>(characters(value.string()).size());
  case Value::Kind::List:
    return static_cast<int64_t>(value.items().size());
  case Value::Kind::Dict:
    return static_cast<int64_t>(value.entries().size());
  default:
    fail(std::string("object of type '") + value.typeName() + "' has no len()");
  }
}

} // namespace etch::llm::jinja
