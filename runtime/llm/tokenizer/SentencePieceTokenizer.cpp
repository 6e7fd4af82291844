#include "runtime/llm/tokenizer/SentencePieceTokenizer.h"

#include "runtime/llm/tokenizer/TokenizerLoader.h"
#include "runtime/llm/tokenizer/Utf8.h"

#include <sentencepiece_processor.h>

namespace etch::llm {

SentencePieceTokenizer::SentencePieceTokenizer()
    : processor_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::unique_ptr<SentencePieceTokenizer>
SentencePieceTokenizer::read(std::string_view bytes, std::string &error) {
  auto tokenizer =
      std::unique_ptr<SentencePieceTokenizer>(new SentencePieceTokenizer);
  sentencepiece::util::Status status =
      tokenizer->processor_->LoadFromSerializedProto(
          absl::string_view(bytes.data(), bytes.size()));
  if (!status.ok()) {
    error = status.ToString();
    return nullptr;
  }
  return tokenizer;
}

void enableSentencePiece() {
  setBinaryTokenizerReader(
      [](std::string_view bytes,
         std::string &error) -> std::unique_ptr<Tokenizer> {
        return SentencePieceTokenizer::read(bytes, error);
      });
}

std::vector<int32_t> SentencePieceTokenizer::encode(std::string_view text,
                                                    bool addSpecial) const {
  std::vector<int> pieces;
  // Encoding valid UTF-8 with a loaded model does not fail.
  (void)processor_->Encode(toValidUtf8(text), &pieces);
  std::vector<int32_t> ids;
  if (addSpecial && processor_->bos_id() >= 0)
    ids.push_back(processor_->bos_id());
  ids.insert(ids.end(), pieces.begin(), pieces.end());
  return ids;
}

std::string
SentencePieceTokenizer::decode(const std::vector<int32_t> &ids) const {
  std::vector<int> known;
  for (int32_t id : ids)
    if (id >= 0 && id < processor_->GetPieceSize())
      known.push_back(id);
  std::string text;
  (void)processor_->Decode(known, &text);
  return text;
}

int32_t SentencePieceTokenizer::vocabSize() const {
  return processor_->GetPieceSize();
}

std::optional<std::string> SentencePieceTokenizer::token(int32_t id) const {
  if (id < 0 || id >= processor_->GetPieceSize())
    return std::nullopt;
  return processor_->IdToPiece(id);
}

std::optional<int32_t>
SentencePieceTokenizer::tokenId(std::string_view text) const {
  int id = processor_->PieceToId(absl::string_view(text.data(), text.size()));
  if (id < 0 || processor_->IdToPiece(id) != text)
    return std::nullopt;
  return id;
}

} // namespace etch::llm
