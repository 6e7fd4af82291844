#include "LlmModel.h"
#include "TextCommands.h"

#include "runtime/platform/Platform.h"

#include <cstdio>
#include <cstdlib>

namespace etch::tools {

using namespace etch::runtime;

namespace {

/// The first error the runtime logged, for one-line messages.
char firstError[512];

void captureErrors() {
  PlatformHooks hooks{};
  hooks.log = [](LogLevel level, const char *, int, const char *message) {
    if (level >= LogLevel::Error && !firstError[0])
      std::snprintf(firstError, sizeof(firstError), "%s", message);
  };
  setPlatformHooks(hooks);
}

bool fail(const std::string &message) {
  std::fprintf(stderr, "et-llm: %s\n", message.c_str());
  return false;
}

/// Keeps a loaded tokenizer; false after printing why it did not load.
bool takeTokenizer(llm::TokenizerLoad load,
                   std::unique_ptr<llm::Tokenizer> &tokenizer) {
  if (!load.tokenizer)
    return fail(load.error);
  tokenizer = std::move(load.tokenizer);
  return true;
}

/// The chat template of options.chatTemplate or the program's; false after
/// printing why it cannot be read, or that there is none when required.
bool loadChatConfig(const ModelOptions &options, const Program &program,
                    std::optional<llm::ChatConfig> &chat) {
  std::string bytes, error;
  std::string source = options.chatTemplate;
  if (!source.empty()) {
    if (!readTextArgument("@" + source, bytes))
      return fail("cannot read " + source);
  } else {
    Span<const uint8_t> carried = program.namedData("chat_config");
    if (!carried.data())
      return options.chat != ChatUse::Required ||
             fail("--chat needs a chat template: the program carries none "
                  "(et-compile --tokenizer FILE [--chat-template FILE]); give "
                  "--chat-template FILE");
    bytes.assign(reinterpret_cast<const char *>(carried.data()),
                 carried.size());
    source = options.program + " (its chat template)";
  }
  chat.emplace();
  if (!llm::readChatConfig(bytes, source, *chat, error))
    return fail(error);
  return true;
}

/// The positions the cache holds and the end tokens, from the options or
/// the program's metadata.
bool readLimits(const ModelOptions &options, LlmModel &model) {
  const Program &program = model.module->program();
  model.context = options.maxContext;
  if (!model.context && model.runner.cached()) {
    const char *text = program.metadata("max_context");
    if (!text || !parseInteger(text, 1, model.context))
      return fail(options.program +
                  ": the program does not say how many positions its cache "
                  "holds (metadata max_context); pass --max-context N");
  }
  if (!model.runner.cached())
    model.context = model.context
                        ? std::min(model.context, model.runner.maxChunk())
                        : model.runner.maxChunk();
  model.eos = options.eos;
  if (model.eos.empty() && !options.ignoreEos)
    if (const char *text = program.metadata("eos_token_id"))
      parseIds(text, model.eos);
  if (options.ignoreEos)
    model.eos.clear();
  return true;
}

} // namespace

const char *const kUnknownOption = "unknown option";

namespace {

/// The OptionReader of the options every model-opening command takes.
const char *readModelOption(const std::string &arg, const char *value, int &i,
                            ModelOptions &options) {
  int64_t number = 0;
  if (arg == "--ignore-eos") {
    options.ignoreEos = true;
    return nullptr;
  }
  bool known = arg == "--max-context" || arg == "--threads" || arg == "--eos" ||
               arg == "--tokenizer" || arg == "--chat-template" ||
               arg == "--method";
  if (!known)
    return kUnknownOption;
  ++i; // each of the others takes a value
  if (arg == "--max-context")
    return parseInteger(value, 1, options.maxContext)
               ? nullptr
               : "--max-context takes a positive count";
  if (arg == "--threads") {
    if (!parseInteger(value, 1, number))
      return "--threads takes a positive count";
    options.threads = number;
    return nullptr;
  }
  if (arg == "--eos") {
    if (!parseInteger(value, 0, number))
      return "--eos takes a token id";
    options.eos.push_back(number);
    return nullptr;
  }
  if (!value || !*value)
    return "an option lacks its value";
  (arg == "--tokenizer"       ? options.tokenizer
   : arg == "--chat-template" ? options.chatTemplate
                              : options.method) = value;
  return nullptr;
}

} // namespace

const char *parseCommandLine(int argc, char **argv, ModelOptions &model,
                             const OptionReader &own) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
    const char *problem = readModelOption(arg, value, i, model);
    if (problem == kUnknownOption)
      problem = own(arg, value, i);
    if (problem == kUnknownOption && !arg.empty() && arg[0] != '-' &&
        model.program.empty()) {
      model.program = arg;
      continue;
    }
    if (problem == kUnknownOption) {
      static std::string unknown;
      unknown = "unknown argument '" + arg + "' (see --help)";
      return unknown.c_str();
    }
    if (problem)
      return problem;
  }
  return model.program.empty() ? "no program given" : nullptr;
}

bool openModel(const ModelOptions &options, LlmModel &model) {
  if (!options.tokenizer.empty() &&
      !takeTokenizer(llm::loadTokenizer(options.tokenizer), model.tokenizer))
    return false;
  captureErrors();
  registerAllBackends();
  LoadOptions loadOptions;
  loadOptions.threads = options.threads;
  const char *path = options.program.c_str();
  Result<std::unique_ptr<Module>> module = Module::open(path, loadOptions);
  if (!module.ok())
    return fail(options.program + ": cannot load program (" +
                errorName(module.error()) + ")" + runtimeCause());
  model.module = std::move(*module);
  const Program &program = model.module->program();
  // Else the tokenizer the program carries (et-compile --tokenizer).
  Span<const uint8_t> carried = program.namedData("tokenizer");
  if (!model.tokenizer && carried.data() &&
      !takeTokenizer(
          llm::loadTokenizerFromBytes(
              std::string_view(reinterpret_cast<const char *>(carried.data()),
                               carried.size()),
              options.program + " (its tokenizer)"),
          model.tokenizer))
    return false;
  if (options.chat != ChatUse::Skip &&
      !loadChatConfig(options, program, model.chat))
    return false;
  if (options.chat == ChatUse::Required && !model.tokenizer)
    return fail("--chat needs a tokenizer (--tokenizer FILE, or one the "
                "program carries)");
  bool split = options.method.empty() && program.method("prefill") &&
               program.method("decode");
  std::string name = split                    ? "prefill"
                     : options.method.empty() ? "forward"
                                              : options.method;
  auto load = [&](const std::string &method, std::unique_ptr<Method> &loaded) {
    Result<std::unique_ptr<Method>> result =
        model.module->loadMethod(method.c_str(), &model.state);
    if (!result.ok())
      return fail(options.program + ": cannot load method '" + method + "' (" +
                  errorName(result.error()) + ")" + runtimeCause());
    loaded = std::move(*result);
    return true;
  };
  if (!load(name, model.method))
    return false;
  std::string error;
  if (!model.runner.bind(*model.method, error))
    return fail(options.program + ": " + error);
  if (split && (!load("decode", model.decode) ||
                !model.runner.bindDecode(*model.decode, error)))
    return error.empty() ? false : fail(options.program + ": " + error);
  return readLimits(options, model);
}

bool encodeChat(const llm::ChatConfig &chat, const llm::Tokenizer &tokenizer,
                const std::vector<llm::ChatMessage> &messages,
                std::vector<int64_t> &ids, std::string &error) {
  std::unique_ptr<llm::ChatTemplate> parsed =
      llm::ChatTemplate::parse(chat.chatTemplate, error);
  std::string rendered;
  if (!parsed ||
      !parsed->renderJson(chat.context(messages, true), rendered, error)) {
    error = "the chat template: " + error;
    return false;
  }
  for (int32_t id : tokenizer.encode(rendered, /*addSpecial=*/false))
    ids.push_back(id);
  return true;
}

std::string runtimeCause() {
  std::string text = firstError[0] ? std::string(": ") + firstError : "";
  firstError[0] = 0;
  return text;
}

bool parseIds(const char *text, std::vector<int64_t> &ids) {
  const char *at = text;
  while (*at) {
    if (*at == ' ' || *at == ',' || *at == '\t' || *at == '\n' || *at == '\r') {
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

} // namespace etch::tools
