#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// Layer normalization over the trailing D elements of each row: one
// workgroup per row, its invocations reducing mean and variance through
// shared memory (two passes, as torch: variance of the centred values).
layout(constant_id = 0) const uint WIDTH = 64;
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer In { ELEMENT source[]; };
layout(std430, binding = 1) readonly buffer Weight { ELEMENT weight[]; };
layout(std430, binding = 2) readonly buffer Bias { ELEMENT bias[]; };
layout(std430, binding = 3) writeonly buffer Out { ELEMENT result[]; };
layout(push_constant) uniform Params {
  uint rows, D;
  float eps;
  uint hasWeight, hasBias;
} p;

shared float partial[WIDTH];

float rowSum(float mine) {
  uint x = gl_LocalInvocationID.x;
  partial[x] = mine;
  barrier();
  for (uint half_ = WIDTH / 2u; half_ > 0u; half_ /= 2u) {
    if (x < half_)
      partial[x] += partial[x + half_];
    barrier();
  }
  float total = partial[0];
  barrier();
  return total;
}

void main() {
  uint x = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
    uint base = row * p.D;
    float sum = 0.0;
    for (uint d = x; d < p.D; d += WIDTH)
      sum += float(source[base + d]);
    float mean = rowSum(sum) / float(p.D);
    float squares = 0.0;
    for (uint d = x; d < p.D; d += WIDTH) {
      float centred = float(source[base + d]) - mean;
      squares += centred * centred;
    }
    float invStd = inversesqrt(rowSum(squares) / float(p.D) + p.eps);
    for (uint d = x; d < p.D; d += WIDTH) {
      float v = (float(source[base + d]) - mean) * invStd;
      if (p.hasWeight != 0u)
        v *= float(weight[d]);
      if (p.hasBias != 0u)
        v += float(bias[d]);
      result[base + d] = ELEMENT(v);
    }
  }
}
