#include "LlmServer.h"
#include "OpenAiProtocol.h"
#include "RequestGate.h"

#include "Generate.h"
#include "LlmModel.h"

#include "runtime/llm/tokenizer/TextStreamer.h"

#include <httplib.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <random>
#include <thread>

namespace etch::tools {

using namespace serve;

namespace {

constexpr const char *kUsage =
    "usage: et-llm serve PROGRAM [--host H] [--port P] [--model-name NAME]\n"
    "       [--queue N] [--max-body BYTES] [--tokenizer FILE]\n"
    "       [--chat-template FILE] [--method NAME] [--threads N]\n"
    "       [--max-context N] [--eos ID] [--ignore-eos]\n";

struct ServeOptions {
  ModelOptions model;
  std::string host = "127.0.0.1", modelName;
  int64_t port = 8080, queue = 8, maxBody = 1 << 20;
};

int help() {
  std::printf(
      "et-llm serve: an OpenAI-compatible HTTP server for one decoder "
      "program\n(docs/llm.md)\n%s"
      "  --host H            address to listen on (127.0.0.1)\n"
      "  --port P            port (8080; 0: any free one, printed)\n"
      "  --model-name NAME   the model's id in the API (the program's file "
      "name)\n"
      "  --queue N           requests that may wait for the model (8); more\n"
      "                      get 503\n"
      "  --max-body BYTES    largest request body (1048576); larger get 413\n"
      "  --tokenizer FILE, --chat-template FILE, --method NAME, --threads N,\n"
      "  --max-context N, --eos ID, --ignore-eos   as for et-llm\n"
      "Endpoints: GET /v1/models, POST /v1/completions, POST "
      "/v1/chat/completions.\nStops cleanly on SIGINT or SIGTERM.\n",
      kUsage);
  return 0;
}

int usage(const std::string &message) {
  std::fprintf(stderr, "et-llm serve: %s\n%s", message.c_str(), kUsage);
  return 2;
}

/// The server's own options (OptionReader).
const char *readOption(const std::string &arg, const char *value, int &i,
                       ServeOptions &options) {
  bool known = arg == "--port" || arg == "--queue" || arg == "--max-body" ||
               arg == "--host" || arg == "--model-name";
  if (!known)
    return kUnknownOption;
  ++i; // each takes a value
  if (arg == "--port")
    return parseInteger(value, 0, options.port) && options.port < 65536
               ? nullptr
               : "--port takes a port number (0: any free one)";
  if (arg == "--queue")
    return parseInteger(value, 0, options.queue) ? nullptr
                                                 : "--queue takes a count";
  if (arg == "--max-body")
    return parseInteger(value, 1, options.maxBody)
               ? nullptr
               : "--max-body takes a positive byte count";
  if (!value || !*value)
    return "an option lacks its value";
  (arg == "--host" ? options.host : options.modelName) = value;
  return nullptr;
}

const char *parse(int argc, char **argv, ServeOptions &options) {
  return parseCommandLine(
      argc, argv, options.model,
      [&](const std::string &arg, const char *value, int &i) {
        return readOption(arg, value, i, options);
      });
}

/// The program's file name without its folder and extension.
std::string stem(const std::string &path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.find_last_of('.'));
}

std::atomic<bool> stopping{false};

struct ServedModel {
  LlmModel model;
  std::string modelName;
  int64_t created = std::time(nullptr);
  RequestGate gate;
  std::mutex idMutex;
  std::mt19937_64 random{std::random_device{}()};

  explicit ServedModel(int64_t queue) : gate(queue) {}

  std::string nextId(const char *prefix) {
    std::lock_guard<std::mutex> lock(idMutex);
    char text[40];
    std::snprintf(text, sizeof text, "%s-%016llx", prefix,
                  static_cast<unsigned long long>(random()));
    return text;
  }
  uint64_t nextSeed() {
    std::lock_guard<std::mutex> lock(idMutex);
    return random();
  }
};

void sendError(httplib::Response &response, const ApiError &error) {
  response.status = error.status;
  response.set_content(error.toJson(), "application/json");
}

/// The prompt's token ids; false with \p error when it cannot be served.
bool promptIds(ServedModel &server, const CompletionRequest &request,
               std::vector<int64_t> &ids, ApiError &error) {
  const llm::Tokenizer &tokenizer = *server.model.tokenizer;
  std::string message;
  if (request.chat) {
    if (!server.model.chat) {
      error = {400, "the model has no chat template (et-compile --tokenizer "
                    "FILE --chat-template FILE, or et-llm serve "
                    "--chat-template FILE); use /v1/completions"};
      return false;
    }
    if (!encodeChat(*server.model.chat, tokenizer, request.messages, ids,
                    message)) {
      error = {400, message, "invalid_request_error", "messages"};
      return false;
    }
  } else if (request.prompt) {
    // With the special tokens a sequence begins with, as llama.cpp's
    // server and transformers' tokenizer(text) do.
    for (int32_t id : tokenizer.encode(*request.prompt, /*addSpecial=*/true))
      ids.push_back(id);
  } else {
    ids = request.promptIds;
  }
  // Given ids, and a tokenizer with more tokens than the model has rows.
  for (int64_t id : ids)
    if (id >= server.model.runner.vocab()) {
      error = {400,
               "prompt token " + std::to_string(id) +
                   " is outside the vocabulary of " +
                   std::to_string(server.model.runner.vocab()),
               "invalid_request_error", request.chat ? "messages" : "prompt"};
      return false;
    }
  if (ids.empty()) {
    error = {400, "the prompt has no tokens", "invalid_request_error",
             request.chat ? "messages" : "prompt"};
    return false;
  }
  if (static_cast<int64_t>(ids.size()) >= server.model.context) {
    error = {400,
             "the prompt has " + std::to_string(ids.size()) +
                 " tokens; the model holds " +
                 std::to_string(server.model.context) + " positions",
             "invalid_request_error", request.chat ? "messages" : "prompt",
             "context_length_exceeded"};
    return false;
  }
  return true;
}

struct Completion {
  std::string text;
  bool stopped = false; // an end token or a stop string
  Usage usage;
  runtime::Error status = runtime::Error::Ok;
};

/// Generates for one request (the caller holds the gate); \p onText gets
/// the text as it becomes final and returns false when no one listens any
/// more.
Completion complete(ServedModel &server, const CompletionRequest &request,
                    const std::vector<int64_t> &prompt,
                    const std::function<bool(std::string_view)> &onText) {
  LlmModel &model = server.model;
  model.runner.reset();
  SamplingOptions sampling = request.sampling;
  if (!request.seeded)
    sampling.seed = server.nextSeed();
  TokenSampler sampler(sampling);
  int64_t room = model.context - static_cast<int64_t>(prompt.size());
  int64_t budget =
      request.maxTokens ? std::min(*request.maxTokens, room) : room;
  Completion completion;
  bool listening = true;
  llm::TextStreamer streamer(
      *model.tokenizer,
      [&](std::string_view text) {
        completion.text.append(text);
        if (listening && !text.empty())
          listening = onText(text);
      },
      request.stops);
  GenerationHooks hooks;
  hooks.accepted = [&](int64_t token) {
    return streamer.push(static_cast<int32_t>(token)) || !listening ||
           stopping.load();
  };
  Generation result =
      generate(model.runner, prompt, budget, model.eos, sampler, hooks);
  streamer.finish();
  completion.stopped = result.reason != FinishReason::Length;
  completion.usage = {static_cast<int64_t>(prompt.size()),
                      static_cast<int64_t>(result.tokens.size())};
  completion.status = result.status;
  return completion;
}

ApiError executionError(runtime::Error status) {
  return {500,
          std::string("generation failed (") + runtime::errorName(status) +
              ")" + runtimeCause(),
          "server_error"};
}

std::string event(const std::string &data) { return "data: " + data + "\n\n"; }

void handleCompletion(ServedModel &server, const httplib::Request &httpRequest,
                      httplib::Response &response, bool chat) {
  CompletionRequest request;
  ApiError error;
  std::vector<int64_t> prompt;
  if (!parseCompletionRequest(httpRequest.body, chat, request, error) ||
      !promptIds(server, request, prompt, error))
    return sendError(response, error);
  if (!server.gate.enter())
    return sendError(response,
                     {503,
                      "the server is busy: the request queue is full; "
                      "try again later",
                      "server_error", "", "queue_full"});
  auto ticket = std::make_shared<GateTicket>(server.gate);
  CompletionIdentity identity{server.nextId(chat ? "chatcmpl" : "cmpl"),
                              std::time(nullptr), server.modelName, chat};
  if (!request.stream) {
    Completion completion = complete(server, request, prompt,
                                     [](std::string_view) { return true; });
    if (completion.status != runtime::Error::Ok)
      return sendError(response, executionError(completion.status));
    response.set_content(completionJson(identity, completion.text,
                                        finishReasonName(completion.stopped),
                                        completion.usage),
                         "application/json");
    return;
  }
  response.set_header("Cache-Control", "no-cache");
  response.set_chunked_content_provider(
      "text/event-stream", [&server, request, prompt, identity,
                            ticket](size_t, httplib::DataSink &sink) {
        bool first = true;
        auto send = [&](const std::string &data) {
          std::string text = event(data);
          return sink.is_writable() && sink.write(text.data(), text.size());
        };
        if (identity.chat) // the role comes first, before any text (as the API
                           // does)
          send(chunkJson(identity, "", nullptr, first)), first = false;
        Completion completion =
            complete(server, request, prompt, [&](std::string_view text) {
              bool sent = send(chunkJson(identity, text, nullptr, first));
              first = false;
              return sent;
            });
        if (completion.status != runtime::Error::Ok) {
          send(executionError(completion.status).toJson());
        } else {
          send(chunkJson(identity, "", finishReasonName(completion.stopped),
                         first));
          if (request.includeUsage)
            send(usageChunkJson(identity, completion.usage));
        }
        send("[DONE]");
        sink.done();
        return true;
      });
}

void installRoutes(httplib::Server &http, ServedModel &server) {
  http.Get("/v1/models", [&](const httplib::Request &, httplib::Response &r) {
    r.set_content(modelsJson(server.modelName, server.created),
                  "application/json");
  });
  http.Post("/v1/chat/completions",
            [&](const httplib::Request &q, httplib::Response &r) {
              handleCompletion(server, q, r, true);
            });
  http.Post("/v1/completions",
            [&](const httplib::Request &q, httplib::Response &r) {
              handleCompletion(server, q, r, false);
            });
  http.Get("/health", [](const httplib::Request &, httplib::Response &r) {
    r.set_content("{\"status\":\"ok\"}", "application/json");
  });
  // Every other error gets the API's error object too.
  http.set_error_handler([](const httplib::Request &q, httplib::Response &r) {
    if (!r.body.empty())
      return;
    ApiError error{r.status, "", "invalid_request_error"};
    if (r.status == 404)
      error.message = "no such endpoint: " + q.method + " " + q.path;
    else if (r.status == 413)
      error.message = "the request body is larger than the server takes "
                      "(--max-body)";
    else
      error.message = "HTTP status " + std::to_string(r.status);
    sendError(r, error);
  });
  http.set_exception_handler(
      [](const httplib::Request &, httplib::Response &r, std::exception_ptr) {
        sendError(r, {500, "internal error", "server_error"});
      });
  http.set_logger([](const httplib::Request &q, const httplib::Response &r) {
    std::fprintf(stderr, "et-llm serve: %s %s %d\n", q.method.c_str(),
                 q.path.c_str(), r.status);
  });
}

} // namespace

int runServeCommand(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
      return help();
  ServeOptions options;
  if (const char *problem = parse(argc, argv, options))
    return usage(problem);
  options.model.chat = ChatUse::IfPresent;
  // SIGINT and SIGTERM go to one thread that stops the server: every other
  // thread (the kernels' pool and httplib's, started from here on) has them
  // blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  ServedModel server(options.queue);
  if (!openModel(options.model, server.model))
    return 1;
  if (!server.model.tokenizer) {
    std::fprintf(stderr,
                 "et-llm serve: %s carries no tokenizer; give --tokenizer "
                 "FILE (or et-compile --tokenizer FILE)\n",
                 options.model.program.c_str());
    return 1;
  }
  server.modelName = options.modelName.empty() ? stem(options.model.program)
                                               : options.modelName;

  httplib::Server http;
  int64_t workers = options.queue + 8; // waiting requests hold a thread each
  http.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  http.set_payload_max_length(options.maxBody);
  http.set_keep_alive_timeout(2);
  installRoutes(http, server);
  int port = static_cast<int>(options.port);
  bool bound = port == 0 ? (port = http.bind_to_any_port(options.host)) > 0
                         : http.bind_to_port(options.host, port);
  if (!bound) {
    std::fprintf(stderr, "et-llm serve: cannot listen on %s:%lld\n",
                 options.host.c_str(), static_cast<long long>(options.port));
    return 1;
  }
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    stopping = true;
    std::fprintf(stderr, "et-llm serve: %s, stopping\n", strsignal(signal));
    http.stop();
  });
  std::fprintf(stderr,
               "et-llm serve: %s on http://%s:%d/v1 (context %lld, queue "
               "%lld)\n",
               server.modelName.c_str(), options.host.c_str(), port,
               static_cast<long long>(server.model.context),
               static_cast<long long>(options.queue));
  std::fflush(stderr);
  bool served = http.listen_after_bind();
  if (!stopping) {
    waiter.detach();
    std::fprintf(stderr, "et-llm serve: the server stopped listening\n");
    return 1;
  }
  waiter.join();
  return served ? 0 : 1;
}

} // namespace etch::tools
