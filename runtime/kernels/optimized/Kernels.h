// The optimized CPU kernels: faster run functions for ops the portable
// kernels also implement. Each shares its portable twin's validate function
// (the same checks at load) and must compute the same values within the
// tolerance its test states; the registry prefers these run functions.
#pragma once
#include "runtime/kernels/KernelCall.h"

namespace etch::runtime::optimized {

struct OptimizedKernel {
  const char *name; // the Edge op, as in the portable table
  KernelRunFn run;
};

/// Every optimized kernel.
Span<const OptimizedKernel> optimizedKernels();

void runLinear(const KernelCall &call);
void runMm(const KernelCall &call);
void runBmm(const KernelCall &call);
void runAddmm(const KernelCall &call);
void runConvolution(const KernelCall &call);
void runQuantizedConvolution(const KernelCall &call);
void runQuantizedLinear(const KernelCall &call);
void runGelu(const KernelCall &call);
void runSigmoid(const KernelCall &call);
void runSilu(const KernelCall &call);
void runPermute(const KernelCall &call);
void runSlice(const KernelCall &call);
void runLayerNorm(const KernelCall &call);
void runSoftmax(const KernelCall &call);
void runLogSoftmax(const KernelCall &call);
void runWeightOnlyLinear(const KernelCall &call);
void runScaledDotProductAttention(const KernelCall &call);
void runAdd(const KernelCall &call);
void runSub(const KernelCall &call);
void runMul(const KernelCall &call);
void runDiv(const KernelCall &call);
void runPow(const KernelCall &call);
void runMean(const KernelCall &call);
void runSum(const KernelCall &call);
void runIndexPut(const KernelCall &call);
void runUpsampleNearest2d(const KernelCall &call);
void runUpsampleBilinear2d(const KernelCall &call);

} // namespace etch::runtime::optimized
