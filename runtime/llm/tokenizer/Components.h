// The stages of a Hugging Face tokenizer pipeline around its model, each
// built from its tokenizer.json object by a table of small handlers keyed
// by "type" (an unknown type is a FormatError naming the field).
#pragma once

#include "runtime/llm/tokenizer/JsonField.h"
#include "runtime/llm/tokenizer/TextPattern.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace etch::llm {

/// Rewrites text before it is split (NFC, lowercase, prepend "▁", ...).
using Normalizer = std::function<std::string(std::string_view)>;

/// A piece of the input on its way to the model. \p atStart: it begins the
/// input (Metaspace's prepend_scheme "first" looks at that).
struct PreToken {
  std::string text;
  bool atStart;
};
/// Splits (and may rewrite) the pieces.
using PreTokenizer = std::function<void(std::vector<PreToken> &)>;

/// Turns token strings back into text, a stage at a time.
using Decoder = std::function<void(std::vector<std::string> &)>;

/// Adds the special tokens around one sequence's ids.
using PostProcessor = std::function<void(std::vector<int32_t> &)>;

Normalizer makeNormalizer(const JsonField &field);
PreTokenizer makePreTokenizer(const JsonField &field);
Decoder makeDecoder(const JsonField &field);
PostProcessor makePostProcessor(const JsonField &field);

/// A {"String": ...} or {"Regex": ...} pattern object.
Pattern readPattern(const JsonField &field);
/// A string field holding exactly one character (Metaspace's replacement,
/// a delimiter, ...).
std::string readCharacter(const JsonField &field);
/// A SplitDelimiterBehavior name ("Isolated", "removed", ...).
SplitBehavior readSplitBehavior(const JsonField &field);
/// Looks up the handler for \p field's "type" in \p handlers.
template <typename Product, typename Handlers>
Product buildByType(const JsonField &field, const Handlers &handlers,
                    const char *kind) {
  std::string type = field.at("type").string();
  for (const auto &[name, handler] : handlers)
    if (type == name)
      return handler(field);
  std::string known;
  for (const auto &[name, handler] : handlers)
    known += (known.empty() ? "" : ", ") + std::string(name);
  JsonField(field.at("type"))
      .fail(std::string("a supported ") + kind + " type (" + known +
            "), not '" + type + "'");
}

} // namespace etch::llm
