// et-llm tokenize / detokenize / chat-template: text to ids and back with
// a tokenizer file, and a chat template rendered as transformers does.
#pragma once

#include <string>

namespace etch::tools {

/// \p argument, or the contents of the file named after '@'; false when
/// that file cannot be read.
bool readTextArgument(const std::string &argument, std::string &text);

/// Runs `et-llm tokenize ...` or `et-llm detokenize ...`; \p argv[0] is the
/// subcommand. Returns the exit status.
int runTokenizerCommand(int argc, char **argv);

/// Runs `et-llm chat-template (--template FILE | PROGRAM) --context FILE`.
int runChatTemplateCommand(int argc, char **argv);

} // namespace etch::tools
