#include "TokenSampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace etch::tools {

int64_t argmax(const float *values, int64_t count) {
  int64_t best = 0;
  for (int64_t i = 1; i < count; ++i)
    if (values[i] > values[best] || std::isnan(values[best]))
      best = i;
  return best;
}

int64_t TokenSampler::next(const float *logits, int64_t vocab,
                           float *scratch) {
  if (options_.temperature <= 0 || options_.topK == 1 || vocab <= 1)
    return argmax(logits, vocab);
  // The k-th largest logit is the cut: tokens below it get no mass.
  float cut = -INFINITY;
  if (options_.topK > 0 && options_.topK < vocab) {
    std::copy(logits, logits + vocab, scratch);
    std::nth_element(scratch, scratch + (options_.topK - 1), scratch + vocab,
                     std::greater<float>());
    cut = scratch[options_.topK - 1];
  }
  float maximum = logits[argmax(logits, vocab)];
  double total = 0;
  for (int64_t i = 0; i < vocab; ++i) {
    float weight = logits[i] >= cut && !std::isnan(logits[i])
                       ? std::exp((logits[i] - maximum) / options_.temperature)
                       : 0.0f;
    scratch[i] = weight;
    total += weight;
  }
  if (!(total > 0))
    return argmax(logits, vocab);
  double draw = std::uniform_real_distribution<double>(0, total)(generator_);
  for (int64_t i = 0; i < vocab; ++i) {
    draw -= scratch[i];
    if (draw < 0 && scratch[i] > 0)
      return i;
  }
  // Rounding left a little mass over: the last token with any.
  for (int64_t i = vocab; i-- > 0;)
    if (scratch[i] > 0)
      return i;
  return argmax(logits, vocab);
}

} // namespace etch::tools
