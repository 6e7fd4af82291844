#include "OpenAiProtocol.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

namespace etch::tools::serve {

using nlohmann::json;

namespace {

/// Text a client sent may hold invalid UTF-8 only as the model's own bytes
/// do: replaced, never an exception.
std::string dumped(const json &value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// Thrown by the field readers below and caught in parseCompletionRequest:
/// the first bad field ends the reading.
struct BadField {
  std::string param, message, code;
};

[[noreturn]] void bad(const std::string &param, const std::string &expected,
                      const std::string &code = "") {
  throw BadField{param, "'" + param + "' " + expected, code};
}

std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

double number(const json &value, const std::string &param, double low,
              double high) {
  if (!value.is_number() || !(value.get<double>() >= low) ||
      !(value.get<double>() <= high))
    bad(param, "must be a number from " + shortNumber(low) + " to " +
                   shortNumber(high));
  return value.get<double>();
}

int64_t integer(const json &value, const std::string &param, int64_t low) {
  bool whole = value.is_number_integer() ||
               (value.is_number_float() &&
                std::floor(value.get<double>()) == value.get<double>());
  if (!whole || value.get<double>() < static_cast<double>(low) ||
      value.get<double>() > 9.2e18)
    bad(param, "must be an integer of at least " + std::to_string(low));
  return value.get<int64_t>();
}

bool boolean(const json &value, const std::string &param) {
  if (!value.is_boolean())
    bad(param, "must be true or false");
  return value.get<bool>();
}

std::string text(const json &value, const std::string &param) {
  if (!value.is_string())
    bad(param, "must be a string");
  return value.get<std::string>();
}

/// A message's content: a string or text parts (concatenated).
std::string content(const json &value, const std::string &param) {
  if (value.is_string())
    return value.get<std::string>();
  if (!value.is_array())
    bad(param, "must be a string or an array of text parts");
  std::string joined;
  for (size_t i = 0; i < value.size(); ++i) {
    const json &part = value[i];
    std::string at = param + "[" + std::to_string(i) + "]";
    if (!part.is_object() || part.value("type", json()) != "text" ||
        !part.contains("text"))
      bad(at, "must be a text part {\"type\": \"text\", \"text\": ...}: only "
              "text is served");
    joined += text(part["text"], at + ".text");
  }
  return joined;
}

void readMessages(const json &value, CompletionRequest &request) {
  if (!value.is_array() || value.empty())
    bad("messages", "must be a non-empty array of messages");
  for (size_t i = 0; i < value.size(); ++i) {
    std::string at = "messages[" + std::to_string(i) + "]";
    const json &message = value[i];
    if (!message.is_object() || !message.contains("role"))
      bad(at, "must be an object with a role and content");
    std::string role = text(message["role"], at + ".role");
    if (role == "developer") // the API's newer name for the system role
      role = "system";
    if (role != "system" && role != "user" && role != "assistant")
      bad(at + ".role",
          "must be system, developer, user or assistant (got '" + role + "')");
    if (!message.contains("content") || message["content"].is_null())
      bad(at + ".content", "is required (tool calls are not served)");
    request.messages.push_back(
        {role, content(message["content"], at + ".content")});
  }
}

/// A text prompt, or token ids; a one-element batch of either.
void readPrompt(const json &value, CompletionRequest &request) {
  const json *prompt = &value;
  if (value.is_array() && value.size() == 1 &&
      (value[0].is_string() || value[0].is_array()))
    prompt = &value[0];
  else if (value.is_array() && !value.empty() && !value[0].is_number())
    bad("prompt", "must be one prompt: batches are not served");
  if (prompt->is_string()) {
    request.prompt = prompt->get<std::string>();
    return;
  }
  if (!prompt->is_array() || prompt->empty())
    bad("prompt", "must be a string or a non-empty array of token ids");
  for (const json &id : *prompt)
    request.promptIds.push_back(integer(id, "prompt", 0));
}

void readStop(const json &value, CompletionRequest &request) {
  if (value.is_null())
    return;
  std::vector<json> stops = value.is_array() ? value.get<std::vector<json>>()
                                             : std::vector<json>{value};
  if (stops.size() > 4)
    bad("stop", "holds at most 4 strings");
  for (const json &stop : stops) {
    std::string string = text(stop, "stop");
    if (string.empty())
      bad("stop", "strings must not be empty");
    request.stops.push_back(string);
  }
}

void unsupportedUnless(const json &value, const std::string &param,
                       const json &allowed, const std::string &what) {
  if (!value.is_null() && value != allowed)
    bad(param, "is not supported: " + what);
}

using FieldReader = std::function<void(const json &, CompletionRequest &)>;

/// Every field that changes what is served; the others are accepted as is.
const std::map<std::string, FieldReader> &fieldReaders() {
  static const std::map<std::string, FieldReader> readers = {
      {"messages",
       [](const json &v, CompletionRequest &r) {
         if (!r.chat)
           bad("messages", "belongs to /v1/chat/completions; this endpoint "
                           "takes 'prompt'");
         readMessages(v, r);
       }},
      {"prompt",
       [](const json &v, CompletionRequest &r) {
         if (r.chat)
           bad("prompt", "belongs to /v1/completions; this endpoint takes "
                         "'messages'");
         readPrompt(v, r);
       }},
      {"max_tokens",
       [](const json &v, CompletionRequest &r) {
         if (!v.is_null())
           r.maxTokens = integer(v, "max_tokens", 1);
       }},
      {"max_completion_tokens",
       [](const json &v, CompletionRequest &r) {
         if (!v.is_null())
           r.maxTokens = integer(v, "max_completion_tokens", 1);
       }},
      {"temperature",
       [](const json &v, CompletionRequest &r) {
         if (!v.is_null())
           r.sampling.temperature = number(v, "temperature", 0, 2);
       }},
      {"top_p",
       [](const json &v, CompletionRequest &r) {
         if (!v.is_null() && (r.sampling.topP = number(v, "top_p", 0, 1)) <= 0)
           bad("top_p", "must be a number above 0 and at most 1");
       }},
      // llama.cpp's server takes these too.
      {"top_k",
       [](const json &v, CompletionRequest &r) {
         if (!v.is_null())
           r.sampling.topK = integer(v, "top_k", 0);
       }},
      {"min_p",
       [](const json &v, CompletionRequest &r) {
         if (!v.is_null())
           r.sampling.minP = number(v, "min_p", 0, 1);
       }},
      {"repetition_penalty",
       [](const json &v, CompletionRequest &r) {
         if (!v.is_null() && (r.sampling.repetitionPenalty =
                                  number(v, "repetition_penalty", 0, 100)) <= 0)
           bad("repetition_penalty", "must be a number above 0");
       }},
      {"seed",
       [](const json &v, CompletionRequest &r) {
         if (v.is_null())
           return;
         if (!v.is_number_integer())
           bad("seed", "must be an integer");
         r.sampling.seed = v.is_number_unsigned()
                               ? v.get<uint64_t>()
                               : static_cast<uint64_t>(v.get<int64_t>());
         r.seeded = true;
       }},
      {"stop", readStop},
      {"stream",
       [](const json &v, CompletionRequest &r) {
         if (!v.is_null())
           r.stream = boolean(v, "stream");
       }},
      {"stream_options",
       [](const json &v, CompletionRequest &r) {
         if (v.is_null())
           return;
         if (!v.is_object())
           bad("stream_options", "must be an object");
         if (v.contains("include_usage"))
           r.includeUsage =
               boolean(v["include_usage"], "stream_options.include_usage");
       }},
      {"n",
       [](const json &v, CompletionRequest &) {
         unsupportedUnless(v, "n", 1, "one choice per request");
       }},
      {"frequency_penalty",
       [](const json &v, CompletionRequest &) {
         unsupportedUnless(v, "frequency_penalty", 0, "use repetition_penalty");
       }},
      {"presence_penalty",
       [](const json &v, CompletionRequest &) {
         unsupportedUnless(v, "presence_penalty", 0, "use repetition_penalty");
       }},
      {"logprobs",
       [](const json &v, CompletionRequest &) {
         if (!v.is_null() && v != false && v != 0)
           bad("logprobs", "is not supported");
       }},
      {"echo",
       [](const json &v, CompletionRequest &) {
         unsupportedUnless(v, "echo", false, "the prompt is not echoed");
       }},
      {"best_of",
       [](const json &v, CompletionRequest &) {
         unsupportedUnless(v, "best_of", 1, "one choice per request");
       }},
      {"suffix",
       [](const json &v, CompletionRequest &) {
         unsupportedUnless(v, "suffix", json(), "no insertion");
       }},
      {"logit_bias",
       [](const json &v, CompletionRequest &) {
         if (!v.is_null() && !(v.is_object() && v.empty()))
           bad("logit_bias", "is not supported");
       }},
      {"tools",
       [](const json &v, CompletionRequest &) {
         if (!v.is_null() && !(v.is_array() && v.empty()))
           bad("tools", "are not supported");
       }},
      {"response_format",
       [](const json &v, CompletionRequest &) {
         if (!v.is_null() && v.value("type", json()) != "text")
           bad("response_format",
               "is not supported beyond {\"type\": \"text\"}");
       }},
      {"model",
       [](const json &v, CompletionRequest &) {
         if (!v.is_null())
           text(v, "model"); // one model is served, whatever its name
       }},
  };
  return readers;
}

json usageJson(const Usage &usage) {
  return {{"prompt_tokens", usage.promptTokens},
          {"completion_tokens", usage.completionTokens},
          {"total_tokens", usage.promptTokens + usage.completionTokens}};
}

json envelope(const CompletionIdentity &identity, bool chunk) {
  const char *object =
      identity.chat ? (chunk ? "chat.completion.chunk" : "chat.completion")
                    : "text_completion";
  return {{"id", identity.id},
          {"object", object},
          {"created", identity.created},
          {"model", identity.model},
          {"system_fingerprint", "etch"}};
}

} // namespace

std::string ApiError::toJson() const {
  json error = {{"message", message},
                {"type", type},
                {"param", param.empty() ? json() : json(param)},
                {"code", code.empty() ? json() : json(code)}};
  return dumped(json{{"error", error}});
}

bool parseCompletionRequest(std::string_view body, bool chat,
                            CompletionRequest &request, ApiError &error) {
  request = CompletionRequest();
  request.chat = chat;
  request.sampling.temperature = 1; // the API's default
  json parsed;
  try {
    parsed = json::parse(body);
  } catch (const json::exception &caught) { // also out_of_range: 1E999
    error = {400,
             std::string("the request body is not valid JSON: ") +
                 caught.what(),
             "invalid_request_error", "", "invalid_json"};
    return false;
  }
  if (!parsed.is_object()) {
    error = {400, "the request body must be a JSON object",
             "invalid_request_error", "", "invalid_json"};
    return false;
  }
  try {
    for (const auto &[name, value] : parsed.items()) {
      auto reader = fieldReaders().find(name);
      if (reader != fieldReaders().end())
        reader->second(value, request);
    }
    if (chat && request.messages.empty())
      bad("messages", "is required");
    if (!chat && !request.prompt && request.promptIds.empty())
      bad("prompt", "is required");
    if (request.includeUsage && !request.stream)
      bad("stream_options", "is only allowed when 'stream' is true");
  } catch (const BadField &field) {
    error = {400, field.message, "invalid_request_error", field.param,
             field.code};
    return false;
  } catch (const json::exception &caught) {
    error = {400, std::string("the request body: ") + caught.what(),
             "invalid_request_error", "", ""};
    return false;
  }
  return true;
}

const char *finishReasonName(bool stopped) {
  return stopped ? "stop" : "length";
}

std::string completionJson(const CompletionIdentity &identity,
                           const std::string &text, const char *finishReason,
                           const Usage &usage) {
  json choice = {
      {"index", 0}, {"finish_reason", finishReason}, {"logprobs", nullptr}};
  if (identity.chat)
    choice["message"] = {{"role", "assistant"}, {"content", text}};
  else
    choice["text"] = text;
  json answer = envelope(identity, false);
  answer["choices"] = json::array({choice});
  answer["usage"] = usageJson(usage);
  return dumped(answer);
}

std::string chunkJson(const CompletionIdentity &identity, std::string_view text,
                      const char *finishReason, bool first) {
  json choice = {{"index", 0},
                 {"finish_reason", finishReason ? json(finishReason) : json()},
                 {"logprobs", nullptr}};
  if (identity.chat) {
    json delta = json::object();
    if (first)
      delta["role"] = "assistant";
    if (!text.empty() || (first && !finishReason))
      delta["content"] = std::string(text);
    choice["delta"] = delta;
  } else {
    choice["text"] = std::string(text);
  }
  json chunk = envelope(identity, true);
  chunk["choices"] = json::array({choice});
  return dumped(chunk);
}

std::string usageChunkJson(const CompletionIdentity &identity,
                           const Usage &usage) {
  json chunk = envelope(identity, true);
  chunk["choices"] = json::array();
  chunk["usage"] = usageJson(usage);
  return dumped(chunk);
}

std::string modelsJson(const std::string &model, int64_t created) {
  json entry = {{"id", model},
                {"object", "model"},
                {"created", created},
                {"owned_by", "etch"}};
  return dumped(json{{"object", "list"}, {"data", json::array({entry})}});
}

} // namespace etch::tools::serve
