// A SentencePiece .model file, run by Debian's libsentencepiece.
#pragma once

#include "runtime/llm/tokenizer/Tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace etch::llm {

class SentencePieceTokenizer : public Tokenizer {
public:
  /// The tokenizer, or null with \p error set (sentencepiece's reason).
  static std::unique_ptr<SentencePieceTokenizer> read(std::string_view bytes,
                                                      std::string &error);
  ~SentencePieceTokenizer() override;

  /// With \p addSpecial, the begin-of-sequence id first (as Llama's and
  /// Gemma's tokenizers add it).
  std::vector<int32_t> encode(std::string_view text,
                              bool addSpecial) const override;
  std::string decode(const std::vector<int32_t> &ids) const override;
  int32_t vocabSize() const override;
  std::optional<std::string> token(int32_t id) const override;
  std::optional<int32_t> tokenId(std::string_view text) const override;

private:
  SentencePieceTokenizer();
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
};

} // namespace etch::llm
