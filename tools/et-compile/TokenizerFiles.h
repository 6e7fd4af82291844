// et-compile --tokenizer / --chat-template: the files an LLM program
// carries so that et-llm can take text (docs/llm.md).
#pragma once

#include "etch/Serialize/ProgramWriter.h"

#include <string>
#include <vector>

namespace etch::tools {

/// Reads the tokenizer at \p tokenizerPath (checked by loading it) and the
/// chat template: \p templatePath (a tokenizer_config.json, whose
/// "chat_template" and special tokens are taken, or a Jinja file), or when
/// that is empty the chat_template.jinja or tokenizer_config.json beside the
/// tokenizer, if any (checked by parsing it). Appends them as "tokenizer"
/// and "chat_config" (readChatConfig's JSON); false with \p error set on a
/// file that cannot be used.
bool readTokenizerFiles(const std::string &tokenizerPath,
                        const std::string &templatePath,
                        std::vector<NamedData> &files, std::string &error);

} // namespace etch::tools
