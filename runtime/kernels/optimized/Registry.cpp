// The optimized run functions, by Edge op name.
#include "runtime/kernels/optimized/Kernels.h"

namespace etch::runtime::optimized {
namespace {

const OptimizedKernel kKernels[] = {
    {"edge.linear", runLinear},
    {"edge.mm", runMm},
    {"edge.bmm", runBmm},
    {"edge.addmm", runAddmm},
    {"edge.gelu", runGelu},
    {"edge.sigmoid", runSigmoid},
    {"edge.silu", runSilu},
    {"edge.permute", runPermute},
    {"edge.transpose", runPermute},
    {"edge.slice", runSlice},
    {"edge.layer_norm", runLayerNorm},
    {"edge.softmax", runSoftmax},
    {"edge.log_softmax", runLogSoftmax},
};

} // namespace

Span<const OptimizedKernel> optimizedKernels() {
  return Span<const OptimizedKernel>(kKernels,
                                     sizeof(kKernels) / sizeof(kKernels[0]));
}

} // namespace etch::runtime::optimized
