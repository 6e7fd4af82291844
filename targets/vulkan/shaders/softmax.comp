#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// (log-)softmax along D of [outer, D, inner]: one row per invocation,
// max-subtracted as torch does.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer In { ELEMENT source[]; };
layout(std430, binding = 1) writeonly buffer Out { ELEMENT result[]; };
layout(push_constant) uniform Params {
  uint outer, D, inner;
  uint logarithm;
} p;

void main() {
  uint rows = p.outer * p.inner;
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint r = gl_GlobalInvocationID.x; r < rows; r += step) {
    uint base = (r / p.inner) * p.D * p.inner + r % p.inner;
    float top = -1.0 / 0.0;
    for (uint d = 0u; d < p.D; ++d)
      top = max(top, float(source[base + d * p.inner]));
    float total = 0.0;
    for (uint d = 0u; d < p.D; ++d)
      total += exp(float(source[base + d * p.inner]) - top);
    float logTotal = log(total);
    for (uint d = 0u; d < p.D; ++d) {
      float shifted = float(source[base + d * p.inner]) - top;
      result[base + d * p.inner] =
          ELEMENT(p.logarithm != 0u ? shifted - logTotal : exp(shifted) / total);
    }
  }
}
