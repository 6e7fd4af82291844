#include "Generate.h"

#include "runtime/platform/Platform.h"

#include <algorithm>

namespace etch::tools {

using runtime::Error;
using runtime::nowNanoseconds;

Generation generate(LlmRunner &runner, const std::vector<int64_t> &prompt,
                    int64_t budget, const std::vector<int64_t> &endTokens,
                    TokenSampler &sampler, const GenerationHooks &hooks) {
  Generation result;
  std::vector<int64_t> seen = prompt; // for the repetition penalty
  int64_t length = prompt.size();
  uint64_t start = nowNanoseconds();
  result.status = runner.feed(prompt.data(), length, 0);
  result.prefillNanos = nowNanoseconds() - start;
  while (result.status == Error::Ok &&
         static_cast<int64_t>(result.tokens.size()) < budget) {
    int64_t token = sampler.next(runner.logits(), runner.vocab(), seen);
    if (hooks.chosen)
      hooks.chosen(token);
    result.tokens.push_back(token);
    seen.push_back(token);
    if (std::find(endTokens.begin(), endTokens.end(), token) !=
        endTokens.end()) {
      result.reason = FinishReason::EndToken;
      break;
    }
    if (hooks.accepted && hooks.accepted(token)) {
      result.reason = FinishReason::Stopped;
      break;
    }
    if (static_cast<int64_t>(result.tokens.size()) == budget)
      break;
    uint64_t stepStart = nowNanoseconds();
    result.status = runner.feed(&token, 1, length + result.tokens.size() - 1);
    result.decodeNanos += nowNanoseconds() - stepStart;
    ++result.decodeSteps;
    if (hooks.stepped)
      hooks.stepped(result.tokens.size(), result.decodeSteps,
                    result.decodeNanos);
  }
  return result;
}

} // namespace etch::tools
