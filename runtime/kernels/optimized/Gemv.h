// Products of a few input rows with a large matrix (LLM decoding, M = 1):
// memory bound, so each weight is read once for every input row and the
// columns are split across the thread pool. AVX-512 / AVX2+FMA / scalar,
// chosen from the CPU's features (CpuFeatures.h).
#pragma once

#include <cstdint>

namespace etch::runtime::optimized {

/// Input rows up to which linear/mm use these instead of the blocked GEMM.
inline constexpr int64_t kGemvMaxRows = 4;

/// y[i, j] += sum_p x[i, p] * w[j, p] for i < m, j < n: w row-major [n, k]
/// (linear's weight), rows of x and y ldx / ldy apart.
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
