// The Unigram language model as the Hugging Face tokenizers run it: the
// most likely segmentation by Viterbi over the vocabulary's log
// probabilities, runs of unknown characters fused into one unknown token.
#pragma once

#include "runtime/llm/tokenizer/Models.h"

namespace etch::llm {

class UnigramModel : public Model {
public:
  explicit UnigramModel(const JsonField &field);
  void tokenize(std::string_view piece,
                std::vector<int32_t> &ids) const override;

private:
  /// The segmentation of \p piece as byte ranges, unknown runs fused.
  std::vector<std::pair<size_t, size_t>> segment(std::string_view piece) const;

  std::vector<double> scores_;
  std::optional<int32_t> unk_;
  double unkScore_ = 0;
  size_t longestToken_ = 0; // in bytes: bounds the Viterbi's look-ahead
  bool byteFallback_ = false;
};

} // namespace etch::llm
