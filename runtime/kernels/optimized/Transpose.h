// Batched 2-D transpose in cache-sized tiles: the permute kernel's swap of
// the last two dims, and the delegates' NCHW <-> NHWC border conversions
// (a [C][H*W] <-> [H*W][C] swap per batch).
#pragma once

#include <cstddef>
#include <cstdint>

namespace etch::runtime::optimized {

/// out[b][c][r] = in[b][r][c] for \p batch matrices of \p rows x \p cols
/// elements of \p elementBytes (1, 2, 4 or 8) bytes; false (nothing written)
/// for other element sizes.
/// 4-byte elements go through AVX2 8 x 8 register blocks where the CPU has
/// them (cpuHasIsa).
bool transposeBatched(const void *in, void *out, int64_t batch, int64_t rows,
                      int64_t cols, size_t elementBytes);

/// transposeBatched on the named path ("avx2": 4-byte elements only, or
/// "scalar"), so tests cover each; false (nothing written) when the CPU or
/// ETCH_CPU_ISA does not allow it or the path lacks the element size.
bool transposeBatchedWith(const char *isa, const void *in, void *out,
                          int64_t batch, int64_t rows, int64_t cols,
                          size_t elementBytes);

} // namespace etch::runtime::optimized
