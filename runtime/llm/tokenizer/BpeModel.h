// Byte-pair encoding as the Hugging Face tokenizers run it: characters (or
// byte-fallback tokens) merged pair by pair, the lowest-ranked merge first
// and the leftmost of equal ranks.
#pragma once

#include "runtime/llm/tokenizer/Models.h"

namespace etch::llm {

class BpeModel : public Model {
public:
  explicit BpeModel(const JsonField &field);
  void tokenize(std::string_view piece,
                std::vector<int32_t> &ids) const override;

private:
  struct Merge {
    int32_t rank, merged;
  };
  static uint64_t pairKey(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
           static_cast<uint32_t>(right);
  }
  void readMerges(const JsonField &merges);
  /// The piece's characters as initial symbols (ids) with their byte lengths.
  void splitCharacters(std::string_view piece,
                       std::vector<int32_t> &symbols) const;
  void mergeAll(std::vector<int32_t> &symbols) const;

  std::unordered_map<uint64_t, Merge> merges_;
  std::optional<int32_t> unk_;
  std::string continuingPrefix_, endSuffix_;
  bool fuseUnk_ = false, byteFallback_ = false, ignoreMerges_ = false;
};

} // namespace etch::llm
