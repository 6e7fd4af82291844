// Products of a few input rows with a large matrix (LLM decoding, M = 1):
// memory bound, so each weight is read once for every input row and the
// columns are split across the thread pool. Prefill chunks (more rows,
// linear's [n, k] weights) run 4 x 4 register blocks without the GEMM's
// packing. AVX-512 / AVX2+FMA / scalar,
// chosen from the CPU's features (CpuFeatures.h).
#pragma once

#include <cstdint>

namespace etch::runtime::optimized {

/// Input rows up to which linear/mm use these instead of the blocked GEMM.
inline constexpr int64_t kGemvMaxRows = 4;
/// Input rows up to which linear (w [n, k]) uses gemvRowsAccumulate's
/// 4 x 4 blocks: packing the GEMM's panels from a transposed operand costs
/// more than its micro-kernel saves below ~128-256 rows (1.2-2x at 16-128
/// rows on Zen 5, etch-llm-kernels-bench).
inline constexpr int64_t kRowsMaxRows = 128;

/// y[i, j] += sum_p x[i, p] * w[j, p] for i < m, j < n: w row-major [n, k]
/// (linear's weight), rows of x and y ldx / ldy apart. Past kGemvMaxRows
/// rows, blocks of 4 weight rows stay in L1 while the inputs pass them.
void gemvRowsAccumulate(int64_t m, int64_t n, int64_t k, const float *x,
                        int64_t ldx, const float *w, float *y, int64_t ldy);

/// The same with w [k, n] (mm's second operand), rows ldw apart (a slice
/// of a wider matrix's columns).
void gemvColumnsAccumulate(int64_t m, int64_t n, int64_t k, const float *x,
                           int64_t ldx, const float *w, int64_t ldw, float *y,
                           int64_t ldy);

/// The ISA the functions above use; "avx512", "avx2" or "scalar".
const char *gemvIsa();

/// The functions above on the named ISA, so tests cover every one this CPU
/// runs; false (nothing computed) when cpuHasIsa does not allow it.
bool gemvRowsAccumulateWith(const char *isa, int64_t m, int64_t n, int64_t k,
                            const float *x, int64_t ldx, const float *w,
                            float *y, int64_t ldy);
bool gemvColumnsAccumulateWith(const char *isa, int64_t m, int64_t n,
                               int64_t k, const float *x, int64_t ldx,
                               const float *w, int64_t ldw, float *y,
                               int64_t ldy);

} // namespace etch::runtime::optimized
