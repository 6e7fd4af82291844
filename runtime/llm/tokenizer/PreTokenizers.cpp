// tokenizer.json "pre_tokenizer" objects.
#include "runtime/llm/tokenizer/ByteLevel.h"
#include "runtime/llm/tokenizer/Components.h"
#include "runtime/llm/tokenizer/Utf8.h"

namespace etch::llm {

namespace {

/// Splits every piece at \p pattern; a piece keeps atStart in its first part.
void splitPieces(std::vector<PreToken> &pieces, const Pattern &pattern,
                 SplitBehavior behavior, bool invert = false) {
  std::vector<PreToken> result;
  for (const PreToken &piece : pieces)
    for (const ByteRange &range :
         splitText(piece.text, pattern, behavior, invert))
      result.push_back(
          {piece.text.substr(range.first, range.second - range.first),
           piece.atStart && range.first == 0});
  pieces = std::move(result);
}

std::shared_ptr<const Regex> compileBuiltin(const char *pattern) {
  std::string error;
  std::shared_ptr<const Regex> regex = Regex::compile(pattern, error);
  return regex; // built-in patterns always compile
}

PreTokenizer byteLevel(const JsonField &field) {
  bool addPrefixSpace = field.getBool("add_prefix_space", true);
  bool useRegex = field.getBool("use_regex", true);
  static const Pattern gpt2 = regexPattern(compileBuiltin(kGpt2SplitPattern));
  return [=](std::vector<PreToken> &pieces) {
    if (addPrefixSpace)
      for (PreToken &piece : pieces)
        if (piece.text.empty() || piece.text[0] != ' ')
          piece.text.insert(0, 1, ' ');
    if (useRegex)
      splitPieces(pieces, gpt2, SplitBehavior::Isolated);
    for (PreToken &piece : pieces)
      piece.text = toByteLevel(piece.text);
  };
}

enum class PrependScheme { Always, First, Never };

/// Metaspace's prepend_scheme, or the older add_prefix_space flag.
PrependScheme readPrependScheme(const JsonField &field) {
  if (std::optional<JsonField> scheme = field.find("prepend_scheme")) {
    std::string name = scheme->string();
    if (name == "always")
      return PrependScheme::Always;
    if (name == "first")
      return PrependScheme::First;
    if (name == "never")
      return PrependScheme::Never;
    scheme->fail("always, first or never");
  }
  return field.getBool("add_prefix_space", true) ? PrependScheme::Always
                                                 : PrependScheme::Never;
}

PreTokenizer metaspace(const JsonField &field) {
  std::string replacement = readCharacter(field.at("replacement"));
  PrependScheme scheme = readPrependScheme(field);
  bool split = field.getBool("split", true);
  Pattern space = literalPattern(" ");
  Pattern marker = literalPattern(replacement);
  return [=](std::vector<PreToken> &pieces) {
    for (PreToken &piece : pieces) {
      piece.text = replaceAll(piece.text, space, replacement);
      bool prepend = scheme == PrependScheme::Always ||
                     (scheme == PrependScheme::First && piece.atStart);
      if (prepend && piece.text.compare(0, replacement.size(), replacement))
        piece.text.insert(0, replacement);
    }
    if (split)
      splitPieces(pieces, marker, SplitBehavior::MergedWithNext);
  };
}

PreTokenizer splitOnPattern(Pattern pattern, SplitBehavior behavior,
                            bool invert = false) {
  return [=](std::vector<PreToken> &pieces) {
    splitPieces(pieces, pattern, behavior, invert);
  };
}

PreTokenizer sequence(const JsonField &field) {
  std::vector<PreTokenizer> stages;
  for (const JsonField &stage : field.at("pretokenizers").elements())
    stages.push_back(makePreTokenizer(stage));
  return [stages](std::vector<PreToken> &pieces) {
    for (const PreTokenizer &stage : stages)
      stage(pieces);
  };
}

using Handler = PreTokenizer (*)(const JsonField &);

const std::pair<const char *, Handler> kPreTokenizers[] = {
    {"Sequence", sequence},
    {"ByteLevel", byteLevel},
    {"Metaspace", metaspace},
    {"Split",
     [](const JsonField &field) {
       return splitOnPattern(readPattern(field.at("pattern")),
                             readSplitBehavior(field.at("behavior")),
                             field.getBool("invert", false));
     }},
    {"Whitespace",
     [](const JsonField &) {
       static const Pattern words =
           regexPattern(compileBuiltin(R"(\w+|[^\w\s]+)"));
       return splitOnPattern(words, SplitBehavior::Removed, /*invert=*/true);
     }},
    {"WhitespaceSplit",
     [](const JsonField &) {
       return splitOnPattern(characterPattern(isWhitespace),
                             SplitBehavior::Removed);
     }},
    {"Digits",
     [](const JsonField &field) {
       return splitOnPattern(characterPattern(isNumeric),
                             field.getBool("individual_digits", false)
                                 ? SplitBehavior::Isolated
                                 : SplitBehavior::Contiguous);
     }},
    {"Punctuation",
     [](const JsonField &field) {
       std::optional<JsonField> behavior = field.find("behavior");
       return splitOnPattern(characterPattern(isPunctuation),
                             behavior ? readSplitBehavior(*behavior)
                                      : SplitBehavior::Isolated);
     }},
    {"BertPreTokenizer",
     [](const JsonField &) -> PreTokenizer {
       return [](std::vector<PreToken> &pieces) {
         splitPieces(pieces, characterPattern(isWhitespace),
                     SplitBehavior::Removed);
         splitPieces(pieces, characterPattern(isPunctuation),
                     SplitBehavior::Isolated);
       };
     }},
    {"CharDelimiterSplit",
     [](const JsonField &field) {
       return splitOnPattern(
           literalPattern(readCharacter(field.at("delimiter"))),
           SplitBehavior::Removed);
     }},
};

} // namespace

PreTokenizer makePreTokenizer(const JsonField &field) {
  return buildByType<PreTokenizer>(field, kPreTokenizers, "pre_tokenizer");
}

} // namespace etch::llm
