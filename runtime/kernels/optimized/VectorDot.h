// Dot products and scaled accumulations of float rows, in the widest
// vectors the CPU has (chosen once; CpuFeatures.h caps the choice).
#pragma once

#include <cstdint>

namespace etch::runtime::optimized {

/// sum_i a[i] * b[i] (float accumulation in vector lanes).
float dot(const float *a, const float *b, int64_t n);
/// y[i] += alpha * x[i].
void axpy(float alpha, const float *x, float *y, int64_t n);

} // namespace etch::runtime::optimized
