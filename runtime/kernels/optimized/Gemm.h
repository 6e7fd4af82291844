// Single-precision GEMM for the optimized kernels: C += A . B, blocked for
// the cache, with AVX-512 and AVX2+FMA micro-kernels picked from the CPU's
// features at run time and a scalar fallback. No allocation: B's panels are
// packed into a buffer on the stack.
#pragma once

#include <cstdint>

namespace etch::runtime::optimized {

struct GemmShape {
  int64_t m, n, k;
};

/// One operand: row-major rows `stride` elements apart.
struct GemmMatrix {
  const float *data;
  int64_t stride;
};

/// C[m, n] (row stride ldc) += A[m, k] . B, where B is [k, n] or, with
/// \p bTransposed, stored as [n, k] (linear's weights). C must hold the
/// addend (zeros, a bias, beta * self) on entry.
void gemmAccumulate(const GemmShape &shape, GemmMatrix a, GemmMatrix b,
                    bool bTransposed, float *c, int64_t ldc);

/// Rows [k0, k0 + kc) and columns [n0, n0 + width) of a B that is not a
/// matrix in memory (a convolution's input windows), to be packed as
/// packed[p * nr + j] = B[k0 + p][n0 + j], zeros from column width to nr.
/// The widest panel any micro-kernel packs (GemmPanel::nr).
inline constexpr int64_t kGemmMaxPanelColumns = 32;
struct GemmPanel {
  int64_t k0, kc, n0, width, nr;
};
struct GemmPanelSource {
  void (*pack)(const void *context, const GemmPanel &panel, float *packed);
  const void *context;
};

/// C[m, n] += A[m, k] . B with B's panels packed by \p b.
void gemmAccumulate(const GemmShape &shape, GemmMatrix a, GemmPanelSource b,
                    float *c, int64_t ldc);

/// Which micro-kernel gemmAccumulate uses on this CPU: "avx512", "avx2" or
/// "scalar" (CpuFeatures.h: ETCH_CPU_ISA lowers the choice).
const char *gemmIsa();

/// gemmAccumulate with the named micro-kernel, so tests cover every one the
/// CPU runs; false (and nothing computed) when cpuHasIsa does not allow it.
bool gemmAccumulateWith(const char *isa, const GemmShape &shape, GemmMatrix a,
                        GemmMatrix b, bool bTransposed, float *c, int64_t ldc);

} // namespace etch::runtime::optimized
