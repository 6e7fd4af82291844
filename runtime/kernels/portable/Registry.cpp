// The operator registry: Edge op name -> portable kernel. The compiler
// writes the same names (the Edge ops' names) into the program's operator
// table; test/Transforms checks every Edge op has an entry here.
#include "runtime/kernels/SelectedOperators.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/platform/Platform.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace etch::runtime {
namespace {

using namespace portable;

constexpr KernelEntry kAllKernels[] = {
    {"edge.convolution", validateConvolution, runConvolution},
    {"edge.convolution3d", validateConvolution3d, runConvolution3d},
    {"edge.linalg_det", validateLinalgDet, runLinalgDet},
    {"edge.addmm", validateAddmm, runAddmm},
    {"edge.linear", validateLinear, runLinear},
    {"edge.mm", validateMm, runMm},
    {"edge.bmm", validateBmm, runBmm},
    {"edge.add", validateAdd, runAdd},
    {"edge.sub", validateSub, runSub},
    {"edge.mul", validateMul, runMul},
    {"edge.div", validateDiv, runDiv},
    {"edge.pow", validatePow, runPow},
    {"edge.maximum", validateMaximum, runMaximum},
    {"edge.minimum", validateMinimum, runMinimum},
    {"edge.bitwise_left_shift", validateBitwiseLeftShift, runBitwiseLeftShift},
    {"edge.bitwise_right_shift", validateBitwiseRightShift,
     runBitwiseRightShift},
    {"edge.exp", validateUnary, runExp},
    {"edge.log", validateUnary, runLog},
    {"edge.sqrt", validateUnary, runSqrt},
    {"edge.rsqrt", validateUnary, runRsqrt},
    {"edge.neg", validateUnaryNumeric, runNeg},
    {"edge.abs", validateUnaryNumeric, runAbs},
    {"edge.erf", validateUnary, runErf},
    {"edge.sin", validateUnary, runSin},
    {"edge.cos", validateUnary, runCos},
    {"edge.reciprocal", validateUnary, runReciprocal},
    {"edge.floor", validateUnary, runFloor},
    {"edge.ceil", validateUnary, runCeil},
    {"edge.round", validateUnary, runRound},
    {"edge.tan", validateUnary, runTan},
    {"edge.asin", validateUnary, runAsin},
    {"edge.acos", validateUnary, runAcos},
    {"edge.atan", validateUnary, runAtan},
    {"edge.sinh", validateUnary, runSinh},
    {"edge.cosh", validateUnary, runCosh},
    {"edge.asinh", validateUnary, runAsinh},
    {"edge.acosh", validateUnary, runAcosh},
    {"edge.atanh", validateUnary, runAtanh},
    {"edge.expm1", validateUnary, runExpm1},
    {"edge.log1p", validateUnary, runLog1p},
    {"edge.log2", validateUnary, runLog2},
    {"edge.log10", validateUnary, runLog10},
    {"edge.trunc", validateUnary, runTrunc},
    {"edge.sign", validateUnaryNumeric, runSign},
    {"edge.relu", validateUnary, runRelu},
    {"edge.sigmoid", validateUnary, runSigmoid},
    {"edge.tanh", validateUnary, runTanh},
    {"edge.silu", validateUnary, runSilu},
    {"edge.gelu", validateUnary, runGelu},
    {"edge.hardswish", validateUnary, runHardswish},
    {"edge.hardsigmoid", validateUnary, runHardsigmoid},
    {"edge.hardtanh", validateUnary, runHardtanh},
    {"edge.leaky_relu", validateUnary, runLeakyRelu},
    {"edge.elu", validateUnary, runElu},
    {"edge.clamp", validateClamp, runClamp},
    {"edge.softmax", validateSoftmax, runSoftmax},
    {"edge.log_softmax", validateSoftmax, runLogSoftmax},
    {"edge.mean", validateMean, runMean},
    {"edge.sum", validateSum, runSum},
    {"edge.prod", validateProd, runProd},
    {"edge.amax", validateAmax, runAmax},
    {"edge.amin", validateAmin, runAmin},
    {"edge.argmax", validateArgReduction, runArgmax},
    {"edge.argmin", validateArgReduction, runArgmin},
    {"edge.max_pool2d", validateMaxPool2d, runMaxPool2d},
    {"edge.avg_pool2d", validateAvgPool2d, runAvgPool2d},
    {"edge.max_pool3d", validateMaxPool3d, runMaxPool3d},
    {"edge.max_pool2d_with_indices", validateMaxPool2dWithIndices,
     runMaxPool2dWithIndices},
    {"edge.avg_pool3d", validateAvgPool3d, runAvgPool3d},
    {"edge.upsample_nearest2d", validateUpsampleNearest2d,
     runUpsampleNearest2d},
    {"edge.upsample_bilinear2d", validateUpsampleBilinear2d,
     runUpsampleBilinear2d},
    {"edge.adaptive_avg_pool2d", validateAdaptiveAvgPool2d,
     runAdaptiveAvgPool2d},
    {"edge.batch_norm", validateBatchNorm, runBatchNorm},
    {"edge.layer_norm", validateLayerNorm, runLayerNorm},
    {"edge.view", validateReshape, runReshape},
    {"edge.squeeze", validateReshape, runReshape},
    {"edge.unsqueeze", validateReshape, runReshape},
    {"edge.permute", validatePermute, runPermute},
    {"edge.transpose", validatePermute, runPermute},
    {"edge.cat", validateCat, runCat},
    {"edge.slice", validateSlice, runSlice},
    {"edge.slice_scatter", validateSliceScatter, runSliceScatter},
    {"edge.select", validateSelect, runSelect},
    {"edge.expand", validateExpand, runExpand},
    {"edge.dequantize_per_channel_group", validateDequantizePerChannelGroup,
     runDequantizePerChannelGroup},
    {"edge.weight_only_linear", validateWeightOnlyLinear, runWeightOnlyLinear},
    {"edge.weight_only_embedding", validateWeightOnlyEmbedding,
     runWeightOnlyEmbedding},
    {"edge.embedding", validateEmbedding, runEmbedding},
    {"edge.eq", validateCompare, runEq},
    {"edge.ne", validateCompare, runNe},
    {"edge.lt", validateCompare, runLt},
    {"edge.le", validateCompare, runLe},
    {"edge.gt", validateCompare, runGt},
    {"edge.ge", validateCompare, runGe},
    {"edge.where", validateWhere, runWhere},
    {"edge.to_copy", validateToCopy, runToCopy},
    {"edge.constant_pad_nd", validateConstantPadNd, runConstantPadNd},
    {"edge.remainder", validateRemainder, runRemainder},
    {"edge.fmod", validateFmod, runFmod},
    {"edge.sym_size", validateSymSize, runSymSize},
    {"edge.full", validateFull, runFull},
    {"edge.arange", validateArange, runArange},
    {"edge.logical_and", validateLogicalBinary, runLogicalAnd},
    {"edge.logical_or", validateLogicalBinary, runLogicalOr},
    {"edge.logical_xor", validateLogicalBinary, runLogicalXor},
    {"edge.logical_not", validateLogicalNot, runLogicalNot},
    {"edge.any", validateAny, runAny},
    {"edge.all", validateAll, runAll},
    {"edge.cumsum", validateCumsum, runCumsum},
    {"edge.topk", validateTopk, runTopk},
    {"edge.sort", validateSort, runSort},
    {"edge.unique", validateUnique, runUnique, /*shapeFromData=*/true},
    {"edge.unique_dim", validateUniqueDim, runUniqueDim,
     /*shapeFromData=*/true},
    {"edge.nonzero", validateNonzero, runNonzero, /*shapeFromData=*/true},
    {"edge.non_max_suppression", validateNonMaxSuppression,
     runNonMaxSuppression, /*shapeFromData=*/true},
    {"edge.roi_align", validateRoiAlign, runRoiAlign},
    {"edge.gather", validateGather, runGather},
    {"edge.scatter", validateScatter, runScatter},
    {"edge.grid_sampler_2d", validateGridSampler2d, runGridSampler2d},
    {"edge.index_select", validateIndexSelect, runIndexSelect},
    {"edge.index", validateIndex, runIndex},
    {"edge.index_put", validateIndexPut, runIndexPut},
    {"edge.triu", validateTriu, runTriu},
    {"edge.quantize", validateQuantize, runQuantize},
    {"edge.dequantize", validateDequantize, runDequantize},
    {"edge.quantized_convolution", validateQuantizedConvolution,
     runQuantizedConvolution},
    {"edge.quantized_linear", validateQuantizedLinear, runQuantizedLinear},
    {"edge.quantized_add", validateQuantizedBinary, runQuantizedAdd},
    {"edge.quantized_mul", validateQuantizedBinary, runQuantizedMul},
    {"edge.tril", validateTril, runTril},
    {"edge.scaled_dot_product_attention", validateScaledDotProductAttention,
     runScaledDotProductAttention},
};

// A selective build's (SelectedOperators.h); all of them otherwise.
constexpr auto kKernels =
    selectEntries<selectedCount(kAllKernels)>(kAllKernels);

} // namespace

const KernelEntry *portable::findPortableKernel(const char *name) {
  for (const KernelEntry &entry : kKernels)
    if (std::strcmp(entry.name, name) == 0)
      return &entry;
  return nullptr;
}

Span<const KernelEntry> portable::portableKernels() {
  return Span<const KernelEntry>(kKernels.data(), kKernels.size());
}

Error kernelError(const KernelCall &call, Error error, const char *format,
                  ...) {
  char message[384];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  ET_LOG(Error, "instruction %u (%s): %s", call.instruction, call.opName,
         message);
  return error;
}

} // namespace etch::runtime
