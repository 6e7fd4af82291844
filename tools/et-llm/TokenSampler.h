// Picks the next token from a row of logits: greedy (argmax), or sampled
// from softmax(logits / temperature) over the top-k tokens.
#pragma once

#include <cstdint>
#include <random>

namespace etch::tools {

struct SamplingOptions {
  float temperature = 0; // 0: greedy
  int64_t topK = 0;      // 0: every token
  uint64_t seed = 0;
};

class TokenSampler {
public:
  explicit TokenSampler(const SamplingOptions &options)
      : options_(options), generator_(options.seed) {}

  /// The next token for \p logits[0, vocab). Ties go to the lowest id, as
  /// torch.argmax does. \p scratch holds vocab floats (no allocation here).
  int64_t next(const float *logits, int64_t vocab, float *scratch);

private:
  SamplingOptions options_;
  std::mt19937_64 generator_;
};

/// The index of the largest value (the first of equal ones); NaN never wins.
int64_t argmax(const float *values, int64_t count);

} // namespace etch::tools
