// The activation loops of the optimized kernels, for code that runs them on
// buffers of its own (the XNNPACK delegate's fused SiLU step).
#pragma once

#include <cstdint>

namespace etch::runtime::optimized {

/// out[i] = in[i] * sigmoid(in[i]) for i in [0, count), on this CPU's widest
/// ISA path (in == out allowed); the optimized silu kernel's arithmetic
/// (within torch's float32 tolerance: OptimizedKernelsTest).
void silu(const float *in, float *out, int64_t count);

/// silu over [0, count) on the kernel thread pool, in chunks large enough
/// to pay for a thread's share.
void siluParallel(const float *in, float *out, int64_t count);

} // namespace etch::runtime::optimized
