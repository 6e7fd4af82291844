#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// out[i] = activation(in[i]) over count contiguous elements.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer In { ELEMENT source[]; };
layout(std430, binding = 1) writeonly buffer Out { ELEMENT result[]; };
layout(push_constant) uniform Params {
  uint count;
  uint activation;
  float alpha;
  float beta;
} p;
#include "activation.glsl"

void main() {
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += step)
    result[i] = ELEMENT(activate(float(source[i]), p.activation, p.alpha, p.beta));
}
