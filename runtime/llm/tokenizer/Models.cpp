#include "runtime/llm/tokenizer/Models.h"

#include "runtime/llm/tokenizer/BpeModel.h"
#include "runtime/llm/tokenizer/UnigramModel.h"

#include <algorithm>

namespace etch::llm {

void Model::addToken(const std::string &text, int32_t id) {
  ids_[text] = id;
  tokens_[id] = text;
  maxId_ = std::max(maxId_, id);
}

bool Model::appendByteFallback(std::string_view text,
                               std::vector<int32_t> &ids) const {
  std::vector<int32_t> bytes;
  for (unsigned char byte : text) {
    std::optional<int32_t> id = tokenId(byteFallbackToken(byte));
    if (!id)
      return false;
    bytes.push_back(*id);
  }
  ids.insert(ids.end(), bytes.begin(), bytes.end());
  return true;
}

std::string byteFallbackToken(unsigned char byte) {
  static const char kHex[] = "0123456789ABCDEF";
  return std::string("<0x") + kHex[byte >> 4] + kHex[byte & 15] + ">";
}

std::unique_ptr<Model> makeModel(const JsonField &field) {
  std::optional<JsonField> type = field.find("type");
  // Older files leave the type out; the fields tell the model apart.
  std::string name = type                   ? type->string()
                     : field.find("merges") ? "BPE"
                                            : "Unigram";
  if (name == "BPE")
    return std::make_unique<BpeModel>(field);
  if (name == "Unigram")
    return std::make_unique<UnigramModel>(field);
  (type ? *type : field)
      .fail("a supported model type (BPE, Unigram), not '" + name + "'");
}

} // namespace etch::llm
