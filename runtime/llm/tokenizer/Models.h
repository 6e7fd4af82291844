// The model of a tokenizer.json: turns one pre-tokenized piece into ids.
#pragma once

#include "runtime/llm/tokenizer/JsonField.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace etch::llm {

class Model {
public:
  virtual ~Model() = default;
  /// Appends the ids of \p piece to \p ids.
  virtual void tokenize(std::string_view piece,
                        std::vector<int32_t> &ids) const = 0;

  std::optional<std::string> token(int32_t id) const {
    auto it = tokens_.find(id);
    if (it == tokens_.end())
      return std::nullopt;
    return it->second;
  }
  std::optional<int32_t> tokenId(std::string_view text) const {
    auto it = ids_.find(std::string(text));
    if (it == ids_.end())
      return std::nullopt;
    return it->second;
  }
  /// One past the largest id.
  int32_t size() const { return maxId_ + 1; }

protected:
  /// Appends the "<0xAB>" tokens of \p text's bytes when the vocabulary has
  /// every one; false (nothing appended) otherwise.
  bool appendByteFallback(std::string_view text,
                          std::vector<int32_t> &ids) const;

  /// Records \p text as \p id (a later duplicate wins the text -> id map,
  /// as in the reference).
  void addToken(const std::string &text, int32_t id);

  std::unordered_map<std::string, int32_t> ids_;
  // Ids may be sparse (a file's ids are not trusted to be dense).
  std::unordered_map<int32_t, std::string> tokens_;
  int32_t maxId_ = -1;
};

/// The "model" object: BPE or Unigram.
std::unique_ptr<Model> makeModel(const JsonField &field);

/// "<0xAB>": the token byte fallback spells a byte with.
std::string byteFallbackToken(unsigned char byte);

} // namespace etch::llm
