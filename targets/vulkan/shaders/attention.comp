#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// Scaled dot-product attention, one query row per invocation (grid-stride):
// out[b, h, l] = softmax_s(q . k_s * scale + mask) v_s, the softmax folded
// into one pass over the keys with a running maximum (rescaling the
// partial sum and the output row whenever it grows). Query [B, H, L, E],
// key [B, KVH, S, E], value [B, KVH, S, Ev], out [B, H, L, Ev], each query
// head reading key/value head h / (H / KVH). The mask is absent, float
// (added) or bool (bytes; false drops the position), read through strides
// over [B, H, L, S]; causal drops s > l. A row with no position left is 0.
// The output row accumulates in registers, CHUNK columns per pass over the
// keys (scores are recomputed per chunk), so float16 storage never holds a
// partial sum.
const uint CHUNK = 32u;
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Query { ELEMENT query[]; };
layout(std430, binding = 1) readonly buffer Key { ELEMENT key[]; };
layout(std430, binding = 2) readonly buffer Value { ELEMENT value[]; };
layout(std430, binding = 3) readonly buffer Mask { uint maskWords[]; };
layout(std430, binding = 4) writeonly buffer Out { ELEMENT result[]; };
layout(push_constant) uniform Params {
  uint B, H, KVH, L, S, E, Ev;
  uint maskKind; // 0 none, 1 float, 2 bool
  uint maskB, maskH, maskL, maskS;
  uint causal;
  float scale;
} p;

// Mask element `at`: bool bytes, or float tensors in the arena's storage.
bool maskKeeps(uint at) {
  return ((maskWords[at >> 2] >> ((at & 3u) * 8u)) & 0xffu) != 0u;
}

float maskAdded(uint at) {
#ifdef ETCH_F16
  vec2 pair = unpackHalf2x16(maskWords[at >> 1]);
  return (at & 1u) != 0u ? pair.y : pair.x;
#else
  return uintBitsToFloat(maskWords[at]);
#endif
}

void main() {
  uint rows = p.B * p.H * p.L;
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint r = gl_GlobalInvocationID.x; r < rows; r += step) {
    uint l = r % p.L, h = (r / p.L) % p.H, b = r / (p.L * p.H);
    uint kvRow = b * p.KVH + h / (p.H / p.KVH);
    uint qBase = r * p.E, outBase = r * p.Ev;
    uint kBase = kvRow * p.S * p.E, vBase = kvRow * p.S * p.Ev;
    uint maskBase = b * p.maskB + h * p.maskH + l * p.maskL;
    for (uint e0 = 0u; e0 < p.Ev; e0 += CHUNK) {
      uint width = min(CHUNK, p.Ev - e0);
      float acc[CHUNK];
      for (uint e = 0u; e < CHUNK; ++e)
        acc[e] = 0.0;
      float top = -1.0 / 0.0, total = 0.0;
      for (uint s = 0u; s < p.S; ++s) {
        if (p.causal != 0u && s > l)
          break;
        uint at = maskBase + s * p.maskS;
        if (p.maskKind == 2u && !maskKeeps(at))
          continue;
        float score = 0.0;
        for (uint e = 0u; e < p.E; ++e)
          score += float(query[qBase + e]) * float(key[kBase + s * p.E + e]);
        score = score * p.scale + (p.maskKind == 1u ? maskAdded(at) : 0.0);
        if (isinf(score) && score < 0.0)
          continue; // no weight; also keeps exp(top - top) finite below
        float grown = max(top, score);
        float rescale = exp(top - grown), weight = exp(score - grown);
        uint vRow = vBase + s * p.Ev + e0;
        for (uint e = 0u; e < width; ++e)
          acc[e] = acc[e] * rescale + weight * float(value[vRow + e]);
        total = total * rescale + weight;
        top = grown;
      }
      for (uint e = 0u; e < width; ++e)
        result[outBase + e0 + e] = ELEMENT(total > 0.0 ? acc[e] / total : 0.0);
    }
  }
}
