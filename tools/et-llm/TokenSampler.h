// Picks the next token from a row of logits: greedy (argmax), or sampled
// from softmax(logits / temperature) after the top-k, top-p and min-p cuts;
// a repetition penalty first, as transformers' generate() applies them.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace etch::tools {

struct SamplingOptions {
  float temperature = 0; // 0: greedy
  int64_t topK = 0;      // 0: every token
  float topP = 1;        // keep the likeliest tokens holding this much mass
  float minP = 0;        // drop tokens below minP x the likeliest's chance
  float repetitionPenalty = 1; // > 1 makes tokens already seen less likely
  uint64_t seed = 0;
};

class TokenSampler {
public:
  explicit TokenSampler(const SamplingOptions &options)
      : options_(options), generator_(options.seed) {}

  /// The next token for \p logits[0, vocab) after the tokens \p seen (the
  /// prompt and what was generated). Ties go to the lowest id, as
  /// torch.argmax does.
  int64_t next(const float *logits, int64_t vocab,
               const std::vector<int64_t> &seen);

private:
  /// Zeroes the weights outside the top-p mass and under the min-p floor.
  void cutTail(int64_t vocab);

  SamplingOptions options_;
  std::mt19937_64 generator_;
  std::vector<float> penalized_, weights_;
  std::vector<int64_t> order_;
};

/// The index of the largest value (the first of equal ones); NaN never wins.
int64_t argmax(const float *values, int64_t count);

} // namespace etch::tools
