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

/// Which micro-kernel gemmAccumulate uses on this CPU: "avx512", "avx2" or
/// "scalar" (CpuFeatures.h: ETCH_CPU_ISA lowers the choice).
const char *gemmIsa();

/// gemmAccumulate with the named micro-kernel, so tests cover every one the
/// CPU runs; false (and nothing computed) when cpuHasIsa does not allow it.
bool gemmAccumulateWith(const char *isa, const GemmShape &shape, GemmMatrix a,
                        GemmMatrix b, bool bTransposed, float *c, int64_t ldc);

} // namespace etch::runtime::optimized
