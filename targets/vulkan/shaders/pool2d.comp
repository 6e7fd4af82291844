#version 450
#extension GL_GOOGLE_include_directive : require
#include "storage.glsl"
// Pooling windows over planes of [H, W] (N*C planes of NCHW), one output
// element per invocation. Average windows follow ATen: a window clipped to
// the padded input is the divisor with padding counted, the cells inside
// the input without; a divisor override replaces both. Adaptive windows
// are [floor(o*H/OH), ceil((o+1)*H/OH)).
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer In { ELEMENT source[]; };
layout(std430, binding = 1) writeonly buffer Out { ELEMENT result[]; };
layout(push_constant) uniform Params {
  uint planes, H, W, OH, OW;
  uint KH, KW;
  uint strideH, strideW;
  uint padH, padW;
  uint dilationH, dilationW;
  uint mode; // PoolMode
  float divisor; // 0: none
} p;

void main() {
  uint count = p.planes * p.OH * p.OW;
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += step) {
    uint ox = i % p.OW, oy = (i / p.OW) % p.OH, plane = i / (p.OW * p.OH);
    uint base = plane * p.H * p.W;
    bool adaptive = p.mode >= 3u;
    bool maximum = p.mode == 0u || p.mode == 4u;
    int y0, y1, x0, x1, dy = 1, dx = 1;
    if (adaptive) {
      y0 = int(oy * p.H / p.OH); y1 = int(((oy + 1u) * p.H + p.OH - 1u) / p.OH);
      x0 = int(ox * p.W / p.OW); x1 = int(((ox + 1u) * p.W + p.OW - 1u) / p.OW);
    } else {
      dy = int(p.dilationH); dx = int(p.dilationW);
      y0 = int(oy * p.strideH) - int(p.padH);
      x0 = int(ox * p.strideW) - int(p.padW);
      y1 = y0 + (int(p.KH) - 1) * dy + 1;
      x1 = x0 + (int(p.KW) - 1) * dx + 1;
    }
    // The padded window's cells (ATen's divisor with padding counted).
    float padded = float((min(y1, int(p.H + p.padH)) - y0) *
                         (min(x1, int(p.W + p.padW)) - x0));
    float best = -1.0 / 0.0, sum = 0.0, cells = 0.0;
    for (int y = y0; y < y1; y += dy) {
      if (y < 0 || y >= int(p.H))
        continue;
      for (int x = x0; x < x1; x += dx) {
        if (x < 0 || x >= int(p.W))
          continue;
        float v = float(source[base + uint(y) * p.W + uint(x)]);
        best = (isnan(v) || v > best) ? v : best;
        sum += v;
        cells += 1.0;
      }
    }
    float divisor = p.divisor != 0.0 ? p.divisor
                    : p.mode == 1u   ? padded
                                     : cells;
    result[i] = ELEMENT(maximum ? best : sum / divisor);
  }
}
