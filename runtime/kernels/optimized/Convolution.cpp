// Depthwise convolution (one filter per channel, 2-D, NCHW, f32). Each
// input row is copied once with zero padding (split into stride phases
// along W) into a ring of a window's rows, and blocks of 8 output columns
// keep their sums (4 without AVX2) in vector registers over every filter
// tap (built per ISA: IsaClones.h). Channel planes are split across the
// thread pool. This is the case XNNPACK 2022 leaves to etch: its depthwise
// kernels take 3, 4, 9 or 25 taps, and other sizes (ConvNeXt's 7x7) would
// run there as a GEMM per channel.
//
// Other convolutions (2-D and 3-D, f32, not transposed) are, per image and
// group, the product W[oc, ic * taps] . B[ic * taps, pixels] on the GEMM
// (Gemm.h), B being the input itself for 1x1 windows of stride 1 without
// padding (a mobile net's expansions and projections) and its windows
// packed a panel at a time otherwise (im2col that is never stored whole:
// no scratch). Transposed ones run the portable kernel.
#include "runtime/core/WindowExtent.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/Gemm.h"
#include "runtime/kernels/optimized/IsaClones.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

using portable::ConvShape;
using portable::convShape;

/// out[oy, ox] as the sum of the taps that land inside the input.
float clippedSum(const ConvShape &s, const float *in, const float *weight,
                 float bias, int64_t oy, int64_t ox) {
  float sum = bias;
  TapRange ys = tapsInside(oy, s.sh, s.ph, s.dh, s.kh, s.h);
  TapRange xs = tapsInside(ox, s.sw, s.pw, s.dw, s.kw, s.w);
  for (int64_t ky = ys.first; ky < ys.end; ++ky) {
    int64_t iy = oy * s.sh - s.ph + ky * s.dh;
    for (int64_t kx = xs.first; kx < xs.end; ++kx) {
      int64_t ix = ox * s.sw - s.pw + kx * s.dw;
      sum += weight[ky * s.kw + kx] * in[iy * s.w + ix];
    }
  }
  return sum;
}

/// W sums in one vector register of the ISA a plane is compiled for (8
/// for AVX2 and AVX-512, 4 for SSE): GCC's vector type, since it does not
/// vectorize the scalar form here. Wider than a register, GCC moved each
/// block through the stack and general registers at every tap (on AVX2 the
/// kernel ran at half the portable kernel's speed).
template <int W> struct Lanes {
  typedef float Block __attribute__((vector_size(W * sizeof(float))));
};
// Zero-padded copies of the input rows one output row reads, on the stack.
constexpr int64_t kMaxPaddedFloats = 16384;

constexpr int64_t kChains = 4;

// Filter columns the padded-row path takes (their offsets on the stack).
constexpr int64_t kMaxFilterColumns = 64;

/// A padded row (the input, pw zeros each side) is stored as sw phases:
/// padded column c at c / sw in phase c % sw, so the columns one filter tap
/// reads for consecutive outputs are consecutive in one phase. Each phase
/// has room for the reads of a last group of kChains blocks of W past its
/// end. With stride 1 it is the padded row itself.
template <int W> int64_t phaseWidth(const ConvShape &s) {
  return (s.w + 2 * s.pw + s.sw - 1) / s.sw + kChains * W;
}
template <int W> int64_t paddedWidth(const ConvShape &s) {
  return s.sw * phaseWidth<W>(s);
}

/// Input rows one output row's window spans (its taps' rows and those a
/// dilation skips).
inline int64_t windowRows(const ConvShape &s) { return (s.kh - 1) * s.dh + 1; }

/// Whether the padded-row path takes \p s: a window's rows that fit the
/// stack buffer and filter rows of at most kMaxFilterColumns taps.
template <int W> bool usesPaddedRows(const ConvShape &s) {
  return s.kw <= kMaxFilterColumns &&
         windowRows(s) * paddedWidth<W>(s) <= kMaxPaddedFloats;
}

/// The padded input rows one output row reads, their filter rows, where
/// each filter column's reads start in a padded row (with stride 1 along W:
/// kx * dw; otherwise its phase and place, columnOffsets), and the first
/// output column of a group of blocks.
struct PaddedRows {
  const float *const *rows;
  const float *const *taps;
  const int64_t *columnOffsets;
  int64_t used, kw, dw, ox;
};

/// sums[b] for Blocks column blocks from \p source; each block's taps are
/// dealt among Chains sums, so Blocks * Chains independent FMA chains hide
/// the FMA latency (a single chain would wait on it at every tap). Phased
/// reads each filter column's start from the table; with stride 1 it is
/// computed (a load per tap cost ConvNeXt's 7x7 5-10%: the loop is bound by
/// its loads).
template <int W, int Blocks, int Chains, bool Phased>
__attribute__((always_inline)) inline void
sumBlocks(const PaddedRows &source, typename Lanes<W>::Block *sums) {
  using Block = typename Lanes<W>::Block;
  auto start = [&](int64_t kx) {
    return Phased ? source.columnOffsets[kx] : kx * source.dw;
  };
  Block partial[Blocks][Chains] = {};
  Block values;
  for (int64_t r = 0; r < source.used; ++r) {
    const float *row = source.rows[r] + source.ox;
    const float *taps = source.taps[r];
    int64_t kx = 0;
    for (; kx + Chains <= source.kw; kx += Chains)
      for (int c = 0; c < Chains; ++c)
        for (int b = 0; b < Blocks; ++b) {
          std::memcpy(&values, row + start(kx + c) + b * W, sizeof values);
          partial[b][c] += taps[kx + c] * values;
        }
    for (; kx < source.kw; ++kx)
      for (int b = 0; b < Blocks; ++b) {
        std::memcpy(&values, row + start(kx) + b * W, sizeof values);
        partial[b][0] += taps[kx] * values;
      }
  }
  for (int b = 0; b < Blocks; ++b) {
    sums[b] = partial[b][0];
    for (int c = 1; c < Chains; ++c)
      sums[b] += partial[b][c];
  }
}

/// sums for the \p blocks (1 to kChains) column blocks of one group.
template <int W, bool Phased>
__attribute__((always_inline)) inline void
sumGroup(const PaddedRows &source, int64_t blocks,
         typename Lanes<W>::Block *sums) {
  if (blocks >= 3) // a 4th block past ow is free
    sumBlocks<W, kChains, 1, Phased>(source, sums);
  else if (blocks == 2)
    sumBlocks<W, 2, 2, Phased>(source, sums);
  else
    sumBlocks<W, 1, kChains, Phased>(source, sums);
}

/// One channel plane. The input rows are copied with zero padding on both
/// sides (in stride phases: paddedWidth), so every column takes the same
/// path: blocks of W columns whose sums stay in a vector register over every
/// tap (one load and one FMA per tap). Each input row is copied once, into
/// a ring of a window's rows (row iy in slot iy mod windowRows; copying the
/// rows per output row took ConvNeXt's 7x7 more time than its FMAs). Rows
/// too wide for the stack buffer sum tap by tap, skipping taps outside the
/// input.
template <int W>
__attribute__((always_inline)) inline void
depthwisePlaneBody(const ConvShape &s, const float *in, const float *weight,
                   float bias, float *out) {
  using Block = typename Lanes<W>::Block;
  constexpr int64_t kBlock = W;
  if (!usesPaddedRows<W>(s)) {
    for (int64_t oy = 0; oy < s.oh; ++oy)
      for (int64_t ox = 0; ox < s.ow; ++ox)
        out[oy * s.ow + ox] = clippedSum(s, in, weight, bias, oy, ox);
    return;
  }
  const int64_t width = paddedWidth<W>(s), slots = windowRows(s);
  const int64_t phase = phaseWidth<W>(s);
  int64_t columnOffsets[kMaxFilterColumns];
  for (int64_t kx = 0; kx < s.kw; ++kx)
    columnOffsets[kx] = kx * s.dw % s.sw * phase + kx * s.dw / s.sw;
  float ring[kMaxPaddedFloats];
  // The padding of every slot stays zero: copies write the middle only.
  std::fill(ring, ring + slots * width, 0.0f);
  const float *rows[kMaxPaddedFloats / kBlock];
  const float *taps[kMaxPaddedFloats / kBlock];
  int64_t copied = 0; // input rows below this one are in the ring (or past)
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    int64_t top = oy * s.sh - s.ph;
    for (int64_t iy = std::max(copied, top); iy < std::min(s.h, top + slots);
         ++iy) {
      float *slot = ring + iy % slots * width;
      const float *source = in + iy * s.w;
      if (s.sw == 1) {
        std::memcpy(slot + s.pw, source, s.w * sizeof(float));
      } else { // padded column ix + pw: phase and place stepped, not divided
        int64_t at = s.pw / s.sw, step = s.pw % s.sw;
        for (int64_t ix = 0; ix < s.w; ++ix) {
          slot[step * phase + at] = source[ix];
          if (++step == s.sw) {
            step = 0;
            ++at;
          }
        }
      }
    }
    copied = std::max(copied, std::min(s.h, top + slots));
    int64_t used = 0;
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      int64_t iy = top + ky * s.dh;
      if (iy < 0 || iy >= s.h)
        continue;
      rows[used] = ring + iy % slots * width;
      taps[used++] = weight + ky * s.kw;
    }
    float *row = out + oy * s.ow;
    for (int64_t ox = 0; ox < s.ow; ox += kChains * kBlock) {
      int64_t blocks = std::min(kChains, (s.ow - ox + kBlock - 1) / kBlock);
      Block sums[kChains];
      PaddedRows source{rows, taps, columnOffsets, used, s.kw, s.dw, ox};
      if (s.sw == 1)
        sumGroup<W, false>(source, blocks, sums);
      else
        sumGroup<W, true>(source, blocks, sums);
      for (int64_t b = 0; b < blocks; ++b) {
        Block result = sums[b] + bias;
        std::memcpy(row + ox + b * kBlock, &result,
                    std::min(kBlock, s.ow - ox - b * kBlock) * sizeof(float));
      }
    }
  }
}

using PlaneFn = void (*)(const ConvShape &, const float *, const float *, float,
                         float *);

/// The plane kernel for the widest ISA allowed here, with blocks as wide as
/// its vector registers, except AVX-512's: 8 columns there too. ConvNeXt's
/// maps (56, 28, 14, 7 wide) waste fewer columns in blocks of 8, and ymm
/// loads at a tap's offset split cache lines less often: 0.82x the time of
/// 16-wide blocks on a Zen 5.
PlaneFn planeKernel() {
  static const PlaneFn chosen =
      cpuHasIsa("avx512") ? IsaClones<depthwisePlaneBody<8>>::avx512
      : cpuHasIsa("avx2") ? IsaClones<depthwisePlaneBody<8>>::avx2
                          : IsaClones<depthwisePlaneBody<4>>::scalar;
  return chosen;
}

bool isDepthwise(const ConvShape &s) {
  return !s.transposed && s.groups == s.c && s.oc == s.c;
}

bool isPointwise(const ConvShape &s) {
  return !s.transposed && s.kd == 1 && s.kh == 1 && s.kw == 1 && s.sd == 1 &&
         s.sh == 1 && s.sw == 1 && s.pd == 0 && s.ph == 0 && s.pw == 0;
}

/// The input windows of one image and group as the GEMM's B: row k =
/// (channel, kz, ky, kx), column n = (oz, oy, ox), zero where a tap falls
/// outside the input (im2col, packed a panel at a time, never stored whole).
/// A 2-D convolution has depth 1 throughout.
struct Windows {
  const ConvShape *s;
  const float *in; // the group's first channel of the image
  int64_t firstColumn;
};

void packWindows(const void *context, const GemmPanel &panel, float *packed) {
  const Windows &windows = *static_cast<const Windows *>(context);
  const ConvShape &s = *windows.s;
  int64_t front[kGemmMaxPanelColumns], top[kGemmMaxPanelColumns],
      left[kGemmMaxPanelColumns];
  int64_t outPlane = s.oh * s.ow;
  for (int64_t j = 0; j < panel.width; ++j) {
    int64_t pixel = windows.firstColumn + panel.n0 + j;
    front[j] = pixel / outPlane * s.sd - s.pd;
    top[j] = pixel % outPlane / s.ow * s.sh - s.ph;
    left[j] = pixel % s.ow * s.sw - s.pw;
  }
  int64_t planeTaps = s.kh * s.kw, taps = s.kd * planeTaps;
  for (int64_t p = 0; p < panel.kc; ++p) {
    int64_t k = panel.k0 + p, tap = k % taps;
    int64_t dz = tap / planeTaps * s.dd, dy = tap % planeTaps / s.kw * s.dh,
            dx = tap % s.kw * s.dw;
    const float *volume = windows.in + k / taps * s.d * s.h * s.w;
    float *row = packed + p * panel.nr;
    for (int64_t j = 0; j < panel.width; ++j) {
      int64_t iz = front[j] + dz, iy = top[j] + dy, ix = left[j] + dx;
      row[j] = iz >= 0 && iz < s.d && iy >= 0 && iy < s.h && ix >= 0 && ix < s.w
                   ? volume[(iz * s.h + iy) * s.w + ix]
                   : 0.0f;
    }
    std::fill(row + panel.width, row + panel.nr, 0.0f);
  }
}

/// out[image, group] = W[group] . B[image, group] (+ bias), B being the
/// input itself for a pointwise convolution, else its windows; in tiles of
/// output channels and pixels spread over the pool. The portable planes
/// would stream each output plane through memory once per input channel
/// and tap.
void gemmConvolution(const ConvShape &s, const float *in, const float *weight,
                     const float *bias, float *out) {
  constexpr int64_t kTileRows = 48; // a multiple of the GEMM's 6 and 8 rows
  int64_t pixels = s.od * s.oh * s.ow, inPixels = s.d * s.h * s.w;
  int64_t inGroup = s.c / s.groups, outGroup = s.oc / s.groups;
  int64_t reduction = inGroup * s.kd * s.kh * s.kw;
  bool pointwise = isPointwise(s);
  int64_t rowTiles = (outGroup + kTileRows - 1) / kTileRows;
  // 256 pixels per tile, narrower (down to one 32-wide AVX-512 panel) where
  // that leaves fewer than 4 tiles per thread: a small map's layers would
  // otherwise run on one thread.
  int64_t imagesAndTiles = s.n * s.groups * rowTiles;
  int64_t wanted = 4 * static_cast<int64_t>(ThreadPool::shared().threads());
  int64_t tileColumns = 256;
  while (tileColumns > 32 &&
         imagesAndTiles * ((pixels + tileColumns - 1) / tileColumns) < wanted)
    tileColumns /= 2;
  int64_t columnTiles = (pixels + tileColumns - 1) / tileColumns;
  auto tiles = [&](int64_t first, int64_t last) {
    for (int64_t tile = first; tile < last; ++tile) {
      int64_t column = tile % columnTiles * tileColumns;
      int64_t rest = tile / columnTiles;
      int64_t row = rest % rowTiles * kTileRows;
      int64_t group = rest / rowTiles % s.groups;
      int64_t image = rest / rowTiles / s.groups;
      int64_t rows = std::min(kTileRows, outGroup - row);
      int64_t width = std::min(tileColumns, pixels - column);
      int64_t channel = group * outGroup + row;
      float *c = out + (image * s.oc + channel) * pixels + column;
      for (int64_t r = 0; r < rows; ++r)
        std::fill(c + r * pixels, c + r * pixels + width,
                  bias ? bias[channel + r] : 0.0f);
      const float *source = in + (image * s.c + group * inGroup) * inPixels;
      GemmShape shape{rows, width, reduction};
      GemmMatrix a{weight + channel * reduction, reduction};
      if (pointwise) {
        gemmAccumulate(shape, a, {source + column, inPixels},
                       /*bTransposed=*/false, c, pixels);
      } else {
        Windows windows{&s, source, column};
        gemmAccumulate(shape, a, GemmPanelSource{packWindows, &windows}, c,
                       pixels);
      }
    }
  };
  int64_t count = imagesAndTiles * columnTiles;
  bool small = s.n * s.oc * reduction * pixels < kMinParallelProduct;
  ThreadPool::shared().parallelFor(count, small ? count : 1, tiles);
}

} // namespace

void runConvolution(const KernelCall &call) {
  if (call.inputs[0]->scalarType() == ScalarType::Float64)
    return portable::runConvolution(call);
  ConvShape s = convShape(call);
  const float *in = call.inputs[0]->data<float>();
  const float *weight = call.inputs[1]->data<float>();
  const TensorView *bias = call.input(2);
  float *out = call.outputs[0]->data<float>();
  if (s.transposed) {
    portable::runConvolution(call);
    return;
  }
  // 2-D depthwise: the planes below; every other one: the GEMM.
  if (!isDepthwise(s) || s.kd != 1 || s.d != 1)
    return gemmConvolution(s, in, weight, bias ? bias->data<float>() : nullptr,
                           out);
  int64_t inPlane = s.h * s.w, outPlane = s.oh * s.ow, taps = s.kh * s.kw;
  PlaneFn kernel = planeKernel();
  auto planes = [&](int64_t first, int64_t last) {
    for (int64_t plane = first; plane < last; ++plane) {
      int64_t channel = plane % s.c;
      kernel(s, in + plane * inPlane, weight + channel * taps,
             bias ? bias->data<float>()[channel] : 0.0f,
             out + plane * outPlane);
    }
  };
  // A plane of a small feature map is little work: keep several per task.
  ThreadPool::shared().parallelFor(
      s.n * s.c, grainFor(outPlane * taps, kMinWorkPerTask), planes);
}

} // namespace etch::runtime::optimized
