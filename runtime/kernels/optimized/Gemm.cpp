// Blocked GEMM: for each block of KC rows of B and each NR-wide panel of its
// columns, the panel is packed (zero-padded to NR columns) and every MR rows
// of A run through a register-tiled micro-kernel that keeps an MR x NR tile
// of C in vector registers. Tiles at the M or N edge go through a local tile
// so the micro-kernels only see full tiles.
#include "runtime/kernels/optimized/Gemm.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/GemmMicrokernel.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

constexpr int64_t kMaxNr = kGemmMaxPanelColumns;
constexpr int64_t kMaxMr = 8;
// Rows of B per packed block: a 256 x 32 panel is 32 KiB, L1-sized.
constexpr int64_t kKc = 256;

/// A micro-kernel: c[MR x NR] (row stride ldc) += a rows (pointers, since
/// edge tiles repeat the last row) . packed[kc x NR].
using MicroKernel = void (*)(int64_t kc, const float *const *aRows,
                             const float *packed, float *c, int64_t ldc);

struct Isa {
  const char *name;
  int64_t mr, nr;
  MicroKernel kernel;
};

/// The shared 6 x 16 micro-kernels (GemmMicrokernel.h), adding one
/// panel's product into c.
template <GemmMicrokernel kernel>
void sharedTile(int64_t kc, const float *const *aRows, const float *packed,
                float *c, int64_t ldc) {
  GemmTile tile;
  tile.length = kc;
  tile.a = aRows;
  tile.b = packed;
  tile.c = c;
  tile.ldc = ldc;
  kernel(tile);
}

__attribute__((target("avx512f"))) void
microAvx512(int64_t kc, const float *const *aRows, const float *packed,
            float *c, int64_t ldc) {
  constexpr int MR = 8;
  __m512 acc[MR][2];
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm512_loadu_ps(c + i * ldc);
    acc[i][1] = _mm512_loadu_ps(c + i * ldc + 16);
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b0 = _mm512_loadu_ps(packed + p * 32);
    __m512 b1 = _mm512_loadu_ps(packed + p * 32 + 16);
    for (int i = 0; i < MR; ++i) {
      __m512 a = _mm512_set1_ps(aRows[i][p]);
      acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < MR; ++i) {
    _mm512_storeu_ps(c + i * ldc, acc[i][0]);
    _mm512_storeu_ps(c + i * ldc + 16, acc[i][1]);
  }
}

const Isa kIsas[] = {
    {"avx512", 8, 32, microAvx512},
    {"avx2", kTileRows, kTileColumns, sharedTile<gemmMicrokernelAvx2>},
    {"scalar", kTileRows, kTileColumns, sharedTile<gemmMicrokernelScalar>},
};

const Isa &selectIsa() {
  for (const Isa &isa : kIsas)
    if (cpuHasIsa(isa.name))
      return isa;
  return kIsas[sizeof(kIsas) / sizeof(kIsas[0]) - 1];
}

const Isa &isa() {
  static const Isa &chosen = selectIsa();
  return chosen;
}

/// packed[p * nr + j] = B[k0 + p][n0 + j], zero past the last column.
void packPanel(GemmMatrix b, bool bTransposed, int64_t k0, int64_t kc,
               int64_t n0, int64_t width, int64_t nr, float *packed) {
  for (int64_t p = 0; p < kc; ++p) {
    float *row = packed + p * nr;
    for (int64_t j = 0; j < width; ++j)
      row[j] = bTransposed ? b.data[(n0 + j) * b.stride + k0 + p]
                           : b.data[(k0 + p) * b.stride + n0 + j];
    std::fill(row + width, row + nr, 0.0f);
  }
}

/// B as a matrix in memory.
struct MatrixPanels {
  GemmMatrix b;
  bool bTransposed;
  void operator()(int64_t k0, int64_t kc, int64_t n0, int64_t width, int64_t nr,
                  float *packed) const {
    packPanel(b, bTransposed, k0, kc, n0, width, nr, packed);
  }
};

/// B through its caller's packing function.
struct SourcePanels {
  GemmPanelSource source;
  void operator()(int64_t k0, int64_t kc, int64_t n0, int64_t width, int64_t nr,
                  float *packed) const {
    source.pack(source.context, {k0, kc, n0, width, nr}, packed);
  }
};

template <typename Panels>
void run(const Isa &chosen, const GemmShape &shape, GemmMatrix a,
         const Panels &panels, float *c, int64_t ldc) {
  const int64_t mr = chosen.mr, nr = chosen.nr;
  alignas(64) float packed[kKc * kMaxNr];
  alignas(64) float edge[kMaxMr * kMaxNr];
  const float *rows[kMaxMr];
  for (int64_t k0 = 0; k0 < shape.k; k0 += kKc) {
    int64_t kc = std::min(kKc, shape.k - k0);
    for (int64_t n0 = 0; n0 < shape.n; n0 += nr) {
      int64_t width = std::min(nr, shape.n - n0);
      panels(k0, kc, n0, width, nr, packed);
      for (int64_t m0 = 0; m0 < shape.m; m0 += mr) {
        int64_t height = std::min(mr, shape.m - m0);
        for (int64_t i = 0; i < mr; ++i)
          rows[i] = a.data + (m0 + std::min(i, height - 1)) * a.stride + k0;
        float *tile = c + m0 * ldc + n0;
        if (height == mr && width == nr) {
          chosen.kernel(kc, rows, packed, tile, ldc);
          continue;
        }
        // Edge tile: through a full-size local tile.
        for (int64_t i = 0; i < mr; ++i)
          for (int64_t j = 0; j < nr; ++j)
            edge[i * nr + j] =
                i < height && j < width ? tile[i * ldc + j] : 0.0f;
        chosen.kernel(kc, rows, packed, edge, nr);
        for (int64_t i = 0; i < height; ++i)
          std::memcpy(tile + i * ldc, edge + i * nr, width * sizeof(float));
      }
    }
  }
}

} // namespace

const char *gemmIsa() { return isa().name; }

void gemmAccumulate(const GemmShape &shape, GemmMatrix a, GemmMatrix b,
                    bool bTransposed, float *c, int64_t ldc) {
  run(isa(), shape, a, MatrixPanels{b, bTransposed}, c, ldc);
}

void gemmAccumulate(const GemmShape &shape, GemmMatrix a, GemmPanelSource b,
                    float *c, int64_t ldc) {
  run(isa(), shape, a, SourcePanels{b}, c, ldc);
}

bool gemmAccumulateWith(const char *name, const GemmShape &shape, GemmMatrix a,
                        GemmMatrix b, bool bTransposed, float *c,
                        int64_t ldc) {
  for (const Isa &candidate : kIsas)
    if (std::strcmp(candidate.name, name) == 0 &&
        cpuHasIsa(candidate.name)) {
      run(candidate, shape, a, MatrixPanels{b, bTransposed}, c, ldc);
      return true;
    }
  return false;
}

} // namespace etch::runtime::optimized
