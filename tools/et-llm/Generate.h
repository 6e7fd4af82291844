// The decoding loop shared by et-llm and its server: prefill the prompt,
// then pick, check and feed one token at a time until a limit, an end
// token or the caller says stop.
#pragma once

#include "LlmRunner.h"
#include "TokenSampler.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace etch::tools {

enum class FinishReason { Length, EndToken, Stopped };

struct GenerationHooks {
  /// Sees each sampled token (runner.logits() is still its row) and may
  /// replace it (teacher forcing).
  std::function<void(int64_t &token)> chosen;
  /// Gets each kept token that is not an end token; true stops (a stop
  /// string, a client gone, a shutdown).
  std::function<bool(int64_t token)> accepted;
  /// After each decode step (a progress line).
  std::function<void(size_t generated, int64_t steps, uint64_t nanos)> stepped;
};

struct Generation {
  std::vector<int64_t> tokens; // generated, an end token included
  FinishReason reason = FinishReason::Length;
  runtime::Error status = runtime::Error::Ok;
  uint64_t prefillNanos = 0, decodeNanos = 0;
  int64_t decodeSteps = 0;
};

/// Generates up to \p budget tokens after \p prompt (positions from 0; the
/// caller resets the runner between sequences). Stops after any of \p
/// endTokens.
Generation generate(LlmRunner &runner, const std::vector<int64_t> &prompt,
                    int64_t budget, const std::vector<int64_t> &endTokens,
                    TokenSampler &sampler, const GenerationHooks &hooks = {});

} // namespace etch::tools
