// A Hugging Face tokenizer.json: added tokens, normalizer, pre-tokenizer,
// model, post-processor and decoder, run in the reference's order.
#pragma once

#include "runtime/llm/tokenizer/AddedVocabulary.h"
#include "runtime/llm/tokenizer/Models.h"
#include "runtime/llm/tokenizer/Tokenizer.h"

namespace etch::llm {

class HfTokenizer : public Tokenizer {
public:
  /// Builds from the parsed file; throws FormatError naming a bad field.
  explicit HfTokenizer(const JsonField &root);

  std::vector<int32_t> encode(std::string_view text,
                              bool addSpecial) const override;
  std::string decode(const std::vector<int32_t> &ids) const override;
  int32_t vocabSize() const override;
  std::optional<std::string> token(int32_t id) const override;
  std::optional<int32_t> tokenId(std::string_view text) const override;

private:
  /// Runs the decoder over model tokens (joined by spaces without one).
  std::string decodeTokens(std::vector<std::string> tokens) const;

  AddedVocabulary added_;
  Normalizer normalizer_;
  PreTokenizer preTokenizer_;
  std::unique_ptr<Model> model_;
  PostProcessor postProcessor_;
  Decoder decoder_;
};

} // namespace etch::llm
