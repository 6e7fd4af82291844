#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// out[i] = a[strided(i)] (op) alpha * b[strided(i)], out contiguous over
// dims; a broadcast dim has stride 0.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer A { ELEMENT a[]; };
layout(std430, binding = 1) readonly buffer B { ELEMENT b[]; };
layout(std430, binding = 2) writeonly buffer Out { ELEMENT result[]; };
layout(push_constant) uniform Params {
  uint dims[6];
  uint aStrides[6];
  uint bStrides[6];
  uint op; // BinaryOp
  float alpha;
} p;
#include "index.glsl"

// torch.pow: GLSL's pow is undefined for x < 0 and for x == 0, y <= 0.
float power(float x, float y) {
  if (y == 2.0)
    return x * x; // exact, and the common case (RMSNorm, variances)
  if (y == 0.0)
    return 1.0;
  if (x == 0.0)
    return y > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u); // +inf
  float magnitude = pow(abs(x), y);
  if (x > 0.0)
    return magnitude;
  if (floor(y) != y)
    return uintBitsToFloat(0x7fc00000u); // NaN, as torch
  return mod(y, 2.0) == 1.0 ? -magnitude : magnitude;
}

float apply(float x, float y) {
  switch (p.op) {
  case 0u: return x + p.alpha * y;
  case 1u: return x - p.alpha * y;
  case 2u: return x * y;
  case 3u: return x / y;
  case 4u: return (isnan(x) || isnan(y)) ? x + y : max(x, y);
  case 5u: return (isnan(x) || isnan(y)) ? x + y : min(x, y);
  case 6u: return power(x, y);
  }
  return x;
}

void main() {
  uint count = elementCount(p.dims);
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += step)
    result[i] = ELEMENT(apply(float(a[stridedOffset(i, p.dims, p.aStrides)]),
                              float(b[stridedOffset(i, p.dims, p.bStrides)])));
}
