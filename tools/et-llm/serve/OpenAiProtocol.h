// The OpenAI API's JSON as et-llm serve speaks it: requests to
// /v1/completions and /v1/chat/completions read into one struct (every
// field checked, with the error object the API gives for a bad one), and
// the responses, stream chunks and model list written back.
#pragma once

#include "TokenSampler.h"

#include "runtime/llm/chat/ChatTemplate.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace etch::tools::serve {

/// An error as the API reports it: the HTTP status and
/// {"error": {"message", "type", "param", "code"}}.
struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param; // the field at fault, if one is
  std::string code;

  std::string toJson() const;
};

struct CompletionRequest {
  bool chat = false; // /v1/chat/completions: messages; else prompt
  std::vector<llm::ChatMessage> messages;
  std::optional<std::string> prompt; // text
  std::vector<int64_t> promptIds;    // or token ids
  std::optional<int64_t> maxTokens;  // none: up to the context
  std::vector<std::string> stops;
  SamplingOptions sampling;
  bool seeded = false; // a "seed" was given (else the server picks one)
  bool stream = false, includeUsage = false;
};

/// Reads \p body, a request to the chat (\p chat) or text completions
/// endpoint; false with \p error for malformed JSON, a missing field, a
/// value of the wrong type or range, or a feature etch does not serve.
/// Fields the API has that change nothing here (user, metadata, ...) are
/// accepted.
bool parseCompletionRequest(std::string_view body, bool chat,
                            CompletionRequest &request, ApiError &error);

/// What each response of one request repeats.
struct CompletionIdentity {
  std::string id; // chatcmpl-... / cmpl-...
  int64_t created = 0;
  std::string model;
  bool chat = false;
};

struct Usage {
  int64_t promptTokens = 0, completionTokens = 0;
};

/// "stop" (an end token or a stop string) or "length".
const char *finishReasonName(bool stopped);

/// The whole answer of a request that does not stream.
std::string completionJson(const CompletionIdentity &identity,
                           const std::string &text, const char *finishReason,
                           const Usage &usage);

/// One server-sent event's data: a piece of text (chat: the first one also
/// carries the assistant role), or the last with \p finishReason; \p usage
/// when the client asked for it (stream_options.include_usage, as a chunk
/// of its own with no choices).
std::string chunkJson(const CompletionIdentity &identity, std::string_view text,
                      const char *finishReason, bool first);
std::string usageChunkJson(const CompletionIdentity &identity,
                           const Usage &usage);

/// GET /v1/models.
std::string modelsJson(const std::string &model, int64_t created);

} // namespace etch::tools::serve
