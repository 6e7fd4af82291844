#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// C[b, m, n] = act(sum_k A[b, m, k] B[b, k, n] + bias[m, n]) with A, B and
// bias read through strides (transposes and broadcasts cost nothing) and C
// contiguous. Each workgroup computes a TILE x TILE block of C, staging
// TILE-wide slabs of A and B in shared memory; z is the batch.
layout(constant_id = 0) const uint TILE = 16;
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(std430, binding = 0) readonly buffer MatA { ELEMENT A[]; };
layout(std430, binding = 1) readonly buffer MatB { ELEMENT B[]; };
layout(std430, binding = 2) readonly buffer Bias { ELEMENT bias[]; };
layout(std430, binding = 3) writeonly buffer MatC { ELEMENT C[]; };
layout(push_constant) uniform Params {
  uint M, N, K;
  uint aBatch, aRow, aCol; // strides of A in elements
  uint bBatch, bRow, bCol;
  uint biasRow, biasCol;
  uint hasBias;
  uint activation;
  float alpha, beta;
} p;
#include "activation.glsl"

shared float tileA[TILE * TILE];
shared float tileB[TILE * TILE];

void main() {
  uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y;
  uint row = gl_WorkGroupID.y * TILE + y;
  uint col = gl_WorkGroupID.x * TILE + x;
  uint batch = gl_WorkGroupID.z;
  uint aBase = batch * p.aBatch, bBase = batch * p.bBatch;
  float sum = 0.0;
  for (uint k0 = 0u; k0 < p.K; k0 += TILE) {
    uint ka = k0 + x, kb = k0 + y;
    tileA[y * TILE + x] =
        row < p.M && ka < p.K ? float(A[aBase + row * p.aRow + ka * p.aCol]) : 0.0;
    tileB[y * TILE + x] =
        kb < p.K && col < p.N ? float(B[bBase + kb * p.bRow + col * p.bCol]) : 0.0;
    barrier();
    for (uint k = 0u; k < TILE; ++k)
      sum += tileA[y * TILE + k] * tileB[k * TILE + x];
    barrier();
  }
  if (row >= p.M || col >= p.N)
    return;
  if (p.hasBias != 0u)
    sum += float(bias[row * p.biasRow + col * p.biasCol]);
  C[(batch * p.M + row) * p.N + col] =
      ELEMENT(activate(sum, p.activation, p.alpha, p.beta));
}
