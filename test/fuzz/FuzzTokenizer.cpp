//===- FuzzTokenizer.cpp - Fuzz the tokenizer loader and its pipeline -----===//
//
// Input: a tokenizer file (tokenizer.json, tiktoken ranks or a SentencePiece
// model). Loads it; when it loads, encodes a few fixed strings and the
// input's own tail (with and without special tokens) and decodes the ids,
// and every id below 512.
//
//===----------------------------------------------------------------------===//
#include "runtime/llm/tokenizer/Tokenizer.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool enabled = (etch::llm::enableSentencePiece(), true);
  (void)enabled;
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  etch::llm::TokenizerLoad load =
      etch::llm::loadTokenizerFromBytes(bytes, "fuzz-input");
  if (!load.tokenizer)
    return 0;
  const etch::llm::Tokenizer &tokenizer = *load.tokenizer;
  std::string_view texts[] = {"",
                              "Hello world, it's 2024!",
                              "  na\xC3\xAFve\tcaf\xC3\xA9\r\n\xF0\x9F\x98\x80",
                              "<s>x</s><|endoftext|>",
                              "\xFF\xFE\xC3 invalid",
                              bytes.substr(size - std::min<size_t>(size, 256))};
  for (std::string_view text : texts)
    for (bool special : {false, true})
      (void)tokenizer.decode(tokenizer.encode(text, special));
  std::vector<int32_t> ids;
  for (int32_t id = 0; id < std::min(tokenizer.vocabSize(), 512); ++id) {
    ids.push_back(id);
    (void)tokenizer.token(id);
  }
  (void)tokenizer.decode(ids);
  return 0;
}
