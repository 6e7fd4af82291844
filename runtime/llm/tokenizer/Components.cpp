#include "runtime/llm/tokenizer/Components.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <cctype>

namespace etch::llm {

Pattern readPattern(const JsonField &field) {
  if (std::optional<JsonField> literal = field.find("String"))
    return literalPattern(literal->string());
  if (std::optional<JsonField> regex = field.find("Regex")) {
    std::string error;
    std::shared_ptr<const Regex> compiled =
        Regex::compile(regex->string(), error);
    if (!compiled)
      regex->fail("a regex Oniguruma accepts (" + error + ")");
    return regexPattern(std::move(compiled));
  }
  field.fail("{\"String\": ...} or {\"Regex\": ...}");
}

std::string readCharacter(const JsonField &field) {
  std::string text = field.string();
  char32_t c;
  if (text.empty() || decodeUtf8(text, 0, c) != text.size())
    field.fail("one character");
  return text;
}

SplitBehavior readSplitBehavior(const JsonField &field) {
  std::string name = field.string();
  for (char &c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<const char *, SplitBehavior> kNames[] = {
      {"removed", SplitBehavior::Removed},
      {"isolated", SplitBehavior::Isolated},
      {"mergedwithprevious", SplitBehavior::MergedWithPrevious},
      {"mergedwithnext", SplitBehavior::MergedWithNext},
      {"contiguous", SplitBehavior::Contiguous}};
  for (const auto &[known, behavior] : kNames)
    if (name == known)
      return behavior;
  field.fail("Removed, Isolated, MergedWithPrevious, MergedWithNext or "
             "Contiguous");
}

} // namespace etch::llm
