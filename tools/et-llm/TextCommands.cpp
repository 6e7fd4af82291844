#include "TextCommands.h"

#include "runtime/llm/chat/ChatConfig.h"
#include "runtime/module/Module.h"

#include "runtime/llm/tokenizer/Tokenizer.h"
#include "runtime/llm/tokenizer/Utf8.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace etch::tools {

namespace {

constexpr const char *kTokenizeUsage =
    "usage: et-llm tokenize --tokenizer FILE [--add-special] [--] "
    "TEXT|@FILE...\n"
    "       et-llm detokenize --tokenizer FILE [--json] [--] ID...|@FILE...\n"
    "tokenize prints one line of ids per TEXT. detokenize prints the text of\n"
    "all the ids; with --json, each operand is one sequence and its text is\n"
    "printed as a JSON string on a line of its own.\n";

int fail(const std::string &message, int status = 1) {
  std::fprintf(stderr, "et-llm: %s\n", message.c_str());
  if (status == 2)
    std::fprintf(stderr, "%s", kTokenizeUsage);
  return status;
}

/// Whitespace- or comma-separated ids; false on anything else.
bool parseIds(const std::string &text, std::vector<int32_t> &ids) {
  const char *at = text.c_str();
  while (*at) {
    if (std::strchr(" ,\t\r\n", *at)) {
      ++at;
      continue;
    }
    char *end = nullptr;
    long long value = std::strtoll(at, &end, 10);
    if (end == at || value < 0 || value > INT32_MAX)
      return false;
    ids.push_back(static_cast<int32_t>(value));
    at = end;
  }
  return true;
}

} // namespace

/// The argument, or the contents of the file named after '@'.
bool readTextArgument(const std::string &argument, std::string &text) {
  if (argument.empty() || argument[0] != '@') {
    text = argument;
    return true;
  }
  std::ifstream file(argument.substr(1), std::ios::binary);
  if (!file)
    return false;
  std::ostringstream contents;
  contents << file.rdbuf();
  text = contents.str();
  return !file.bad();
}

int runTokenizerCommand(int argc, char **argv) {
  bool tokenize = std::strcmp(argv[0], "tokenize") == 0;
  std::string tokenizerPath;
  bool addSpecial = false, json = false, optionsDone = false;
  std::vector<std::string> operands;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (optionsDone || arg.empty() || arg[0] != '-' ||
        (!tokenize && arg.size() > 1 && std::isdigit(arg[1]))) {
      operands.push_back(arg);
    } else if (arg == "--") {
      optionsDone = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf("%s", kTokenizeUsage);
      return 0;
    } else if (arg == "--tokenizer" && i + 1 < argc) {
      tokenizerPath = argv[++i];
    } else if (arg == "--add-special" && tokenize) {
      addSpecial = true;
    } else if (arg == "--json" && !tokenize) {
      json = true;
    } else {
      return fail("unknown argument '" + arg + "' for " + argv[0], 2);
    }
  }
  if (tokenizerPath.empty())
    return fail(std::string(argv[0]) + " needs --tokenizer FILE", 2);
  if (tokenize && operands.empty())
    return fail("tokenize takes a TEXT (quote it) or @FILE", 2);
  if (!tokenize && operands.empty())
    return fail("detokenize takes token ids or @FILE", 2);

  etch::llm::TokenizerLoad load = etch::llm::loadTokenizer(tokenizerPath);
  if (!load.tokenizer)
    return fail(load.error);
  const etch::llm::Tokenizer &tokenizer = *load.tokenizer;

  if (tokenize) {
    // One line of ids per TEXT.
    for (const std::string &operand : operands) {
      std::string text;
      if (!readTextArgument(operand, text))
        return fail("cannot read " + operand.substr(1));
      std::string line;
      for (int32_t id : tokenizer.encode(text, addSpecial))
        line += (line.empty() ? "" : " ") + std::to_string(id);
      std::printf("%s\n", line.c_str());
    }
    return 0;
  }
  std::vector<std::vector<int32_t>> sequences(json ? operands.size() : 1);
  for (size_t i = 0; i < operands.size(); ++i) {
    std::string text;
    if (!readTextArgument(operands[i], text))
      return fail("cannot read " + operands[i].substr(1));
    if (!parseIds(text, sequences[json ? i : 0]))
      return fail("'" + operands[i] + "' is not a list of token ids", 2);
  }
  for (const std::vector<int32_t> &ids : sequences)
    for (int32_t id : ids)
      if (!tokenizer.token(id))
        return fail("token id " + std::to_string(id) + " is not in " +
                    tokenizerPath + "'s vocabulary (" +
                    std::to_string(tokenizer.vocabSize()) + " ids)");
  for (const std::vector<int32_t> &ids : sequences) {
    std::string text = tokenizer.decode(ids);
    if (json)
      text = etch::llm::jsonQuoted(text);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
  }
  return 0;
}

namespace {

constexpr const char *kChatTemplateUsage =
    "usage: et-llm chat-template (--template FILE | PROGRAM) --context "
    "FILE.json\n"
    "Renders the chat template of FILE (a tokenizer_config.json or a Jinja\n"
    "file) or of PROGRAM (et-compile --chat-template) with the variables in\n"
    "FILE.json ({\"messages\": [...], \"add_generation_prompt\": true, ...})\n"
    "and prints the text as it is.\n";

/// The chat config a program carries; false after a message.
bool programChatConfig(const std::string &path, std::string &bytes) {
  using namespace etch::runtime;
  Result<std::unique_ptr<Module>> module = Module::open(path.c_str());
  if (!module.ok()) {
    std::fprintf(stderr, "et-llm: %s: cannot load program (%s)\n", path.c_str(),
                 errorName(module.error()));
    return false;
  }
  Span<const uint8_t> carried = (*module)->program().namedData("chat_config");
  if (!carried.data()) {
    std::fprintf(stderr,
                 "et-llm: %s carries no chat template (et-compile "
                 "--tokenizer FILE --chat-template FILE)\n",
                 path.c_str());
    return false;
  }
  bytes.assign(reinterpret_cast<const char *>(carried.data()), carried.size());
  return true;
}

} // namespace

int runChatTemplateCommand(int argc, char **argv) {
  std::string templatePath, program, contextPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kChatTemplateUsage);
      return 0;
    }
    if ((arg == "--template" || arg == "--context") && i + 1 < argc)
      (arg == "--template" ? templatePath : contextPath) = argv[++i];
    else if (!arg.empty() && arg[0] != '-' && program.empty())
      program = arg;
    else
      return fail("unknown argument '" + arg + "' for chat-template", 2);
  }
  if (templatePath.empty() == program.empty() || contextPath.empty()) {
    std::fprintf(stderr,
                 "et-llm: chat-template needs --template FILE or a "
                 "program, and --context FILE\n%s",
                 kChatTemplateUsage);
    return 2;
  }
  std::string bytes, context, error;
  if (program.empty() ? !readTextArgument("@" + templatePath, bytes)
                      : !programChatConfig(program, bytes))
    return program.empty() ? fail("cannot read " + templatePath) : 1;
  if (!readTextArgument("@" + contextPath, context))
    return fail("cannot read " + contextPath);
  etch::llm::ChatConfig config;
  const std::string &source = program.empty() ? templatePath : program;
  if (!etch::llm::readChatConfig(bytes, source, config, error))
    return fail(error);
  std::unique_ptr<etch::llm::ChatTemplate> chat =
      etch::llm::ChatTemplate::parse(config.chatTemplate, error);
  if (!chat)
    return fail(source + ": " + error);
  std::string text;
  if (!chat->renderJson(context, text, error))
    return fail(source + ": " + error);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

} // namespace etch::tools
