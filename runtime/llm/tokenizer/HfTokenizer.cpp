#include "runtime/llm/tokenizer/HfTokenizer.h"

#include "runtime/llm/tokenizer/Utf8.h"

namespace etch::llm {

HfTokenizer::HfTokenizer(const JsonField &root) {
  if (!root.isObject())
    root.fail("a JSON object");
  if (std::optional<JsonField> field = root.find("normalizer"))
    normalizer_ = makeNormalizer(*field);
  if (std::optional<JsonField> field = root.find("pre_tokenizer"))
    preTokenizer_ = makePreTokenizer(*field);
  model_ = makeModel(root.at("model"));
  if (std::optional<JsonField> field = root.find("post_processor"))
    postProcessor_ = makePostProcessor(*field);
  if (std::optional<JsonField> field = root.find("decoder"))
    decoder_ = makeDecoder(*field);
  if (std::optional<JsonField> field = root.find("added_tokens"))
    added_.read(*field, normalizer_);
}

std::vector<int32_t> HfTokenizer::encode(std::string_view text,
                                         bool addSpecial) const {
  std::string valid = toValidUtf8(text);
  std::vector<int32_t> ids;
  for (const Segment &segment : added_.split(valid, normalizer_)) {
    if (segment.id) {
      ids.push_back(*segment.id);
      continue;
    }
    if (segment.text.empty())
      continue;
    std::vector<PreToken> pieces{{segment.text, segment.atStart}};
    if (preTokenizer_)
      preTokenizer_(pieces);
    for (const PreToken &piece : pieces)
      model_->tokenize(piece.text, ids);
  }
  if (addSpecial && postProcessor_)
    postProcessor_(ids);
  return ids;
}

std::string HfTokenizer::decodeTokens(std::vector<std::string> tokens) const {
  if (!decoder_) {
    std::string joined;
    for (size_t i = 0; i < tokens.size(); ++i)
      joined += (i ? " " : "") + tokens[i];
    return joined;
  }
  decoder_(tokens);
  std::string joined;
  for (const std::string &token : tokens)
    joined += token;
  return joined;
}

std::string HfTokenizer::decode(const std::vector<int32_t> &ids) const {
  // Added tokens go through the decoder with the model's, as they do in the
  // reference.
  std::vector<std::string> tokens;
  for (int32_t id : ids)
    if (std::optional<std::string> text = token(id))
      tokens.push_back(std::move(*text));
  return decodeTokens(std::move(tokens));
}

int32_t HfTokenizer::vocabSize() const {
  return std::max(model_->size(), added_.size());
}

std::optional<std::string> HfTokenizer::token(int32_t id) const {
  if (const AddedVocabulary::Token *added = added_.byId(id))
    return added->content;
  return model_->token(id);
}

std::optional<int32_t> HfTokenizer::tokenId(std::string_view text) const {
  if (std::optional<int32_t> id = added_.idOf(text))
    return id;
  return model_->tokenId(text);
}

} // namespace etch::llm
