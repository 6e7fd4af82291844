// et-llm tokenize / detokenize: text to ids and back with a tokenizer file.
#pragma once

namespace etch::tools {

/// Runs `et-llm tokenize ...` or `et-llm detokenize ...`; \p argv[0] is the
/// subcommand. Returns the exit status.
int runTokenizerCommand(int argc, char **argv);

} // namespace etch::tools
