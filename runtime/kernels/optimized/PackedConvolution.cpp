// The implicit GEMM behind PackedConvolution.h. Packed weights: per panel
// of 16 output channels (zero past the group's last), 16 biases, then for
// every window tap and input channel the panel's 16 weights in a row. A
// micro-kernel computes a 6 x 16 tile of the output: per segment (one tap,
// or a range of its input channels) six row pointers into the NHWC input
// (a zero row where the tap falls in the padding) and a run of k values,
// each one broadcast per row and multiplied into two 8-wide sums per row.
// (GemmMicrokernel.h).
//
// Blocking: when a group's weights are a few MB at most (or the reduction
// is short), a tile's row pointers are made once and every panel runs over
// the whole reduction. Otherwise the reduction is cut into blocks of ~256 k
// values,
// and per block each panel's slice (16 KiB, L1) runs over every tile:
// tiles then add into the output, the first block starting from the bias
// and the last one clamping. Inputs with few channels per tap (a network's
// first layer: 3) are copied into contiguous rows per tile first, so the
// micro-kernel sees one long segment instead of many 3-value ones.
#include "runtime/kernels/optimized/PackedConvolution.h"
#include "runtime/core/WindowExtent.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/GemmMicrokernel.h"
#include "runtime/kernels/optimized/ThreadPool.h"

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

constexpr int64_t MR = kTileRows, NR = kTileColumns;
/// k values per reduction block when a group's weights are large.
constexpr int64_t kDepthBlock = 256;
/// Weights of a group up to which every tile runs the whole reduction
/// (measured on resnet18's layers: whole reductions are faster up to its
/// 2.4 MB layer3, blocks at its 9.4 MB layer4; L3 holds the former).
constexpr int64_t kWholeReductionBytes = 3 * 1024 * 1024;
/// Channels per tap below which a tile's rows are copied contiguous, and
/// the longest reduction copied so (6 rows on the stack: 24 KiB).
constexpr int64_t kGatherBelowChannels = 8;
constexpr int64_t kMaxGatherDepth = 1024;
/// Row pointers of one tile: segments x MR (PackedConvolution::supports
/// keeps windows within kMaxTaps).
constexpr int64_t kMaxPointers = kConvMaxTaps * MR;

/// An ISA's micro-kernels: one panel, and two side by side (null: pairs
/// run as two single panels).
struct Isa {
  const char *name;
  GemmMicrokernel kernel, pairKernel;
};

const Isa kIsas[] = {{"avx512", gemmMicrokernelAvx2, gemmMicrokernelAvx512Pair},
                     {"avx2", gemmMicrokernelAvx2, nullptr},
                     {"scalar", gemmMicrokernelScalar, nullptr}};

const Isa &chosenIsa() {
  static const Isa *chosen = [] {
    for (const Isa &isa : kIsas)
      if (cpuHasIsa(isa.name))
        return &isa;
    return &kIsas[2];
  }();
  return *chosen;
}

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

} // namespace

ConvGeometry ConvGeometry::fullyConnected(int64_t rows, int64_t in,
                                          int64_t out) {
  ConvGeometry g;
  g.height = g.outHeight = rows;
  g.inChannels = in;
  g.outChannels = out;
  return g;
}

bool ConvGeometry::valid() const {
  for (int64_t v : {batch, height, width, inChannels, outHeight, outWidth,
                    outChannels, kernelHeight, kernelWidth, strideHeight,
                    strideWidth, dilationHeight, dilationWidth, groups})
    if (v <= 0)
      return false;
  // Every tap is checked against the input as it is read, so any output
  // extents are safe to compute.
  return padTop >= 0 && padLeft >= 0 && inChannels % groups == 0 &&
         outChannels % groups == 0;
}

size_t PackedConvolution::packedBytes(const ConvGeometry &g) {
  int64_t groupIn = g.inChannels / g.groups;
  int64_t panels = (g.outChannels / g.groups + NR - 1) / NR * g.groups;
  int64_t depth = g.kernelHeight * g.kernelWidth * groupIn;
  // The panels, then a zero row as long as an input pixel (the padding).
  return static_cast<size_t>(panels * (NR + depth * NR) +
                             roundUp(g.inChannels, NR)) *
         sizeof(float);
}

PackedConvolution::PackedConvolution(const ConvGeometry &g,
                                     const float *weights, const float *bias,
                                     float *storage)
    : geometry_(g), packed_(storage) {
  std::memset(storage, 0, packedBytes(g));
  int64_t groupOut = g.outChannels / g.groups;
  int64_t depth = g.kernelHeight * g.kernelWidth * (g.inChannels / g.groups);
  int64_t panelsPerGroup = (groupOut + NR - 1) / NR;
  for (int64_t panel = 0; panel < panelsPerGroup * g.groups; ++panel) {
    int64_t group = panel / panelsPerGroup;
    int64_t first = (panel % panelsPerGroup) * NR;
    float *to = storage + panel * (NR + depth * NR);
    for (int64_t j = 0; j < NR && first + j < groupOut; ++j) {
      int64_t out = group * groupOut + first + j;
      to[j] = bias ? bias[out] : 0.0f;
      const float *row = weights + out * depth;
      for (int64_t k = 0; k < depth; ++k)
        to[NR + k * NR + j] = row[k];
    }
  }
}

bool PackedConvolution::supports(const ConvGeometry &g) {
  return g.valid() && g.kernelHeight * g.kernelWidth <= kConvMaxTaps;
}

const char *PackedConvolution::isa() { return chosenIsa().name; }

namespace {

/// What every tile of one run shares.
struct Run {
  Run(const ConvGeometry &g, const float *packed, const float *in, float *out,
      float lo, float hi, const Isa &isa)
      : g(g), groupIn(g.inChannels / g.groups),
        groupOut(g.outChannels / g.groups),
        taps(g.kernelHeight * g.kernelWidth), depth(taps * groupIn),
        panelsPerGroup((groupOut + NR - 1) / NR), packed(packed),
        zeros(packed + panels() * panelFloats()), in(in), out(out), lo(lo),
        hi(hi), kernel(isa.kernel), pairKernel(isa.pairKernel) {}

  const ConvGeometry &g;
  int64_t groupIn, groupOut, taps, depth, panelsPerGroup;
  const float *packed, *zeros, *in;
  float *out;
  float lo, hi;
  GemmMicrokernel kernel, pairKernel;

  int64_t pixels() const { return g.batch * g.outHeight * g.outWidth; }
  int64_t panels() const { return panelsPerGroup * g.groups; }
  /// A packed panel: its biases, then a row of NR weights per k.
  int64_t panelFloats() const { return NR + depth * NR; }
  /// A panel, its group and its index within the group: divided out once
  /// per run of panels, then stepped (per tile, the divisions cost short
  /// reductions as much as the windows' did).
  struct PanelAt {
    int64_t panel, group, inGroup;
  };
  PanelAt panelAt(int64_t panel) const {
    return {panel, panel / panelsPerGroup, panel % panelsPerGroup};
  }
  void advance(PanelAt &at, int64_t step) const {
    at.panel += step;
    at.inGroup += step;
    if (at.inGroup >= panelsPerGroup) {
      at.inGroup -= panelsPerGroup;
      ++at.group;
    }
  }
  /// Panel \p at and the next run as one 6 x 32 tile: a pair kernel, both
  /// before \p end and full (so in one group, their outputs adjacent).
  bool pairs(const PanelAt &at, int64_t end) const {
    return pairKernel && at.panel + 1 < end &&
           (at.inGroup + 2) * NR <= groupOut;
  }

  /// Where output pixels' windows start: their image's input, and the
  /// window's top-left input row and column (negative in the padding).
  struct Window {
    const float *image;
    int64_t y0, x0;
  };
  /// The windows of the tile at output pixel \p first, a row each; rows
  /// past the last pixel repeat it. Divisions once per tile, then steps:
  /// per row they cost a 1x1 convolution's short reductions (shufflenet's
  /// 24-96 channels) about a fifth of its time.
  void windowsOf(int64_t first, int64_t rows, Window *windows) const {
    int64_t ox = first % g.outWidth, rest = first / g.outWidth;
    int64_t oy = rest % g.outHeight, image = rest / g.outHeight;
    const int64_t imageFloats = g.height * g.width * g.inChannels;
    for (int64_t r = 0; r < MR; ++r) {
      windows[r] = {in + image * imageFloats, oy * g.strideHeight - g.padTop,
                    ox * g.strideWidth - g.padLeft};
      if (r + 1 >= rows || ++ox < g.outWidth)
        continue;
      ox = 0;
      if (++oy == g.outHeight) {
        oy = 0;
        ++image;
      }
    }
  }

  /// Row pointers of the tile at output pixel \p first for taps [t0, t1),
  /// at input channel 0: ptr[(t - t0) * MR + r] (the micro-kernel adds
  /// the channel).
  void rowPointers(int64_t first, int64_t rows, int64_t t0, int64_t t1,
                   const float **ptr) const {
    Window windows[MR];
    windowsOf(first, rows, windows);
    const int64_t ky0 = t0 / g.kernelWidth, kx0 = t0 % g.kernelWidth;
    for (int64_t r = 0; r < MR; ++r) {
      auto [base, y0, x0] = windows[r];
      int64_t ky = ky0, kx = kx0;
      for (int64_t t = t0; t < t1; ++t) {
        int64_t iy = y0 + ky * g.dilationHeight;
        int64_t ix = x0 + kx * g.dilationWidth;
        bool inside = iy >= 0 && iy < g.height && ix >= 0 && ix < g.width;
        ptr[(t - t0) * MR + r] =
            inside ? base + (iy * g.width + ix) * g.inChannels : zeros;
        if (++kx == g.kernelWidth) {
          kx = 0;
          ++ky;
        }
      }
    }
  }

  /// What the micro-kernel would read through rowPointers for the output
  /// pixel at \p window, in one contiguous row: the group's input channels
  /// under every tap, zeros where a tap falls in the padding. Taps along a row
  /// copy as one run where their pixels are whole and adjacent (a first
  /// layer's 3-channel taps were a 12-byte copy each).
  void gatherRow(const Window &window, int64_t group, float *to) const {
    auto [image, y0, x0] = window;
    const float *base = image + group * groupIn;
    TapRange rows =
        tapsInside(y0, 1, 0, g.dilationHeight, g.kernelHeight, g.height);
    TapRange columns =
        tapsInside(x0, 1, 0, g.dilationWidth, g.kernelWidth, g.width);
    const int64_t rowFloats = g.kernelWidth * groupIn;
    zeroFill(to, rows.first * rowFloats);
    zeroFill(to + rows.end * rowFloats,
             (g.kernelHeight - rows.end) * rowFloats);
    bool runs = g.dilationWidth == 1 && groupIn == g.inChannels;
    for (int64_t ky = rows.first; ky < rows.end; ++ky) {
      float *row = to + ky * rowFloats;
      const float *line =
          base + (y0 + ky * g.dilationHeight) * g.width * g.inChannels;
      zeroFill(row, columns.first * groupIn);
      zeroFill(row + columns.end * groupIn,
               (g.kernelWidth - columns.end) * groupIn);
      if (runs) {
        std::memcpy(row + columns.first * groupIn,
                    line + (x0 + columns.first) * g.inChannels,
                    (columns.end - columns.first) * groupIn * sizeof(float));
        continue;
      }
      for (int64_t kx = columns.first; kx < columns.end; ++kx)
        std::memcpy(row + kx * groupIn,
                    line + (x0 + kx * g.dilationWidth) * g.inChannels,
                    groupIn * sizeof(float));
    }
  }

  /// Most taps of a row lie inside the input: no call for an empty fill.
  static void zeroFill(float *to, int64_t count) {
    if (count > 0)
      std::memset(to, 0, count * sizeof(float));
  }

  /// The micro-kernel on one tile of one panel, or of \p panel and the
  /// next when \p pair; a panel past the group's last channel goes through
  /// a local 6 x 16 tile. \p job's b, bias and c are set here: b from
  /// \p rowOffset, the first packed row it reads (tap x groupIn + channel).
  /// The caller's job is reused across panels, not copied per call: on
  /// reductions of 16-32 values a copy of it per panel (GCC's 16-byte
  /// loads of fields just stored as 8 bytes, which cannot be forwarded)
  /// cost a third of the time of the micro-kernel itself.
  void tile(int64_t first, const PanelAt &at, bool pair, int64_t rowOffset,
            GemmTile &job) const {
    int64_t column = at.inGroup * NR;
    int64_t width = std::min(NR, groupOut - column);
    job.bias = packed + at.panel * panelFloats();
    job.b = job.bias + NR + rowOffset * NR;
    job.bPanelStride = panelFloats();
    float *c = out + first * g.outChannels + at.group * groupOut + column;
    if (width == NR || width == NR / 2) {
      job.c = c;
      job.ldc = g.outChannels;
      job.narrow = width < NR;
      (pair ? pairKernel : kernel)(job);
      return;
    }
    job.narrow = false;
    // A first block reads the bias, not edge: nothing to clear. Otherwise
    // the columns past width start from zero (never garbage: a NaN or a
    // denormal there would only slow the kernel down).
    alignas(64) float edge[MR * NR];
    if (!job.first) {
      std::memset(edge, 0, sizeof(edge));
      for (int64_t r = 0; r < job.rows; ++r)
        std::memcpy(edge + r * NR, c + r * g.outChannels,
                    width * sizeof(float));
    }
    job.c = edge;
    job.ldc = NR;
    kernel(job);
    for (int64_t r = 0; r < job.rows; ++r)
      std::memcpy(c + r * g.outChannels, edge + r * NR, width * sizeof(float));
  }

  /// Tiles [tile0, tile1) x panels [panel0, panel1) over the whole
  /// reduction, each tile's pointers (or gathered rows) made once.
  void wholeReduction(int64_t tile0, int64_t tile1, int64_t panel0,
                      int64_t panel1) const {
    const float *ptr[kMaxPointers];
    bool gather = groupIn < kGatherBelowChannels && depth <= kMaxGatherDepth;
    alignas(64) float rowsCopy[MR * kMaxGatherDepth];
    const float *gathered[MR];
    Window windows[MR];
    for (int64_t t = tile0; t < tile1; ++t) {
      int64_t first = t * MR, rows = std::min(MR, pixels() - first);
      if (gather)
        windowsOf(first, rows, windows);
      else
        rowPointers(first, rows, 0, taps, ptr);
      GemmTile job;
      job.rows = rows;
      if (gather) {
        job.length = depth;
        job.a = gathered;
      } else {
        job.segments = taps;
        job.length = groupIn;
        job.a = ptr;
      }
      job.bStride = groupIn * NR;
      job.first = job.last = true;
      job.lo = lo;
      job.hi = hi;
      int64_t gatheredFor = -1;
      for (PanelAt at = panelAt(panel0); at.panel < panel1;) {
        bool pair = pairs(at, panel1);
        if (gather && at.group != gatheredFor) {
          for (int64_t r = 0; r < MR; ++r) {
            float *row = rowsCopy + r * depth;
            gatherRow(windows[r], at.group, row);
            gathered[r] = row;
          }
          gatheredFor = at.group;
        }
        if (!gather)
          job.aOffset = at.group * groupIn;
        tile(first, at, pair, 0, job);
        advance(at, pair ? 2 : 1);
      }
    }
  }

  /// One reduction block (taps [t0, t1) at input channels [c0, c0 + length)
  /// of the group) for tiles [tile0, tile1) of one panel, or of it and the
  /// next when \p pair.
  void reductionBlock(int64_t panel, bool pair, int64_t tile0, int64_t tile1,
                      int64_t t0, int64_t t1, int64_t c0, int64_t length,
                      bool firstBlock, bool lastBlock) const {
    const float *ptr[kMaxPointers];
    const PanelAt at = panelAt(panel);
    for (int64_t t = tile0; t < tile1; ++t) {
      int64_t first = t * MR, rows = std::min(MR, pixels() - first);
      rowPointers(first, rows, t0, t1, ptr);
      GemmTile job;
      job.rows = rows;
      job.segments = t1 - t0;
      job.length = length;
      job.a = ptr;
      job.aOffset = at.group * groupIn + c0;
      job.bStride = groupIn * NR;
      job.first = firstBlock;
      job.last = lastBlock;
      job.lo = lo;
      job.hi = hi;
      tile(first, at, pair, t0 * groupIn + c0, job);
    }
  }
};

/// Splits \p count items into about \p parts chunks of at least one.
int64_t chunkFor(int64_t count, int64_t parts) {
  return std::max<int64_t>(1, (count + parts - 1) / parts);
}

void runAll(const Run &run, size_t threads) {
  const int64_t tiles = (run.pixels() + MR - 1) / MR;
  const int64_t panels = run.panels();
  // Enough work items that the threads share them evenly.
  const int64_t wanted = 4 * static_cast<int64_t>(threads);
  ThreadPool *pool = threads > 1 ? &ThreadPool::shared() : nullptr;
  auto parallel = [&](int64_t count, auto &&body) {
    if (pool)
      pool->parallelFor(count, 1, body);
    else
      body(0, count);
  };
  bool whole = run.depth * run.groupOut * static_cast<int64_t>(sizeof(float)) <=
               kWholeReductionBytes;
  if (whole || run.depth <= kDepthBlock) {
    // Items: a run of tiles x a run of panels (several panels per tile
    // when there are few tiles, as in a fully connected layer).
    // Even runs of panels where the ISA runs them in pairs.
    int64_t panelChunk = roundUp(chunkFor(panels, chunkFor(wanted, tiles)),
                                 run.pairKernel ? 2 : 1);
    int64_t panelChunks = (panels + panelChunk - 1) / panelChunk;
    parallel(tiles * panelChunks, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        int64_t tile = item / panelChunks, chunk = item % panelChunks;
        run.wholeReduction(tile, tile + 1, chunk * panelChunk,
                           std::min(panels, (chunk + 1) * panelChunk));
      }
    });
    return;
  }
  // Reduction blocks: whole taps of all channels when a tap has fewer than
  // a block's k values, else channel ranges of one tap.
  int64_t tapsPerBlock = std::max<int64_t>(1, kDepthBlock / run.groupIn);
  int64_t channelChunks = chunkFor(run.groupIn, kDepthBlock);
  int64_t length = chunkFor(run.groupIn, channelChunks);
  // A slot: one panel, or two where the ISA pairs them (within a group).
  const int64_t slot = run.pairKernel ? 2 : 1;
  const int64_t slotsPerGroup = (run.panelsPerGroup + slot - 1) / slot;
  const int64_t slots = slotsPerGroup * run.g.groups;
  int64_t tileChunk = chunkFor(tiles, chunkFor(wanted, slots));
  int64_t tileChunks = (tiles + tileChunk - 1) / tileChunk;
  for (int64_t t0 = 0; t0 < run.taps; t0 += tapsPerBlock) {
    int64_t t1 = std::min(run.taps, t0 + tapsPerBlock);
    for (int64_t c0 = 0; c0 < run.groupIn; c0 += length) {
      int64_t used = std::min(length, run.groupIn - c0);
      bool firstBlock = t0 == 0 && c0 == 0;
      bool lastBlock = t1 == run.taps && c0 + used == run.groupIn;
      // Items: one slot x a run of tiles, a slot's tiles adjacent so its
      // slice of weights stays in cache.
      parallel(slots * tileChunks, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
          int64_t index = item / tileChunks, chunk = item % tileChunks;
          int64_t group = index / slotsPerGroup;
          int64_t panel =
              group * run.panelsPerGroup + index % slotsPerGroup * slot;
          int64_t slotEnd =
              std::min(panel + slot, (group + 1) * run.panelsPerGroup);
          bool pair = run.pairs(run.panelAt(panel), slotEnd);
          for (int64_t p = panel; p < slotEnd; p += pair ? 2 : 1)
            run.reductionBlock(p, pair, chunk * tileChunk,
                               std::min(tiles, (chunk + 1) * tileChunk), t0, t1,
                               c0, used, firstBlock, lastBlock);
        }
      });
    }
  }
}

} // namespace

void PackedConvolution::run(const float *in, float *out, float outputMin,
                            float outputMax) const {
  runAll(Run(geometry_, packed_, in, out, outputMin, outputMax, chosenIsa()),
         ThreadPool::shared().concurrency());
}

bool PackedConvolution::runWith(const char *name, const float *in, float *out,
                                float outputMin, float outputMax) const {
  for (const Isa &candidate : kIsas)
    if (std::strcmp(candidate.name, name) == 0 && cpuHasIsa(candidate.name)) {
      runAll(Run(geometry_, packed_, in, out, outputMin, outputMax, candidate),
             1);
      return true;
    }
  return false;
}

} // namespace etch::runtime::optimized
