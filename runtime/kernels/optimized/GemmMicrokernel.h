// The f32 GEMM micro-kernels shared by PackedConvolution (implicit GEMM on
// packed weights) and gemmAccumulate (linear, matmul): a 6 x 16 tile of the
// output whose twelve 8-wide sums stay in vector registers over the whole
// reduction (15 of AVX2's 16 ymm registers; with AVX-512, 6 x 32 in twelve
// 16-wide sums; test/runtime/kernels/optimized/
// check-register-spills.py fails the build's tests on a stack access in
// the inner loop, where Debian's XNNPACK AVX2 kernels spill one sum and
// run at half speed).
#pragma once

#include <cstdint>

namespace etch::runtime::optimized {

constexpr int64_t kTileRows = 6;
constexpr int64_t kTileColumns = 16;

/// One micro-kernel call: output rows [0, rows) of a 6 x 16 tile at c (row
/// stride ldc), summed over `segments` segments of `length` k values: row
/// r of segment s reads (a[s * 6 + r] + aOffset)[0, length) against the
/// packed rows b + s * bStride (16 floats per k, 32-byte aligned). Rows
/// past `rows` are computed from their pointers but never stored. first:
/// the sums start from bias[0, 16) (else from c); last: the results are
/// clamped to [lo, hi].
/// narrow: only the tile's first 8 columns exist at c (a group's last
/// panel of 8 outputs): sums start from and store to those alone (a local
/// tile and copies cost more than a short reduction).
/// Two-panel kernels (gemmMicrokernelAvx512Pair, never narrow) compute a 6 x 32
/// tile: the second panel's packed rows and bias lie bPanelStride floats after
/// the first's, its outputs 16 columns right of c.
struct GemmTile {
  int64_t rows = kTileRows, segments = 1, length = 0;
  const float *const *a = nullptr;
  int64_t aOffset = 0;
  const float *b = nullptr;
  int64_t bStride = 0, bPanelStride = 0;
  const float *bias = nullptr;
  float *c = nullptr;
  int64_t ldc = 0;
  bool first = false, last = false, narrow = false;
  float lo = 0.0f, hi = 0.0f;
};

using GemmMicrokernel = void (*)(const GemmTile &);

/// AVX2 + FMA: only where cpuHasIsa("avx2").
void gemmMicrokernelAvx2(const GemmTile &tile);
/// AVX-512F, two panels (12 zmm sums): only where cpuHasIsa("avx512").
/// One 16-wide panel per row would leave six sums, too few to hide the
/// FMA latency at two FMAs a cycle.
void gemmMicrokernelAvx512Pair(const GemmTile &tile);
/// Any x86-64 CPU (what the compiler makes of plain loops).
void gemmMicrokernelScalar(const GemmTile &tile);

} // namespace etch::runtime::optimized
