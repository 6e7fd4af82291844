// et-llm serve's request reading (every field form the API allows, every
// rejection with its field), its response shapes, and the request gate.
#include "serve/OpenAiProtocol.h"
#include "serve/RequestGate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace etch::tools::serve {
namespace {

CompletionRequest parsed(const std::string &body, bool chat) {
  CompletionRequest request;
  ApiError error;
  EXPECT_TRUE(parseCompletionRequest(body, chat, request, error))
      << body << ": " << error.message;
  return request;
}

ApiError rejected(const std::string &body, bool chat) {
  CompletionRequest request;
  ApiError error;
  EXPECT_FALSE(parseCompletionRequest(body, chat, request, error)) << body;
  return error;
}

TEST(OpenAiProtocol, ChatMessagesAndSampling) {
  CompletionRequest request = parsed(
      R"({"model": "m", "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "a"},
                                         {"type": "text", "text": "b"}]},
            {"role": "assistant", "content": "c"}],
          "temperature": 0.5, "top_p": 0.9, "top_k": 5, "min_p": 0.1,
          "repetition_penalty": 1.2, "seed": 42, "max_tokens": 7,
          "stop": "x", "stream": true,
          "stream_options": {"include_usage": true}, "user": "u",
          "n": 1, "presence_penalty": 0, "logprobs": false})",
      true);
  ASSERT_EQ(request.messages.size(), 3u);
  EXPECT_EQ(request.messages[0].role, "system");
  EXPECT_EQ(request.messages[1].content, "ab");
  EXPECT_EQ(request.messages[2].role, "assistant");
  EXPECT_FLOAT_EQ(request.sampling.temperature, 0.5f);
  EXPECT_FLOAT_EQ(request.sampling.topP, 0.9f);
  EXPECT_EQ(request.sampling.topK, 5);
  EXPECT_FLOAT_EQ(request.sampling.minP, 0.1f);
  EXPECT_FLOAT_EQ(request.sampling.repetitionPenalty, 1.2f);
  EXPECT_TRUE(request.seeded);
  EXPECT_EQ(request.sampling.seed, 42u);
  EXPECT_EQ(request.maxTokens, 7);
  EXPECT_EQ(request.stops, std::vector<std::string>{"x"});
  EXPECT_TRUE(request.stream);
  EXPECT_TRUE(request.includeUsage);
}

TEST(OpenAiProtocol, Defaults) {
  CompletionRequest request =
      parsed(R"({"messages": [{"role": "user", "content": "hi"}]})", true);
  EXPECT_FLOAT_EQ(request.sampling.temperature, 1); // the API's default
  EXPECT_FALSE(request.maxTokens);
  EXPECT_FALSE(request.seeded);
  EXPECT_FALSE(request.stream);
}

TEST(OpenAiProtocol, PromptForms) {
  EXPECT_EQ(parsed(R"({"prompt": "abc"})", false).prompt, "abc");
  EXPECT_EQ(parsed(R"({"prompt": ["abc"]})", false).prompt, "abc");
  EXPECT_EQ(parsed(R"({"prompt": [1, 2, 3]})", false).promptIds,
            (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(parsed(R"({"prompt": [[4, 5]]})", false).promptIds,
            (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(parsed(R"({"prompt": "a", "max_tokens": 3.0})", false).maxTokens,
            3);
  EXPECT_EQ(parsed(R"({"prompt": "a", "stop": ["x", "y"]})", false).stops,
            (std::vector<std::string>{"x", "y"}));
}

TEST(OpenAiProtocol, Rejections) {
  struct Case {
    const char *body;
    bool chat;
    const char *param, *message;
  };
  const Case cases[] = {
      {R"({"messages": "hi"})", true, "messages",
       "'messages' must be a non-empty array of messages"},
      {R"({"messages": [{"content": "x"}]})", true, "messages[0]",
       "'messages[0]' must be an object with a role and content"},
      {R"({"messages": [{"role": "user"}]})", true, "messages[0].content",
       "'messages[0].content' is required (tool calls are not served)"},
      {R"({"messages": [{"role": "user", "content": 5}]})", true,
       "messages[0].content",
       "'messages[0].content' must be a string or an array of text parts"},
      {R"({"prompt": "a", "temperature": -1})", false, "temperature",
       "'temperature' must be a number from 0 to 2"},
      {R"({"prompt": "a", "top_p": "high"})", false, "top_p",
       "'top_p' must be a number from 0 to 1"},
      {R"({"prompt": "a", "max_tokens": 1.5})", false, "max_tokens",
       "'max_tokens' must be an integer of at least 1"},
      {R"({"prompt": "a", "seed": 1.5})", false, "seed",
       "'seed' must be an integer"},
      {R"({"prompt": "a", "stop": [""]})", false, "stop",
       "'stop' strings must not be empty"},
      {R"({"prompt": "a", "stop": 3})", false, "stop",
       "'stop' must be a string"},
      {R"({"prompt": [-1]})", false, "prompt",
       "'prompt' must be an integer of at least 0"},
      {R"({"prompt": []})", false, "prompt",
       "'prompt' must be a string or a non-empty array of token ids"},
      {R"({"prompt": "a", "frequency_penalty": 0.5})", false,
       "frequency_penalty",
       "'frequency_penalty' is not supported: use repetition_penalty"},
      {R"({"prompt": "a", "logprobs": 2})", false, "logprobs",
       "'logprobs' is not supported"},
      {R"({"prompt": "a", "echo": true})", false, "echo",
       "'echo' is not supported: the prompt is not echoed"},
      {R"({"messages": [{"role": "user", "content": "a"}],
           "tools": [{"type": "function"}]})",
       true, "tools", "'tools' are not supported"},
      {R"({"messages": [{"role": "user", "content": "a"}],
           "response_format": {"type": "json_object"}})",
       true, "response_format",
       "'response_format' is not supported beyond {\"type\": \"text\"}"},
      {R"({"prompt": "a", "model": 3})", false, "model",
       "'model' must be a string"},
      {R"({"max_tokens": 3})", false, "prompt", "'prompt' is required"},
      {R"({"messages": [{"role": "user", "content": "a"}]})", false, "messages",
       "'messages' belongs to /v1/chat/completions; this endpoint takes "
       "'prompt'"},
  };
  for (const Case &c : cases) {
    ApiError error = rejected(c.body, c.chat);
    EXPECT_EQ(error.status, 400) << c.body;
    EXPECT_EQ(error.type, "invalid_request_error") << c.body;
    EXPECT_EQ(error.param, c.param) << c.body;
    EXPECT_EQ(error.message, c.message) << c.body;
  }
  ApiError truncated = rejected(R"({"prompt": "a)", false);
  EXPECT_EQ(truncated.code, "invalid_json");
  EXPECT_NE(truncated.message.find("not valid JSON"), std::string::npos);
  // A number past double's range is the parser's out_of_range error, not
  // a parse_error (found by fuzzing).
  ApiError huge = rejected(R"({"prompt": 1E999})", false);
  EXPECT_EQ(huge.code, "invalid_json");
  EXPECT_NE(huge.message.find("number overflow"), std::string::npos);
  EXPECT_EQ(rejected("null", false).message,
            "the request body must be a JSON object");
  EXPECT_EQ(rejected("", false).code, "invalid_json");
}

TEST(OpenAiProtocol, ResponseShapes) {
  CompletionIdentity chat{"chatcmpl-1", 5, "m", true};
  EXPECT_EQ(completionJson(chat, "hi", "stop", {3, 1}),
            R"({"choices":[{"finish_reason":"stop","index":0,"logprobs":null,)"
            R"("message":{"content":"hi","role":"assistant"}}],"created":5,)"
            R"("id":"chatcmpl-1","model":"m","object":"chat.completion",)"
            R"("system_fingerprint":"etch","usage":{"completion_tokens":1,)"
            R"("prompt_tokens":3,"total_tokens":4}})");
  EXPECT_EQ(chunkJson(chat, "", "length", false),
            R"({"choices":[{"delta":{},"finish_reason":"length","index":0,)"
            R"("logprobs":null}],"created":5,"id":"chatcmpl-1","model":"m",)"
            R"("object":"chat.completion.chunk","system_fingerprint":"etch"})");
  CompletionIdentity text{"cmpl-1", 5, "m", false};
  // Bytes that are not UTF-8 are replaced, never a failure.
  EXPECT_EQ(chunkJson(text, "a\xff", nullptr, true),
            R"({"choices":[{"finish_reason":null,"index":0,"logprobs":null,)"
            R"("text":"a)"
            "\xEF\xBF\xBD"
            R"("}],"created":5,"id":"cmpl-1","model":"m",)"
            R"("object":"text_completion","system_fingerprint":"etch"})");
  EXPECT_EQ(usageChunkJson(text, {2, 2}),
            R"({"choices":[],"created":5,"id":"cmpl-1","model":"m",)"
            R"("object":"text_completion","system_fingerprint":"etch",)"
            R"("usage":{"completion_tokens":2,"prompt_tokens":2,)"
            R"("total_tokens":4}})");
  EXPECT_EQ(modelsJson("m", 5),
            R"({"data":[{"created":5,"id":"m","object":"model",)"
            R"("owned_by":"etch"}],"object":"list"})");
  ApiError busy{503, "busy", "server_error", "", "queue_full"};
  EXPECT_EQ(busy.toJson(),
            R"({"error":{"code":"queue_full","message":"busy","param":null,)"
            R"("type":"server_error"}})");
}

TEST(RequestGate, BoundsTheWaitingRequests) {
  RequestGate gate(1);
  ASSERT_TRUE(gate.enter()); // at the model
  std::atomic<bool> served{false};
  std::thread waiter([&] {
    if (gate.enter()) { // waits for the first to leave
      served = true;
      gate.leave();
    }
  });
  while (gate.waiting() == 0)
    std::this_thread::yield();
  EXPECT_FALSE(gate.enter()); // one waits already: turned away at once
  EXPECT_FALSE(served);
  gate.leave();
  waiter.join();
  EXPECT_TRUE(served);
  ASSERT_TRUE(gate.enter());
  gate.leave();
}

TEST(RequestGate, NoQueueServesOneAtATime) {
  RequestGate gate(0);
  ASSERT_TRUE(gate.enter());
  EXPECT_FALSE(gate.enter());
  gate.leave();
  EXPECT_TRUE(gate.enter());
  gate.leave();
}

} // namespace
} // namespace etch::tools::serve
