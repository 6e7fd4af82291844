//===- FuzzOpenAiRequest.cpp - Fuzz et-llm serve's request reader ---------===//
//
// Input: a request body. Reads it as a chat and as a text completion
// request; when it reads, writes the answers a server would send for it,
// with the request's own strings as the text.
//
//===----------------------------------------------------------------------===//
#include "serve/OpenAiProtocol.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace etch::tools::serve;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string body(reinterpret_cast<const char *>(data), size);
  for (bool chat : {true, false}) {
    CompletionRequest request;
    ApiError error;
    if (!parseCompletionRequest(body, chat, request, error)) {
      (void)error.toJson();
      continue;
    }
    std::string text = request.prompt.value_or("");
    for (const auto &message : request.messages)
      text += message.content;
    for (const std::string &stop : request.stops)
      text += stop;
    CompletionIdentity identity{"id", 1, text, chat};
    Usage usage{static_cast<int64_t>(request.promptIds.size()), 1};
    (void)completionJson(identity, text, finishReasonName(true), usage);
    (void)chunkJson(identity, text, nullptr, true);
    (void)usageChunkJson(identity, usage);
  }
  return 0;
}
