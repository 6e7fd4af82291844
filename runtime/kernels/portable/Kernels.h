// The portable kernels: one validate/run pair per Edge op.
#pragma once

#include "runtime/kernels/KernelCall.h"

namespace etch::runtime::portable {

/// The portable kernel for \p name, or null. The executor looks kernels up
/// through findKernel (KernelCall.h), which prefers optimized run functions.
const KernelEntry *findPortableKernel(const char *name);
/// Every portable kernel: the reference set of ops the runtime executes.
Span<const KernelEntry> portableKernels();

// validate<Validator> and run<Kernel> of every Edge op with a portable
// kernel, from the list its ODS record generates (PortableKernels.inc).
#define ETCH_PORTABLE_KERNEL(name, Validator, Kernel, shapeFromData)           \
  Error validate##Validator(const KernelCall &call);                           \
  void run##Kernel(const KernelCall &call);
#include "runtime/kernels/portable/PortableKernels.inc"
#undef ETCH_PORTABLE_KERNEL

/// softmax (or log_softmax) of \p extent values \p stride apart, as the
/// softmax kernels compute each line along their dim.
void softmaxLine(const float *src, float *dst, int64_t extent, int64_t stride,
                 bool logarithm);

} // namespace etch::runtime::portable
