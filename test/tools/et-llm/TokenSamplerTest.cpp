// The sampler's cuts and penalty, against distributions worked out by hand:
// which tokens can be drawn, and how often, over many seeded draws.
#include "TokenSampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace etch::tools {
namespace {

/// How often each token is drawn in \p draws draws.
std::map<int64_t, int> histogram(SamplingOptions options,
                                 const std::vector<float> &logits, int draws,
                                 const std::vector<int64_t> &seen = {}) {
  TokenSampler sampler(options);
  std::map<int64_t, int> counts;
  for (int i = 0; i < draws; ++i)
    ++counts[sampler.next(logits.data(), logits.size(), seen)];
  return counts;
}

// Probabilities 0.5, 0.25, 0.125, 0.0625, 0.0625 at temperature 1.
const std::vector<float> kLogits = {std::log(8.f), std::log(4.f), std::log(2.f),
                                    0, 0};

TEST(TokenSampler, GreedyIsArgmaxWithTiesToTheLowestId) {
  std::vector<float> logits = {1, 3, 3, 2};
  TokenSampler sampler(SamplingOptions{});
  EXPECT_EQ(sampler.next(logits.data(), 4, {}), 1);
}

TEST(TokenSampler, TemperatureOneFollowsTheSoftmax) {
  SamplingOptions options;
  options.temperature = 1;
  options.seed = 3;
  std::map<int64_t, int> counts = histogram(options, kLogits, 20000);
  EXPECT_NEAR(counts[0] / 20000.0, 0.5, 0.02);
  EXPECT_NEAR(counts[1] / 20000.0, 0.25, 0.02);
  EXPECT_NEAR(counts[4] / 20000.0, 0.0625, 0.01);
}

// Top-p 0.7: 0.5 alone is under it, 0.5 + 0.25 reaches it: tokens 0 and 1,
// renormalised to 2/3 and 1/3.
TEST(TokenSampler, TopPKeepsTheSmallestSetHoldingTheMass) {
  SamplingOptions options;
  options.temperature = 1;
  options.topP = 0.7f;
  std::map<int64_t, int> counts = histogram(options, kLogits, 6000);
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_NEAR(counts[0] / 6000.0, 2.0 / 3, 0.03);
}

// Min-p 0.2: tokens under 0.2 x 0.5 = 0.1 go: 0.0625 twice.
TEST(TokenSampler, MinPDropsTokensUnderTheFloor) {
  SamplingOptions options;
  options.temperature = 1;
  options.minP = 0.2f;
  std::map<int64_t, int> counts = histogram(options, kLogits, 4000);
  EXPECT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts.count(3), 0u);
  EXPECT_EQ(counts.count(4), 0u);
}

// transformers' rule: a seen token's positive logit is divided by the
// penalty, a negative one multiplied, once however often it was seen.
TEST(TokenSampler, RepetitionPenaltyAppliesOncePerSeenToken) {
  std::vector<float> logits = {2.0f, 1.5f, -1.0f, -1.2f};
  SamplingOptions options;
  options.repetitionPenalty = 2;
  TokenSampler sampler(options);
  // 2.0 / 2 = 1.0 < 1.5: token 1 wins now.
  EXPECT_EQ(sampler.next(logits.data(), 4, {0, 0, 0}), 1);
  // -1.0 * 2 = -2.0 < -1.2: among 2 and 3 alone, 3 wins.
  std::vector<float> negative = {-1.0f, -1.2f};
  EXPECT_EQ(sampler.next(negative.data(), 2, {0}), 1);
}

} // namespace
} // namespace etch::tools
