//===- FuzzChatTemplate.cpp - Fuzz the chat template parser and renderer --===//
//
// Input: a chat template (Jinja). Parses it and, when it parses, renders it
// with a small conversation, with and without the generation prompt.
//
//===----------------------------------------------------------------------===//
#include "runtime/llm/chat/ChatTemplate.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string source(reinterpret_cast<const char *>(data), size), error, out;
  std::unique_ptr<etch::llm::ChatTemplate> parsed =
      etch::llm::ChatTemplate::parse(source, error);
  if (!parsed)
    return 0;
  std::vector<etch::llm::ChatMessage> messages = {
      {"system", "Be brief."},
      {"user", "Hi \xF0\x9F\x98\x80"},
      {"assistant", "Hello!"},
      {"user", " two\n"}};
  for (bool generation : {false, true})
    (void)parsed->render(messages, generation, "<s>", "</s>", out, error);
  return 0;
}
