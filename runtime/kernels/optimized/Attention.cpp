// scaled_dot_product_attention: each query row's scores in a stack buffer,
// masked positions skipped before their key is read and none visited past
// the last unmasked one (a decode step over a static KV cache reads only
// the filled positions), softmax in float, then the weighted sum of value
// rows; rows split across the thread pool. Cache rows are prefetched ahead.
// Shapes were checked by the portable validate function; longer key
// sequences than the buffer holds go to the portable kernel.
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/optimized/VectorDot.h"
#include "runtime/kernels/optimized/VectorMath.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace etch::runtime::optimized {
namespace {

constexpr int64_t kMaxKeys = 16384; // 64 KiB of scores per thread

// A decode step's cache rows come from memory (the weights streamed since
// the last step evicted them): keys a few rows ahead, and each value row
// while its key is scored, so the weighted sum finds it in cache.
constexpr int64_t kPrefetchAhead = 8;

inline void prefetchRow(const float *row, int64_t length) {
  for (int64_t e = 0; e < length; e += 16)
    __builtin_prefetch(row + e);
}

struct Attention {
  portable::AttentionShape s;
  const TensorView *q, *k, *v, *mask;
  TensorView *out;
  float scale;
  bool causal;
  int64_t maskStride[kMaxRank];

  /// Output row \p i of batch index \p b.
  void row(int64_t b, int64_t i, float *scores) const {
    int rank = s.rank;
    const float *query = q->data<float>() + (b * s.queries + i) * s.embed;
    float *result = out->data<float>() + (b * s.queries + i) * s.valueEmbed;
    const float *keys =
        k->data<float>() + portable::kvBase(*q, *k, b, s.groups);
    const float *values =
        v->data<float>() + portable::kvBase(*q, *v, b, s.groups);
    int64_t keyStride = k->stride(rank - 2), valueStride = v->stride(rank - 2);
    const uint8_t *boolMask = nullptr;
    const float *floatMask = nullptr;
    if (mask) {
      int64_t at = i * maskStride[rank - 2];
      for (int64_t d = rank - 3, rest = b; d >= 0; --d) {
        at += (rest % q->size(d)) * maskStride[d];
        rest /= q->size(d);
      }
      if (mask->scalarType() == ScalarType::Bool)
        boolMask = mask->data<uint8_t>() + at;
      else
        floatMask = mask->data<float>() + at;
    }
    int64_t step = maskStride[rank - 1];
    constexpr float kMasked = -std::numeric_limits<float>::infinity();
    // A false entry of a boolean mask drops its key (an additive mask's
    // -inf does not: NaN in the key's scores still reaches the result, as
    // in torch).
    auto masked = [&](int64_t j) { return boolMask && !boolMask[j * step]; };
    // Keys past the last one a boolean mask keeps (a static cache's
    // unfilled positions) are never visited.
    int64_t limit = causal ? std::min(s.keys, i + 1) : s.keys;
    while (limit > 0 && masked(limit - 1))
      --limit;
    float maximum = kMasked;
    for (int64_t j = 0; j < limit; ++j) {
      if (j + kPrefetchAhead < limit)
        prefetchRow(keys + (j + kPrefetchAhead) * keyStride, s.embed);
      prefetchRow(values + j * valueStride, s.valueEmbed);
      if (masked(j)) {
        scores[j] = kMasked;
        continue;
      }
      float score = dot(query, keys + j * keyStride, s.embed) * scale;
      if (floatMask)
        score += floatMask[j * step];
      scores[j] = score;
      maximum = score > maximum ? score : maximum;
    }
    std::memset(result, 0, s.valueEmbed * sizeof(float));
    if (maximum == kMasked)
      return; // every position masked: zeros, as the portable kernel
    float total = 0;
    for (int64_t j = 0; j < limit; ++j) {
      if (scores[j] == kMasked)
        continue;
      float weight = expVectorizable(scores[j] - maximum);
      total += weight;
      axpy(weight, values + j * valueStride, result, s.valueEmbed);
    }
    float inverse = 1.0f / total;
    for (int64_t e = 0; e < s.valueEmbed; ++e)
      result[e] *= inverse;
  }
};

} // namespace

void runScaledDotProductAttention(const KernelCall &call) {
  Attention a;
  a.s = portable::attentionShape(call);
  if (a.s.keys > kMaxKeys) {
    portable::runScaledDotProductAttention(call);
    return;
  }
  a.q = call.inputs[0];
  a.k = call.inputs[1];
  a.v = call.inputs[2];
  a.mask = call.input(3);
  a.out = call.outputs[0];
  const AttributeValue *scale = call.find("scale");
  a.scale = scale && scale->kind == AttributeValue::Kind::Double
                ? static_cast<float>(scale->doubleValue)
                : 1.0f / std::sqrt(static_cast<float>(a.s.embed));
  a.causal = call.boolAttr("is_causal", false);
  // Mask strides over the scores' dims [..., L, S] (0 where broadcast).
  std::memset(a.maskStride, 0, sizeof(a.maskStride));
  if (a.mask)
    for (int d = 0; d < a.mask->rank(); ++d) {
      int scoreDim = a.s.rank - a.mask->rank() + d;
      a.maskStride[scoreDim] = a.mask->size(d) == 1 ? 0 : a.mask->stride(d);
    }
  int64_t rows = a.s.batch * a.s.queries;
  auto slice = [&](int64_t first, int64_t last) {
    float scores[kMaxKeys];
    for (int64_t r = first; r < last; ++r)
      a.row(r / a.s.queries, r % a.s.queries, scores);
  };
  int64_t work = rows * a.s.keys * (a.s.embed + a.s.valueEmbed);
  ThreadPool::shared().parallelFor(rows, work < (1 << 15) ? rows : 1, slice);
}

} // namespace etch::runtime::optimized
