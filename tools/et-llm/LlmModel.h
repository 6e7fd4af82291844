// A decoder program opened for generation, with what et-llm and its server
// both need: the method bound to an LlmRunner, the tokenizer and chat
// template (given as files or carried by the program), how many positions
// the cache holds, and the end tokens.
#pragma once

#include "LlmRunner.h"

#include "runtime/llm/chat/ChatConfig.h"
#include "runtime/llm/tokenizer/Tokenizer.h"
#include "runtime/module/Module.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etch::tools {

enum class ChatUse { Skip, IfPresent, Required };

struct ModelOptions {
  // "": `prefill` and `decode` when the program has both, else `forward`.
  std::string program, method;
  std::string tokenizer;    // a file instead of the program's
  std::string chatTemplate; // a file instead of the program's
  ChatUse chat = ChatUse::Skip;
  int64_t maxContext = 0;   // 0: the program's metadata
  std::vector<int64_t> eos; // empty: the program's metadata
  bool ignoreEos = false;
  int threads = 0;
};

struct LlmModel {
  std::unique_ptr<runtime::Module> module;
  runtime::SharedState state; // the caches prefill and decode share
  std::unique_ptr<runtime::Method> method, decode;
  LlmRunner runner;
  std::unique_ptr<llm::Tokenizer> tokenizer;
  std::optional<llm::ChatConfig> chat;
  int64_t context = 0; // positions a sequence may use
  std::vector<int64_t> eos;
};

/// What an OptionReader returns for an option that is not its own.
extern const char *const kUnknownOption;
/// Reads one option of a command: \p arg, with \p value the argument after
/// it (null at the end), moving \p i past the values it takes. Null when
/// read, kUnknownOption, or what is wrong with its value.
using OptionReader = std::function<const char *(const std::string &arg,
                                                const char *value, int &i)>;

/// Reads a command's arguments after argv[0]: the first word that is not
/// an option is the program; the options that say how to open the model
/// (--tokenizer, --chat-template, --method, --threads, --max-context,
/// --eos, --ignore-eos) go to \p model, the others to \p own. Null, or the
/// first thing that is wrong.
const char *parseCommandLine(int argc, char **argv, ModelOptions &model,
                             const OptionReader &own);

/// Opens \p options.program; false after printing one line "et-llm: ..."
/// saying what is wrong (a bad tokenizer file is reported before the
/// program is read).
bool openModel(const ModelOptions &options, LlmModel &model);

/// Renders \p messages with \p chat's template and the assistant's prompt,
/// and encodes the text without adding special tokens (the template writes
/// them), as apply_chat_template(tokenize=True) does. False with \p error.
bool encodeChat(const llm::ChatConfig &chat, const llm::Tokenizer &tokenizer,
                const std::vector<llm::ChatMessage> &messages,
                std::vector<int64_t> &ids, std::string &error);

/// ": " and the first error the runtime logged since the last call, or "".
std::string runtimeCause();

bool parseInteger(const char *text, int64_t low, int64_t &value);
bool parseFloat(const char *text, float low, float high, float &value);
/// Whitespace- or comma-separated non-negative integers; false on anything
/// else.
bool parseIds(const char *text, std::vector<int64_t> &ids);

} // namespace etch::tools
