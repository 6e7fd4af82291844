#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// Sum / mean / max / min over R of [outer, R, inner], one output per
// invocation.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer In { ELEMENT source[]; };
layout(std430, binding = 1) writeonly buffer Out { ELEMENT result[]; };
layout(push_constant) uniform Params {
  uint outer, R, inner;
  uint mode; // ReduceMode
} p;

void main() {
  uint count = p.outer * p.inner;
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += step) {
    uint base = (i / p.inner) * p.R * p.inner + i % p.inner;
    float acc = p.mode == 2u ? -1.0 / 0.0 : p.mode == 3u ? 1.0 / 0.0 : 0.0;
    for (uint r = 0u; r < p.R; ++r) {
      float v = float(source[base + r * p.inner]);
      if (p.mode == 2u)
        acc = (isnan(v) || v > acc) ? v : acc;
      else if (p.mode == 3u)
        acc = (isnan(v) || v < acc) ? v : acc;
      else
        acc += v;
    }
    result[i] = ELEMENT(p.mode == 1u ? acc / float(p.R) : acc);
  }
}
