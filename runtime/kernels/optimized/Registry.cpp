// The optimized run functions, by Edge op name.
#include "runtime/kernels/SelectedOperators.h"
#include "runtime/kernels/optimized/Kernels.h"

namespace etch::runtime::optimized {
namespace {

constexpr OptimizedKernel kAllKernels[] = {
    {"edge.linear", runLinear},
    {"edge.mm", runMm},
    {"edge.bmm", runBmm},
    {"edge.addmm", runAddmm},
    {"edge.convolution", runConvolution},
    {"edge.convolution3d", runConvolution},
    {"edge.quantized_convolution", runQuantizedConvolution},
    {"edge.quantized_linear", runQuantizedLinear},
    {"edge.gelu", runGelu},
    {"edge.sigmoid", runSigmoid},
    {"edge.silu", runSilu},
    {"edge.permute", runPermute},
    {"edge.transpose", runPermute},
    {"edge.slice", runSlice},
    {"edge.layer_norm", runLayerNorm},
    {"edge.softmax", runSoftmax},
    {"edge.log_softmax", runLogSoftmax},
    {"edge.weight_only_linear", runWeightOnlyLinear},
    {"edge.scaled_dot_product_attention", runScaledDotProductAttention},
    {"edge.add", runAdd},
    {"edge.sub", runSub},
    {"edge.mul", runMul},
    {"edge.div", runDiv},
    {"edge.pow", runPow},
    {"edge.mean", runMean},
    {"edge.sum", runSum},
    {"edge.index_put", runIndexPut},
    {"edge.upsample_nearest2d", runUpsampleNearest2d},
    {"edge.upsample_bilinear2d", runUpsampleBilinear2d},
};

constexpr auto kKernels =
    selectEntries<selectedCount(kAllKernels)>(kAllKernels);

} // namespace

Span<const OptimizedKernel> optimizedKernels() {
  return Span<const OptimizedKernel>(kKernels.data(), kKernels.size());
}

} // namespace etch::runtime::optimized
