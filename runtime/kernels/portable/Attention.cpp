// scaled_dot_product_attention, as ATen's math path: softmax(q k^T * scale
// + mask) v, with causal masking and grouped-query heads. Each output row
// is computed with an online softmax (running maximum and sum), so the
// kernel needs no scratch memory for the scores.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>
#include <limits>

namespace etch::runtime::portable {

AttentionShape attentionShape(const KernelCall &call) {
  const TensorView &q = *call.inputs[0], &k = *call.inputs[1],
                   &v = *call.inputs[2];
  AttentionShape s;
  s.rank = q.rank();
  s.batch = 1;
  for (int d = 0; d < s.rank - 2; ++d)
    s.batch *= q.size(d);
  s.queries = q.size(s.rank - 2);
  s.keys = k.size(s.rank - 2);
  s.embed = q.size(s.rank - 1);
  s.valueEmbed = v.size(s.rank - 1);
  s.groups = s.rank >= 3 && k.size(s.rank - 3) ? q.size(s.rank - 3) /
                                                     k.size(s.rank - 3)
                                               : 1;
  return s;
}

int64_t kvBase(const TensorView &q, const TensorView &kv, int64_t b,
               int64_t groups) {
  int rank = q.rank();
  int64_t offset = 0;
  for (int d = rank - 3; d >= 0; --d) {
    int64_t coordinate = b % q.size(d);
    b /= q.size(d);
    if (d == rank - 3)
      coordinate /= groups;
    offset += coordinate * kv.stride(d);
  }
  return offset;
}

Error validateScaledDotProductAttention(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 3, 4, 1));
  const TensorView &q = *call.inputs[0], &k = *call.inputs[1],
                   &v = *call.inputs[2];
  for (const TensorView *t :
       {&q, &k, &v, static_cast<const TensorView *>(call.outputs[0])})
    ET_CHECK_OK(checkType(call, t, "operand", ScalarType::Float32));
  int rank = q.rank();
  if (rank < 2 || k.rank() != rank || v.rank() != rank)
    return kernelError(call, Error::InvalidShape,
                       "query, key and value need one rank >= 2");
  if (call.doubleAttr("dropout_p", 0) != 0)
    return kernelError(call, Error::NotSupported, "dropout_p must be 0");
  AttentionShape s = attentionShape(call);
  if (k.size(rank - 1) != s.embed || v.size(rank - 2) != s.keys)
    return kernelError(call, Error::InvalidShape,
                       "embedding sizes or sequence lengths differ");
  bool gqa = call.boolAttr("enable_gqa", false);
  for (int d = 0; d < rank - 2; ++d)
    for (const TensorView *t : {&k, &v}) {
      bool grouped = gqa && d == rank - 3 && t->size(d) > 0 &&
                     q.size(d) % t->size(d) == 0 &&
                     q.size(d) / t->size(d) == s.groups;
      if (t->size(d) != q.size(d) && !grouped)
        return kernelError(call, Error::InvalidShape,
                           "batch/head dim %d of key/value differs from "
                           "query's",
                           d);
    }
  if (const TensorView *mask = call.input(3)) {
    if (mask->scalarType() != ScalarType::Bool &&
        mask->scalarType() != ScalarType::Float32)
      return kernelError(call, Error::InvalidType,
                         "attn_mask must be bool or float32");
    if (mask->rank() > rank)
      return kernelError(call, Error::InvalidShape,
                         "attn_mask has a higher rank than the scores");
    for (int d = 0; d < mask->rank(); ++d) {
      int scoreDim = rank - mask->rank() + d;
      int64_t extent = scoreDim == rank - 1   ? s.keys
                       : scoreDim == rank - 2 ? s.queries
                                              : q.size(scoreDim);
      if (mask->size(d) != 1 && mask->size(d) != extent)
        return kernelError(call, Error::InvalidShape,
                           "attn_mask does not broadcast to the scores");
    }
  }
  int64_t expected[kMaxRank];
  for (int d = 0; d < rank - 1; ++d)
    expected[d] = q.size(d);
  expected[rank - 1] = s.valueEmbed;
  return checkShape(call, call.outputs[0], "output", expected, rank);
}

void runScaledDotProductAttention(const KernelCall &call) {
  const TensorView &q = *call.inputs[0], &k = *call.inputs[1],
                   &v = *call.inputs[2];
  const TensorView *mask = call.input(3);
  TensorView &out = *call.outputs[0];
  AttentionShape s = attentionShape(call);
  int rank = s.rank;
  const AttributeValue *scaleAttr = call.find("scale");
  double scale = scaleAttr && scaleAttr->kind == AttributeValue::Kind::Double
                     ? scaleAttr->doubleValue
                     : 1.0 / std::sqrt(static_cast<double>(s.embed));
  bool causal = call.boolAttr("is_causal", false);
  // Mask strides over the scores' dims [..., L, S] (0 where broadcast).
  int64_t maskStride[kMaxRank] = {};
  if (mask)
    for (int d = 0; d < mask->rank(); ++d) {
      int scoreDim = rank - mask->rank() + d;
      maskStride[scoreDim] = mask->size(d) == 1 ? 0 : mask->stride(d);
    }
  const float *qd = q.data<float>(), *kd = k.data<float>(),
              *vd = v.data<float>();
  float *od = out.data<float>();
  for (int64_t b = 0; b < s.batch; ++b) {
    int64_t kBase = kvBase(q, k, b, s.groups);
    int64_t vBase = kvBase(q, v, b, s.groups);
    int64_t maskBase = 0;
    for (int64_t d = rank - 3, rest = b; d >= 0; --d) {
      maskBase += (rest % q.size(d)) * maskStride[d];
      rest /= q.size(d);
    }
    for (int64_t i = 0; i < s.queries; ++i) {
      const float *query = qd + (b * s.queries + i) * s.embed;
      float *row = od + (b * s.queries + i) * s.valueEmbed;
      for (int64_t e = 0; e < s.valueEmbed; ++e)
        row[e] = 0;
      double maximum = -std::numeric_limits<double>::infinity(), total = 0;
      for (int64_t j = 0; j < s.keys; ++j) {
        if (causal && j > i)
          break;
        double score = 0;
        const float *key = kd + kBase + j * k.stride(rank - 2);
        for (int64_t e = 0; e < s.embed; ++e)
          score += static_cast<double>(query[e]) * key[e];
        score *= scale;
        if (mask) {
          int64_t at = maskBase + i * maskStride[rank - 2] +
                       j * maskStride[rank - 1];
          if (mask->scalarType() == ScalarType::Bool) {
            if (!mask->data<uint8_t>()[at])
              continue;
          } else {
            score += mask->data<float>()[at];
          }
        }
        if (score == -std::numeric_limits<double>::infinity())
          continue; // masked out by a float mask
        // Online softmax: rescale what was accumulated for a new maximum.
        double newMaximum = std::max(maximum, score);
        double rescale = std::exp(maximum - newMaximum);
        double weight = std::exp(score - newMaximum);
        const float *value = vd + vBase + j * v.stride(rank - 2);
        for (int64_t e = 0; e < s.valueEmbed; ++e)
          row[e] = static_cast<float>(row[e] * rescale + weight * value[e]);
        total = total * rescale + weight;
        maximum = newMaximum;
      }
      // A row with every position masked stays zero (ATen's safe softmax).
      if (total > 0)
        for (int64_t e = 0; e < s.valueEmbed; ++e)
          row[e] = static_cast<float>(row[e] / total);
    }
  }
}

} // namespace etch::runtime::portable
