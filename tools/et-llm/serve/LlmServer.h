// et-llm serve: one program behind an OpenAI-compatible HTTP API
// (GET /v1/models, POST /v1/completions and /v1/chat/completions, streamed
// as server-sent events), on 127.0.0.1 unless told otherwise.
#pragma once

namespace etch::tools {

/// Runs `et-llm serve PROGRAM [options]`; \p argv[0] is "serve". Returns
/// the exit status (0 after a clean shutdown on SIGINT or SIGTERM).
int runServeCommand(int argc, char **argv);

} // namespace etch::tools
