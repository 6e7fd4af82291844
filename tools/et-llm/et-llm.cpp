//===- et-llm.cpp - Generate tokens with an etch decoder program ----------===//
//
//   et-llm model.etp --prompt-ids "1 15043 3186"|@ids.txt [--max-new-tokens N]
//          [--temperature T] [--top-k K] [--seed S] [--threads N]
//          [--max-context N] [--eos ID] [--ignore-eos] [--method NAME]
//          [--force "ID ID ..."] [--logits FILE.npy] [--output FILE]
//          [--warmup] [--quiet]
//
// Token ids in, token ids out; with --tokenizer FILE, --prompt is text and
// the generated text streams to stdout as it comes. Prints the generated
// ids, then prefill and decode tokens/s; a
// progress line on a terminal while generating. --force feeds the given
// continuation instead of the sampled tokens (teacher forcing) and reports
// how many the model's own top-1 agreed with; --logits writes the logits
// behind each generated token. --warmup runs the prompt and one decode
// step untimed first, then forgets them (as llama-bench warms up): the
// first touch of the weights' pages is not counted. Uses only the runtime.
//
//===----------------------------------------------------------------------===//
#include "LlmRunner.h"
#include "TokenSampler.h"
#include "TextCommands.h"
#include "tools/et-run/Npy.h"

#include "runtime/llm/chat/ChatConfig.h"
#include "runtime/llm/tokenizer/TextStreamer.h"
#include "runtime/module/Module.h"
#include "runtime/platform/Platform.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace etch::runtime;
using etch::tools::LlmRunner;
using etch::tools::SamplingOptions;
using etch::tools::TokenSampler;

namespace {

struct Options {
  std::string program, method = "forward", output, logits, tokenizer;
  std::optional<std::string> promptText; // --prompt, before tokenizing
  std::vector<std::string> stops;        // --stop strings
  bool chat = false;                     // --chat: the chat template wraps it
  std::optional<std::string> system;     // --system
  std::string chatTemplate;              // --chat-template FILE
  std::vector<int64_t> prompt, forced;
  int64_t maxNewTokens = 64, maxContext = 0;
  std::vector<int64_t> eos;
  bool ignoreEos = false, quiet = false, warmup = false;
  SamplingOptions sampling;
  int threads = 0;
};

constexpr const char *kUsage =
    "usage: et-llm model.etp (--prompt-ids \"ID ID ...\" | --tokenizer FILE "
    "--prompt TEXT) "
    "[--max-new-tokens N] [--temperature T] [--top-k K] [--top-p P] "
    "[--min-p P] [--repetition-penalty R] [--stop TEXT] [--seed S] "
    "[--threads N] [--max-context N] [--eos ID] [--ignore-eos] "
    "[--method NAME] [--force \"ID ...\"] [--logits FILE.npy] "
    "[--output FILE] [--warmup] [--quiet]\n";

int usage(const char *message) {
  std::fprintf(stderr, "et-llm: %s\n%s", message, kUsage);
  return 2;
}

/// --help: the usage line and what each option does, on stdout.
int help() {
  std::printf(
      "et-llm: generates tokens with a decoder program (docs/llm.md)\n%s"
      "  --prompt-ids IDS      prompt token ids (\"1 2 3\", or @FILE)\n"
      "  --tokenizer FILE      tokenizer.json, SentencePiece .model or "
      "tiktoken\n"
      "                        file: --prompt is text, the output streams as "
      "text\n"
      "  --prompt TEXT         the prompt (@FILE: the file's text); token ids\n"
      "                        when no tokenizer is given\n"
      "  et-llm tokenize|detokenize --help   text <-> ids alone\n"
      "  --max-new-tokens N    tokens to generate (64)\n"
      "  --temperature T       0 (default): greedy; else sample at T\n"
      "  --top-k K             sample among the K likeliest (0: all)\n"
      "  --top-p P             ... among the likeliest holding mass P (1)\n"
      "  --min-p P             ... among those at least P x the likeliest's\n"
      "                        chance (0)\n"
      "  --repetition-penalty R  divide the logits of tokens already seen\n"
      "                        by R (1: off; greedy too)\n"
      "  --chat                wrap --prompt in the chat template (a user\n"
      "                        turn and the assistant's prompt)\n"
      "  --system TEXT         with --chat: a system message first\n"
      "  --chat-template FILE  the template (tokenizer_config.json or Jinja)\n"
      "                        instead of the program's\n"
      "  et-llm chat-template --help         render a template alone\n"
      "  --stop TEXT           stop when the text holds TEXT (repeatable;\n"
      "                        with a tokenizer; TEXT is not printed)\n"
      "  --seed S              sampling seed\n"
      "  --threads N           kernel threads (default: the cores)\n"
      "  --max-context N       stop at N positions (default: the program's)\n"
      "  --eos ID              stop at this token (repeatable; default: the "
      "program's)\n"
      "  --ignore-eos          never stop at an end token\n"
      "  --method NAME         the method to run (forward)\n"
      "  --force IDS           feed these tokens instead of choosing "
      "(teacher forcing)\n"
      "  --logits FILE.npy     write the logits behind each token\n"
      "  --output FILE         write the generated ids to FILE\n"
      "  --warmup              run the prompt and one step untimed first\n"
      "  --quiet               no progress line while generating\n"
      "  --help, -h            this text\n",
      kUsage);
  return 0;
}

bool parseIds(const char *text, std::vector<int64_t> &ids);

/// Ids given on the command line, or in the file named after '@'.
bool parseIdsArgument(const char *text, std::vector<int64_t> &ids) {
  if (text[0] != '@')
    return parseIds(text, ids);
  FILE *file = std::fopen(text + 1, "r");
  if (!file)
    return false;
  std::string contents;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;)
    contents.append(buffer, n);
  std::fclose(file);
  return parseIds(contents.c_str(), ids);
}

/// Whitespace- or comma-separated integers; false on anything else.
bool parseIds(const char *text, std::vector<int64_t> &ids) {
  const char *at = text;
  while (*at) {
    if (*at == ' ' || *at == ',' || *at == '\t' || *at == '\n' ||
        *at == '\r') {
      ++at;
      continue;
    }
    char *end = nullptr;
    long long value = std::strtoll(at, &end, 10);
    if (end == at || value < 0)
      return false;
    ids.push_back(value);
    at = end;
  }
  return true;
}

bool parseFloat(const char *text, float low, float high, float &value) {
  char *end = nullptr;
  float parsed = text ? std::strtof(text, &end) : 0;
  if (!text || end == text || *end || !(parsed >= low && parsed <= high))
    return false;
  value = parsed;
  return true;
}

bool parseInteger(const char *text, int64_t low, int64_t &value) {
  char *end = nullptr;
  long long parsed = text ? std::strtoll(text, &end, 10) : 0;
  if (!text || end == text || *end || parsed < low)
    return false;
  value = parsed;
  return true;
}

const char *parse(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
    int64_t number = 0;
    auto takes = [&](bool ok) {
      ++i;
      return ok;
    };
    if (arg == "--prompt-ids") {
      if (!takes(value && parseIdsArgument(value, options.prompt)))
        return "--prompt-ids takes token ids (\"1 2 3\", or @FILE holding "
               "them)";
    } else if (arg == "--prompt") {
      if (!takes(value != nullptr))
        return "--prompt takes the prompt (text with --tokenizer, else ids)";
      options.promptText = value;
    } else if (arg == "--force") {
      if (!takes(value && parseIdsArgument(value, options.forced) &&
                 !options.forced.empty()))
        return "--force takes token ids (\"1 2 3\", or @FILE holding them)";
    } else if (arg == "--max-new-tokens") {
      if (!takes(parseInteger(value, 0, options.maxNewTokens)))
        return "--max-new-tokens takes a count";
    } else if (arg == "--max-context") {
      if (!takes(parseInteger(value, 1, options.maxContext)))
        return "--max-context takes a positive count";
    } else if (arg == "--top-k") {
      if (!takes(parseInteger(value, 0, options.sampling.topK)))
        return "--top-k takes a count";
    } else if (arg == "--seed") {
      if (!takes(parseInteger(value, 0, number)))
        return "--seed takes a non-negative integer";
      options.sampling.seed = number;
    } else if (arg == "--threads") {
      if (!takes(parseInteger(value, 1, number)))
        return "--threads takes a positive count";
      options.threads = number;
    } else if (arg == "--eos") {
      if (!takes(parseInteger(value, 0, number)))
        return "--eos takes a token id";
      options.eos.push_back(number);
    } else if (arg == "--temperature") {
      if (!takes(parseFloat(value, 0, INFINITY, options.sampling.temperature)))
        return "--temperature takes a number >= 0";
    } else if (arg == "--top-p") {
      if (!takes(parseFloat(value, 0, 1, options.sampling.topP) &&
                 options.sampling.topP > 0))
        return "--top-p takes a number in (0, 1]";
    } else if (arg == "--min-p") {
      if (!takes(parseFloat(value, 0, 1, options.sampling.minP)))
        return "--min-p takes a number in [0, 1]";
    } else if (arg == "--repetition-penalty") {
      if (!takes(parseFloat(value, 0, INFINITY,
                            options.sampling.repetitionPenalty) &&
                 options.sampling.repetitionPenalty > 0))
        return "--repetition-penalty takes a number > 0";
    } else if (arg == "--stop") {
      if (!takes(value && *value))
        return "--stop takes a non-empty string";
      options.stops.push_back(value);
    } else if (arg == "--method" || arg == "--output" || arg == "--logits" ||
               arg == "--tokenizer") {
      if (!takes(value != nullptr))
        return "an option lacks its value";
      (arg == "--method"      ? options.method
       : arg == "--output"    ? options.output
       : arg == "--tokenizer" ? options.tokenizer
                              : options.logits) = value;
    } else if (arg == "--chat") {
      options.chat = true;
    } else if (arg == "--system" || arg == "--chat-template") {
      if (!takes(value != nullptr))
        return "an option lacks its value";
      if (arg == "--system")
        options.system = value;
      else
        options.chatTemplate = value;
    } else if (arg == "--ignore-eos") {
      options.ignoreEos = true;
    } else if (arg == "--warmup") {
      options.warmup = true;
    } else if (arg == "--quiet") {
      options.quiet = true;
    } else if (!arg.empty() && arg[0] != '-' && options.program.empty()) {
      options.program = arg;
    } else {
      static std::string unknown;
      unknown = "unknown argument '" + arg + "' (see --help)";
      return unknown.c_str();
    }
  }
  if (options.program.empty())
    return "no program given";
  if (options.promptText && !options.prompt.empty())
    return "give --prompt or --prompt-ids, not both";
  if (!options.promptText && options.prompt.empty())
    return "--prompt-ids with at least one token id (or --tokenizer FILE "
           "--prompt TEXT) is required";
  return nullptr;
}

/// Keeps a loaded tokenizer; false after printing why it did not load.
bool takeTokenizer(etch::llm::TokenizerLoad load,
                   std::unique_ptr<etch::llm::Tokenizer> &tokenizer) {
  if (!load.tokenizer) {
    std::fprintf(stderr, "et-llm: %s\n", load.error.c_str());
    return false;
  }
  tokenizer = std::move(load.tokenizer);
  return true;
}

/// The chat template of --chat-template FILE or the program's; false after
/// printing why there is none.
bool loadChatConfig(const Options &options, const Program &program,
                    std::optional<etch::llm::ChatConfig> &chat) {
  std::string bytes, error;
  std::string source = options.chatTemplate;
  if (!source.empty()) {
    if (!etch::tools::readTextArgument("@" + source, bytes)) {
      std::fprintf(stderr, "et-llm: cannot read %s\n", source.c_str());
      return false;
    }
  } else {
    Span<const uint8_t> carried = program.namedData("chat_config");
    if (!carried.data()) {
      std::fprintf(stderr,
                   "et-llm: --chat needs a chat template: the program carries "
                   "none (et-compile --tokenizer FILE [--chat-template FILE]);"
                   " give --chat-template FILE\n");
      return false;
    }
    bytes.assign(reinterpret_cast<const char *>(carried.data()),
                 carried.size());
    source = options.program + " (its chat template)";
  }
  chat.emplace();
  if (!etch::llm::readChatConfig(bytes, source, *chat, error)) {
    std::fprintf(stderr, "et-llm: %s\n", error.c_str());
    return false;
  }
  return true;
}

/// Turns --prompt into ids: text through \p tokenizer (with the special
/// tokens it adds around a sequence, a BOS, as transformers' tokenizer(text)
/// and llama.cpp do), or ids when there is none. Null, or what is wrong.
const char *resolvePrompt(Options &options,
                          const etch::llm::Tokenizer *tokenizer,
                          const etch::llm::ChatConfig *chat) {
  if (!options.promptText)
    return chat ? "--chat needs --prompt TEXT" : nullptr;
  const std::string &argument = *options.promptText;
  if (!tokenizer)
    return parseIdsArgument(argument.c_str(), options.prompt)
               ? nullptr
               : "--prompt is text only with a tokenizer (--tokenizer FILE, "
                 "or one the program carries); without one it takes token "
                 "ids (or use --prompt-ids)";
  std::string text;
  if (!etch::tools::readTextArgument(argument, text))
    return "cannot read the --prompt file";
  if (chat) {
    // The template writes the special tokens (a BOS) itself, so the text is
    // encoded without them, as apply_chat_template(tokenize=True) does.
    std::vector<etch::llm::ChatMessage> messages;
    if (options.system)
      messages.push_back({"system", *options.system});
    messages.push_back({"user", text});
    static std::string error;
    std::unique_ptr<etch::llm::ChatTemplate> parsed =
        etch::llm::ChatTemplate::parse(chat->chatTemplate, error);
    std::string rendered;
    if (!parsed ||
        !parsed->renderJson(chat->context(messages, true), rendered, error)) {
      error = "the chat template: " + error;
      return error.c_str();
    }
    for (int32_t id : tokenizer->encode(rendered, /*addSpecial=*/false))
      options.prompt.push_back(id);
  } else {
    for (int32_t id : tokenizer->encode(text, /*addSpecial=*/true))
      options.prompt.push_back(id);
  }
  return options.prompt.empty() ? "the prompt has no tokens" : nullptr;
}

/// The first error the runtime logged, for the one-line messages below.
char firstError[512];
void captureErrors() {
  PlatformHooks hooks{};
  hooks.log = [](LogLevel level, const char *, int, const char *message) {
    if (level >= LogLevel::Error && !firstError[0])
      std::snprintf(firstError, sizeof(firstError), "%s", message);
  };
  setPlatformHooks(hooks);
}
std::string cause() {
  std::string text = firstError[0] ? std::string(": ") + firstError : "";
  firstError[0] = 0;
  return text;
}

double rate(int64_t tokens, uint64_t nanos) {
  return nanos ? tokens * 1e9 / nanos : 0;
}

} // namespace

int main(int argc, char **argv) {
  etch::llm::enableSentencePiece();
  if (argc > 1 && (std::strcmp(argv[1], "tokenize") == 0 ||
                   std::strcmp(argv[1], "detokenize") == 0))
    return etch::tools::runTokenizerCommand(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "chat-template") == 0)
    return etch::tools::runChatTemplateCommand(argc - 1, argv + 1);
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
      return help();
  Options options;
  if (const char *problem = parse(argc, argv, options))
    return usage(problem);
  // A tokenizer file first: a bad one is reported before the program loads.
  std::unique_ptr<etch::llm::Tokenizer> tokenizer;
  if (!options.tokenizer.empty() &&
      !takeTokenizer(etch::llm::loadTokenizer(options.tokenizer), tokenizer))
    return 1;
  captureErrors();
  registerAllBackends();
  if (options.threads)
    setPreferredThreadCount(options.threads);
  const char *path = options.program.c_str();
  Result<std::unique_ptr<Module>> module = Module::open(path);
  if (!module.ok()) {
    std::fprintf(stderr, "et-llm: %s: cannot load program (%s)%s\n", path,
                 errorName(module.error()), cause().c_str());
    return 1;
  }
  // Else the tokenizer the program carries (et-compile --tokenizer).
  Span<const uint8_t> carried = (*module)->program().namedData("tokenizer");
  if (!tokenizer && carried.data() &&
      !takeTokenizer(
          etch::llm::loadTokenizerFromBytes(
              std::string_view(reinterpret_cast<const char *>(carried.data()),
                               carried.size()),
              options.program + " (its tokenizer)"),
          tokenizer))
    return 1;
  if (!options.stops.empty() && !tokenizer) {
    std::fprintf(stderr, "et-llm: --stop needs a tokenizer (--tokenizer FILE, "
                         "or one the program carries)\n");
    return 1;
  }
  std::optional<etch::llm::ChatConfig> chat;
  if (options.chat && !loadChatConfig(options, (*module)->program(), chat))
    return 1;
  if (chat && !tokenizer) {
    std::fprintf(stderr, "et-llm: --chat needs a tokenizer (--tokenizer FILE, "
                         "or one the program carries)\n");
    return 1;
  }
  if (const char *problem =
          resolvePrompt(options, tokenizer.get(), chat ? &*chat : nullptr)) {
    std::fprintf(stderr, "et-llm: %s\n", problem);
    return 1;
  }
  Result<std::unique_ptr<Method>> method =
      (*module)->loadMethod(options.method.c_str());
  if (!method.ok()) {
    std::fprintf(stderr, "et-llm: %s: cannot load method '%s' (%s)%s\n", path,
                 options.method.c_str(), errorName(method.error()),
                 cause().c_str());
    return 1;
  }
  LlmRunner runner;
  std::string error;
  if (!runner.bind(**method, error)) {
    std::fprintf(stderr, "et-llm: %s: %s\n", path, error.c_str());
    return 1;
  }
  // The context the cache holds: the program's metadata unless overridden.
  const Program &program = (*module)->program();
  int64_t context = options.maxContext;
  if (!context && runner.cached()) {
    const char *text = program.metadata("max_context");
    if (!text || !parseInteger(text, 1, context)) {
      std::fprintf(stderr,
                   "et-llm: %s: the program does not say how many positions "
                   "its cache holds (metadata max_context); pass "
                   "--max-context N\n",
                   path);
      return 1;
    }
  }
  if (!runner.cached())
    context = context ? std::min(context, runner.maxChunk())
                      : runner.maxChunk();
  if (options.eos.empty() && !options.ignoreEos)
    if (const char *text = program.metadata("eos_token_id"))
      parseIds(text, options.eos);
  int64_t prompt = options.prompt.size();
  if (prompt >= context) {
    std::fprintf(stderr,
                 "et-llm: the prompt has %lld tokens; the program holds %lld "
                 "positions\n",
                 static_cast<long long>(prompt),
                 static_cast<long long>(context));
    return 1;
  }
  for (int64_t token : options.prompt)
    if (token >= runner.vocab()) {
      std::fprintf(stderr, "et-llm: prompt token %lld is outside the "
                           "vocabulary of %lld\n",
                   static_cast<long long>(token),
                   static_cast<long long>(runner.vocab()));
      return 1;
    }
  int64_t budget = std::min(options.maxNewTokens, context - prompt);
  if (!options.forced.empty()) {
    // Every forced token is generated (and scored) once.
    budget = std::min<int64_t>(options.forced.size(), context - prompt);
    options.ignoreEos = true;
  }
  for (int64_t token : options.forced)
    if (token >= runner.vocab()) {
      std::fprintf(stderr, "et-llm: forced token %lld is outside the "
                           "vocabulary of %lld\n",
                   static_cast<long long>(token),
                   static_cast<long long>(runner.vocab()));
      return 1;
    }

  TokenSampler sampler(options.sampling);
  std::vector<int64_t> seen = options.prompt; // for the repetition penalty
  std::vector<int64_t> generated;
  std::vector<float> logits; // rows behind each generated token (--logits)
  int64_t agreed = 0;
  std::optional<etch::llm::TextStreamer> streamer;
  if (tokenizer)
    streamer.emplace(
        *tokenizer,
        [](std::string_view text) {
          std::fwrite(text.data(), 1, text.size(), stdout);
          std::fflush(stdout);
        },
        options.stops);
  bool progress = !options.quiet && !streamer && isatty(STDERR_FILENO);
  if (options.warmup) {
    Error warm = runner.feed(options.prompt.data(), prompt, 0);
    int64_t next = options.prompt.back();
    if (warm == Error::Ok)
      warm = runner.feed(&next, 1, prompt);
    runner.reset();
    if (warm != Error::Ok) {
      std::fprintf(stderr, "et-llm: %s: warming up failed (%s)%s\n", path,
                   errorName(warm), cause().c_str());
      return 1;
    }
  }
  uint64_t start = nowNanoseconds();
  Error status = runner.feed(options.prompt.data(), prompt, 0);
  uint64_t prefillNanos = nowNanoseconds() - start, decodeNanos = 0;
  int64_t decodeSteps = 0;
  while (status == Error::Ok && static_cast<int64_t>(generated.size()) < budget) {
    int64_t token = sampler.next(runner.logits(), runner.vocab(), seen);
    if (!options.logits.empty())
      logits.insert(logits.end(), runner.logits(),
                    runner.logits() + runner.vocab());
    if (!options.forced.empty()) {
      agreed += token == options.forced[generated.size()];
      token = options.forced[generated.size()];
    }
    generated.push_back(token);
    seen.push_back(token);
    bool stop = !options.ignoreEos &&
                std::find(options.eos.begin(), options.eos.end(), token) !=
                    options.eos.end();
    if (streamer && !stop)
      stop = streamer->push(static_cast<int32_t>(token)); // a stop string
    if (stop || static_cast<int64_t>(generated.size()) == budget)
      break;
    uint64_t stepStart = nowNanoseconds();
    status = runner.feed(&token, 1, prompt + generated.size() - 1);
    decodeNanos += nowNanoseconds() - stepStart;
    ++decodeSteps;
    if (progress)
      std::fprintf(stderr, "\r[et-llm] %zu/%lld tokens, %.1f tokens/s",
                   generated.size(), static_cast<long long>(budget),
                   rate(decodeSteps, decodeNanos));
  }
  if (progress)
    std::fprintf(stderr, "\n");
  if (streamer) {
    streamer->finish();
    std::printf("\n");
  }
  if (status != Error::Ok) {
    std::fprintf(stderr, "et-llm: %s: execution failed after %zu tokens (%s)%s\n",
                 path, generated.size(), errorName(status), cause().c_str());
    return 1;
  }
  std::string ids;
  for (int64_t token : generated)
    ids += (ids.empty() ? "" : " ") + std::to_string(token);
  std::printf("tokens: %s\n", ids.c_str());
  std::printf("prefill: %lld tokens in %.3f ms (%.1f tokens/s)\n",
              static_cast<long long>(prompt), prefillNanos / 1e6,
              rate(prompt, prefillNanos));
  std::printf("decode: %lld tokens in %.3f ms (%.1f tokens/s)\n",
              static_cast<long long>(decodeSteps), decodeNanos / 1e6,
              rate(decodeSteps, decodeNanos));
  if (!options.forced.empty())
    std::printf("agreement: %lld of %zu forced tokens were the model's top "
                "choice\n",
                static_cast<long long>(agreed), generated.size());
  if (!options.logits.empty()) {
    int64_t shape[2] = {static_cast<int64_t>(generated.size()),
                        runner.vocab()};
    std::string error;
    if (!etch::tools::writeNpy(options.logits, ScalarType::Float32, shape, 2,
                               logits.data(), logits.size() * sizeof(float),
                               error)) {
      std::fprintf(stderr, "et-llm: %s\n", error.c_str());
      return 1;
    }
  }
  if (!options.output.empty()) {
    FILE *file = std::fopen(options.output.c_str(), "w");
    if (!file || std::fprintf(file, "%s\n", ids.c_str()) < 0 ||
        std::fclose(file) != 0) {
      std::fprintf(stderr, "et-llm: cannot write %s\n", options.output.c_str());
      return 1;
    }
  }
  return 0;
}
