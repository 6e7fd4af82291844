// et-compile --tokenizer / --chat-template: the files an LLM program
// carries so that et-llm can take text (docs/llm.md).
#pragma once

#include "etch/Serialize/ProgramWriter.h"

#include <string>
#include <vector>

namespace etch::tools {

/// Reads the tokenizer at \p tokenizerPath (checked by loading it) and the
/// chat template: \p templatePath (a tokenizer_config.json, whose
/// "chat_template" is taken, or a Jinja file), or when that is empty the
/// tokenizer_config.json or chat_template.jinja beside the tokenizer, if
/// any. Appends them as "tokenizer" and "chat_template"; false with
/// \p error set on a file that cannot be used.
bool readTokenizerFiles(const std::string &tokenizerPath,
                        const std::string &templatePath,
                        std::vector<NamedData> &files, std::string &error);

} // namespace etch::tools
