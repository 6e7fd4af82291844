#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// dst[dstOffset + strided(i)] = src[srcOffset + strided(i)] for every
// index i of dims: views, permutes, slices, cat pieces and expands.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Src { ELEMENT src[]; };
layout(std430, binding = 1) writeonly buffer Dst { ELEMENT dst[]; };
layout(push_constant) uniform Params {
  uint dims[6];
  uint srcStrides[6];
  uint dstStrides[6];
  uint srcOffset;
  uint dstOffset;
} p;
#include "index.glsl"

void main() {
  uint count = elementCount(p.dims);
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += step)
    dst[p.dstOffset + stridedOffset(i, p.dims, p.dstStrides)] =
        src[p.srcOffset + stridedOffset(i, p.dims, p.srcStrides)];
}
