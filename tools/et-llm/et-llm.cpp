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
#include "Generate.h"
#include "LlmModel.h"
#include "TextCommands.h"
#include "serve/LlmServer.h"
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
using namespace etch::tools;

namespace {

struct Options {
  ModelOptions model;
  std::string output, logits;
  std::optional<std::string> promptText; // --prompt, before tokenizing
  std::vector<std::string> stops;        // --stop strings
  std::optional<std::string> system;     // --system
  std::vector<int64_t> prompt, forced;
  int64_t maxNewTokens = 64;
  bool quiet = false, warmup = false;
  SamplingOptions sampling;
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
      "  et-llm serve --help                 an OpenAI-compatible server\n"
      "  --stop TEXT           stop when the text holds TEXT (repeatable;\n"
      "                        with a tokenizer; TEXT is not printed)\n"
      "  --seed S              sampling seed\n"
      "  --threads N           kernel threads (default: the cores)\n"
      "  --max-context N       stop at N positions (default: the program's)\n"
      "  --eos ID              stop at this token (repeatable; default: the "
      "program's)\n"
      "  --ignore-eos          never stop at an end token\n"
      "  --method NAME         the method to run (default: prefill and decode\n"
      "                        when the program has both, else forward)\n"
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

/// et-llm's own options (OptionReader).
const char *readOption(const std::string &arg, const char *value, int &i,
                       Options &options) {
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
  } else if (arg == "--top-k") {
    if (!takes(parseInteger(value, 0, options.sampling.topK)))
      return "--top-k takes a count";
  } else if (arg == "--seed") {
    if (!takes(parseInteger(value, 0, number)))
      return "--seed takes a non-negative integer";
    options.sampling.seed = number;
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
  } else if (arg == "--output" || arg == "--logits") {
    if (!takes(value != nullptr))
      return "an option lacks its value";
    (arg == "--output" ? options.output : options.logits) = value;
  } else if (arg == "--chat") {
    options.model.chat = ChatUse::Required;
  } else if (arg == "--system") {
    if (!takes(value != nullptr))
      return "an option lacks its value";
    options.system = value;
  } else if (arg == "--warmup") {
    options.warmup = true;
  } else if (arg == "--quiet") {
    options.quiet = true;
  } else {
    return kUnknownOption;
  }
  return nullptr;
}

const char *parse(int argc, char **argv, Options &options) {
  if (const char *problem = parseCommandLine(
          argc, argv, options.model,
          [&](const std::string &arg, const char *value, int &i) {
            return readOption(arg, value, i, options);
          }))
    return problem;
  if (options.promptText && !options.prompt.empty())
    return "give --prompt or --prompt-ids, not both";
  if (!options.promptText && options.prompt.empty())
    return "--prompt-ids with at least one token id (or --tokenizer FILE "
           "--prompt TEXT) is required";
  return nullptr;
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
    std::vector<etch::llm::ChatMessage> messages;
    if (options.system)
      messages.push_back({"system", *options.system});
    messages.push_back({"user", text});
    static std::string error;
    if (!etch::tools::encodeChat(*chat, *tokenizer, messages, options.prompt,
                                 error))
      return error.c_str();
  } else {
    for (int32_t id : tokenizer->encode(text, /*addSpecial=*/true))
      options.prompt.push_back(id);
  }
  return options.prompt.empty() ? "the prompt has no tokens" : nullptr;
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
  if (argc > 1 && std::strcmp(argv[1], "serve") == 0)
    return etch::tools::runServeCommand(argc - 1, argv + 1);
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
      return help();
  Options options;
  if (const char *problem = parse(argc, argv, options))
    return usage(problem);
  LlmModel model;
  if (!openModel(options.model, model))
    return 1;
  const char *path = options.model.program.c_str();
  if (!options.stops.empty() && !model.tokenizer) {
    std::fprintf(stderr, "et-llm: --stop needs a tokenizer (--tokenizer FILE, "
                         "or one the program carries)\n");
    return 1;
  }
  if (const char *problem =
          resolvePrompt(options, model.tokenizer.get(),
                        model.chat ? &*model.chat : nullptr)) {
    std::fprintf(stderr, "et-llm: %s\n", problem);
    return 1;
  }
  LlmRunner &runner = model.runner;
  int64_t context = model.context;
  int64_t prompt = options.prompt.size();
  if (prompt >= context) {
    std::fprintf(stderr,
                 "et-llm: the prompt has %lld tokens; the program holds %lld "
                 "positions\n",
                 static_cast<long long>(prompt),
                 static_cast<long long>(context));
    return 1;
  }
  // Token ids the user gave that the model has no row for.
  auto outsideVocabulary = [&](const std::vector<int64_t> &tokens,
                               const char *what) {
    for (int64_t token : tokens)
      if (token >= runner.vocab()) {
        std::fprintf(stderr,
                     "et-llm: %s token %lld is outside the vocabulary of "
                     "%lld\n",
                     what, static_cast<long long>(token),
                     static_cast<long long>(runner.vocab()));
        return true;
      }
    return false;
  };
  if (outsideVocabulary(options.prompt, "prompt"))
    return 1;
  int64_t budget = std::min(options.maxNewTokens, context - prompt);
  if (!options.forced.empty()) {
    // Every forced token is generated (and scored) once.
    budget = std::min<int64_t>(options.forced.size(), context - prompt);
    model.eos.clear();
  }
  if (outsideVocabulary(options.forced, "forced"))
    return 1;

  TokenSampler sampler(options.sampling);
  std::vector<float> logits; // rows behind each generated token (--logits)
  int64_t agreed = 0, chosen = 0;
  std::optional<etch::llm::TextStreamer> streamer;
  if (model.tokenizer)
    streamer.emplace(
        *model.tokenizer,
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
                   errorName(warm), runtimeCause().c_str());
      return 1;
    }
  }
  GenerationHooks hooks;
  hooks.chosen = [&](int64_t &token) {
    if (!options.logits.empty())
      logits.insert(logits.end(), runner.logits(),
                    runner.logits() + runner.vocab());
    if (!options.forced.empty()) {
      agreed += token == options.forced[chosen];
      token = options.forced[chosen];
    }
    ++chosen;
  };
  if (streamer)
    hooks.accepted = [&](int64_t token) {
      return streamer->push(static_cast<int32_t>(token)); // a stop string
    };
  if (progress)
    hooks.stepped = [&](size_t generated, int64_t steps, uint64_t nanos) {
      std::fprintf(stderr, "\r[et-llm] %zu/%lld tokens, %.1f tokens/s",
                   generated, static_cast<long long>(budget),
                   rate(steps, nanos));
    };
  Generation result =
      generate(runner, options.prompt, budget, model.eos, sampler, hooks);
  if (progress)
    std::fprintf(stderr, "\n");
  if (streamer) {
    streamer->finish();
    std::printf("\n");
  }
  if (result.status != Error::Ok) {
    std::fprintf(
        stderr, "et-llm: %s: execution failed after %zu tokens (%s)%s\n", path,
        result.tokens.size(), errorName(result.status), runtimeCause().c_str());
    return 1;
  }
  std::string ids;
  for (int64_t token : result.tokens)
    ids += (ids.empty() ? "" : " ") + std::to_string(token);
  std::printf("tokens: %s\n", ids.c_str());
  std::printf("prefill: %lld tokens in %.3f ms (%.1f tokens/s)\n",
              static_cast<long long>(prompt), result.prefillNanos / 1e6,
              rate(prompt, result.prefillNanos));
  std::printf("decode: %lld tokens in %.3f ms (%.1f tokens/s)\n",
              static_cast<long long>(result.decodeSteps),
              result.decodeNanos / 1e6,
              rate(result.decodeSteps, result.decodeNanos));
  if (!options.forced.empty())
    std::printf("agreement: %lld of %zu forced tokens were the model's top "
                "choice\n",
                static_cast<long long>(agreed), result.tokens.size());
  if (!options.logits.empty()) {
    int64_t shape[2] = {static_cast<int64_t>(result.tokens.size()),
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
