// Tokens added on top of the model's vocabulary (special tokens such as
// "<|endoftext|>", and user additions): found in the text before the model
// sees it, matched leftmost-longest, with their lstrip/rstrip/single_word
// rules, on the raw text or (normalized=true) on the normalized text.
#pragma once

#include "runtime/llm/tokenizer/Components.h"

#include <array>
#include <optional>
#include <unordered_map>

namespace etch::llm {

/// A piece of the input: an added token's id, or text for the model.
struct Segment {
  std::string text;
  std::optional<int32_t> id;
  bool atStart; // begins the input
};

class AddedVocabulary {
public:
  struct Token {
    std::string content;
    int32_t id;
    bool singleWord, lstrip, rstrip, normalized, special;
  };

  /// Reads the "added_tokens" array; \p normalizer (may be empty) applies to
  /// the tokens marked normalized.
  void read(const JsonField &field, const Normalizer &normalizer);

  /// \p text cut at the added tokens, the rest normalized by \p normalizer.
  std::vector<Segment> split(std::string_view text,
                             const Normalizer &normalizer) const;

  const Token *byId(int32_t id) const;
  std::optional<int32_t> idOf(std::string_view content) const;
  int32_t size() const { return maxId_ + 1; }

private:
  /// Cuts every text segment of \p segments at the tokens whose
  /// normalized flag equals \p normalized.
  void cut(std::vector<Segment> &segments, bool normalized) const;

  std::vector<Token> tokens_;
  std::vector<std::string> matchText_; // per token: what is looked for
  std::array<bool, 256> firstByte_{};  // bytes some token starts with
  std::unordered_map<int32_t, size_t> byId_;
  int32_t maxId_ = -1;
};

} // namespace etch::llm
