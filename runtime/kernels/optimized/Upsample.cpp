// upsample_nearest2d and upsample_bilinear2d on NCHW float32. The portable
// kernels work out every pixel's source columns in double arithmetic
// (floor, min, casts); here the columns and their weights are worked out
// once per tile of output columns, the source rows once per row, and the
// pixels are loads and float blends. Planes are split across the thread
// pool. The coordinates follow the same rules (KernelSupport.h) and the
// blends are the same float expressions, so the bytes equal the portable
// kernels'.
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/portable/KernelSupport.h"

#include <algorithm>

namespace etch::runtime::optimized {
namespace {

using portable::UpsampleAxis;

constexpr int64_t kTile = 256; // output columns whose sources sit on the stack

/// The source columns (and bilinear weights) of output columns
/// [first, first + count).
struct Columns {
  int64_t left[kTile], right[kTile];
  float weight[kTile];
  void nearest(const UpsampleAxis &axis, int64_t first, int64_t count) {
    for (int64_t i = 0; i < count; ++i)
      left[i] = portable::nearestSource(axis, first + i);
  }
  void bilinear(const UpsampleAxis &axis, int64_t first, int64_t count) {
    for (int64_t i = 0; i < count; ++i)
      portable::bilinearSource(axis, first + i, left[i], right[i], weight[i]);
  }
};

struct Planes {
  const float *src;
  float *dst;
  int64_t h, w, oh, ow;
  UpsampleAxis ys, xs;
};

/// Output columns in tiles whose sources \p columnsOf works out once; then
/// \p row(columns, plane, y, output, count) writes each row of the tile in
/// planes [first, last).
template <typename Row>
void tiledPlanes(const Planes &s, int64_t first, int64_t last,
                 void (Columns::*columnsOf)(const UpsampleAxis &, int64_t,
                                            int64_t),
                 Row row) {
  Columns columns;
  for (int64_t x0 = 0; x0 < s.ow; x0 += kTile) {
    int64_t count = std::min(kTile, s.ow - x0);
    (columns.*columnsOf)(s.xs, x0, count);
    for (int64_t p = first; p < last; ++p)
      for (int64_t y = 0; y < s.oh; ++y)
        row(columns, p, y, s.dst + (p * s.oh + y) * s.ow + x0, count);
  }
}

void nearestPlanes(const Planes &s, int64_t first, int64_t last) {
  tiledPlanes(s, first, last, &Columns::nearest,
              [&](const Columns &columns, int64_t p, int64_t y, float *out,
                  int64_t count) {
                const float *row =
                    s.src + (p * s.h + portable::nearestSource(s.ys, y)) * s.w;
                for (int64_t i = 0; i < count; ++i)
                  out[i] = row[columns.left[i]];
              });
}

void bilinearPlanes(const Planes &s, int64_t first, int64_t last) {
  tiledPlanes(s, first, last, &Columns::bilinear,
              [&](const Columns &columns, int64_t p, int64_t y, float *out,
                  int64_t count) {
                int64_t y0, y1;
                float ly;
                portable::bilinearSource(s.ys, y, y0, y1, ly);
                const float *top = s.src + (p * s.h + y0) * s.w;
                const float *bottom = s.src + (p * s.h + y1) * s.w;
                for (int64_t i = 0; i < count; ++i) {
                  int64_t l = columns.left[i], r = columns.right[i];
                  float lx = columns.weight[i];
                  float t = top[l] * (1 - lx) + top[r] * lx;
                  float b = bottom[l] * (1 - lx) + bottom[r] * lx;
                  out[i] = t * (1 - ly) + b * ly;
                }
              });
}

void runUpsample(const KernelCall &call, bool bilinear) {
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  bool align = bilinear && call.boolAttr("align_corners", false);
  Planes s{in.data<float>(), out.data<float>(), in.size(2), in.size(3),
           out.size(2), out.size(3), {}, {}};
  s.ys = portable::upsampleAxis(call, "scales_h", s.h, s.oh, align);
  s.xs = portable::upsampleAxis(call, "scales_w", s.w, s.ow, align);
  auto planes = [&](int64_t first, int64_t last) {
    bilinear ? bilinearPlanes(s, first, last) : nearestPlanes(s, first, last);
  };
  // Small planes are little work: keep several per task.
  ThreadPool::shared().parallelFor(in.size(0) * in.size(1),
                                   grainFor(s.oh * s.ow, kMinValuesPerTask),
                                   planes);
}

} // namespace

void runUpsampleNearest2d(const KernelCall &call) { runUpsample(call, false); }

void runUpsampleBilinear2d(const KernelCall &call) { runUpsample(call, true); }

} // namespace etch::runtime::optimized
