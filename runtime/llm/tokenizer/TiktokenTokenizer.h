// A tiktoken rank file ("BASE64 RANK" per line, as tiktoken's
// load_tiktoken_bpe reads): byte-level BPE where the pair whose joined
// bytes have the lowest rank merges first. Pieces are cut with the
// cl100k/Llama 3 pattern; the file has no special tokens.
#pragma once

#include "runtime/llm/tokenizer/TextPattern.h"
#include "runtime/llm/tokenizer/Tokenizer.h"

#include <unordered_map>

namespace etch::llm {

class TiktokenTokenizer : public Tokenizer {
public:
  /// The tokenizer, or null with \p error set ("line N: ...").
  static std::unique_ptr<TiktokenTokenizer> read(std::string_view text,
                                                 std::string &error);

  std::vector<int32_t> encode(std::string_view text,
                              bool addSpecial) const override;
  std::string decode(const std::vector<int32_t> &ids) const override;
  int32_t vocabSize() const override;
  std::optional<std::string> token(int32_t id) const override;
  std::optional<int32_t> tokenId(std::string_view text) const override;

  /// Whether \p text looks like a rank file (its first line does).
  static bool looksLikeRanks(std::string_view text);

private:
  std::optional<int32_t> rankOf(std::string_view bytes) const;
  void bytePairEncode(std::string_view piece, std::vector<int32_t> &ids) const;

  std::unordered_map<std::string, int32_t> ranks_;
  std::unordered_map<int32_t, std::string> tokens_; // by rank (may be sparse)
  int32_t maxRank_ = -1;
  std::shared_ptr<const Regex> pattern_;
};

} // namespace etch::llm
