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

void TokenSampler::cutTail(int64_t vocab) {
  float *weights = weights_.data();
  if (options_.minP > 0) {
    float floor = options_.minP * *std::max_element(weights, weights + vocab);
    for (int64_t i = 0; i < vocab; ++i)
      if (weights[i] < floor)
        weights[i] = 0;
  }
  if (options_.topP >= 1)
    return;
  order_.clear();
  double total = 0;
  for (int64_t i = 0; i < vocab; ++i)
    if (weights[i] > 0) {
      order_.push_back(i);
      total += weights[i];
    }
  std::sort(order_.begin(), order_.end(), [&](int64_t a, int64_t b) {
    return weights[a] != weights[b] ? weights[a] > weights[b] : a < b;
  });
  // Keep tokens while the mass before them is under top-p (at least one).
  double kept = 0;
  for (size_t rank = 0; rank < order_.size(); ++rank) {
    if (rank > 0 && kept >= options_.topP * total)
      weights[order_[rank]] = 0;
    kept += weights[order_[rank]];
  }
}

int64_t TokenSampler::next(const float *logits, int64_t vocab,
                           const std::vector<int64_t> &seen) {
  if (options_.repetitionPenalty != 1) {
    penalized_.assign(logits, logits + vocab);
    for (int64_t token : seen)
      if (token >= 0 && token < vocab && penalized_[token] == logits[token]) {
        float &value = penalized_[token]; // once per token, however often seen
        value = value > 0 ? value / options_.repetitionPenalty
                          : value * options_.repetitionPenalty;
      }
    logits = penalized_.data();
  }
  if (options_.temperature <= 0 || options_.topK == 1 || vocab <= 1)
    return argmax(logits, vocab);
  weights_.resize(vocab);
  // The k-th largest logit is the cut: tokens below it get no mass.
  float cut = -INFINITY;
  if (options_.topK > 0 && options_.topK < vocab) {
    std::copy(logits, logits + vocab, weights_.begin());
    std::nth_element(weights_.begin(), weights_.begin() + (options_.topK - 1),
                     weights_.end(), std::greater<float>());
    cut = weights_[options_.topK - 1];
  }
  float maximum = logits[argmax(logits, vocab)];
  for (int64_t i = 0; i < vocab; ++i)
    weights_[i] = logits[i] >= cut && !std::isnan(logits[i])
                      ? std::exp((logits[i] - maximum) / options_.temperature)
                      : 0.0f;
  cutTail(vocab);
  double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  if (!(total > 0))
    return argmax(logits, vocab);
  double draw = std::uniform_real_distribution<double>(0, total)(generator_);
  for (int64_t i = 0; i < vocab; ++i) {
    draw -= weights_[i];
    if (draw < 0 && weights_[i] > 0)
      return i;
  }
  // Rounding left a little mass over: the last token with any.
  for (int64_t i = vocab; i-- > 0;)
    if (weights_[i] > 0)
      return i;
  return argmax(logits, vocab);
}

} // namespace etch::tools
