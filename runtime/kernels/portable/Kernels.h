// The portable kernels: one validate/run pair per Edge op.
#pragma once

#include "runtime/kernels/KernelCall.h"

namespace etch::runtime::portable {

/// The portable kernel for \p name, or null. The executor looks kernels up
/// through findKernel (KernelCall.h), which prefers optimized run functions.
const KernelEntry *findPortableKernel(const char *name);
/// Every portable kernel: the reference set of ops the runtime executes.
Span<const KernelEntry> portableKernels();

#define ETCH_DECLARE_KERNEL(Name)                                              \
  Error validate##Name(const KernelCall &call);                                \
  void run##Name(const KernelCall &call);
ETCH_DECLARE_KERNEL(Add)
ETCH_DECLARE_KERNEL(Sub)
ETCH_DECLARE_KERNEL(Mul)
ETCH_DECLARE_KERNEL(Div)
ETCH_DECLARE_KERNEL(Pow)
ETCH_DECLARE_KERNEL(Maximum)
ETCH_DECLARE_KERNEL(Minimum)
ETCH_DECLARE_KERNEL(Remainder)
ETCH_DECLARE_KERNEL(BitwiseLeftShift)
ETCH_DECLARE_KERNEL(BitwiseRightShift)
ETCH_DECLARE_KERNEL(Fmod)
ETCH_DECLARE_KERNEL(SymSize)
ETCH_DECLARE_KERNEL(Full)
ETCH_DECLARE_KERNEL(Arange)
ETCH_DECLARE_KERNEL(Clamp)
ETCH_DECLARE_KERNEL(Convolution)
ETCH_DECLARE_KERNEL(Convolution3d)
ETCH_DECLARE_KERNEL(LinalgDet)
ETCH_DECLARE_KERNEL(Addmm)
ETCH_DECLARE_KERNEL(Linear)
ETCH_DECLARE_KERNEL(Mm)
ETCH_DECLARE_KERNEL(Bmm)
ETCH_DECLARE_KERNEL(MaxPool2d)
ETCH_DECLARE_KERNEL(MaxPool2dWithIndices)
ETCH_DECLARE_KERNEL(AvgPool2d)
ETCH_DECLARE_KERNEL(MaxPool3d)
ETCH_DECLARE_KERNEL(AvgPool3d)
ETCH_DECLARE_KERNEL(NonMaxSuppression)
ETCH_DECLARE_KERNEL(UniqueDim)
ETCH_DECLARE_KERNEL(RoiAlign)
ETCH_DECLARE_KERNEL(AdaptiveAvgPool2d)
ETCH_DECLARE_KERNEL(UpsampleNearest2d)
ETCH_DECLARE_KERNEL(UpsampleBilinear2d)
ETCH_DECLARE_KERNEL(BatchNorm)
ETCH_DECLARE_KERNEL(LayerNorm)
ETCH_DECLARE_KERNEL(Softmax)
ETCH_DECLARE_KERNEL(Mean)
ETCH_DECLARE_KERNEL(Sum)
ETCH_DECLARE_KERNEL(Prod)
ETCH_DECLARE_KERNEL(Amax)
ETCH_DECLARE_KERNEL(Amin)
ETCH_DECLARE_KERNEL(Reshape)
ETCH_DECLARE_KERNEL(Permute)
ETCH_DECLARE_KERNEL(Cat)
ETCH_DECLARE_KERNEL(Slice)
ETCH_DECLARE_KERNEL(SliceScatter)
ETCH_DECLARE_KERNEL(Select)
ETCH_DECLARE_KERNEL(Expand)
ETCH_DECLARE_KERNEL(Embedding)
ETCH_DECLARE_KERNEL(Where)
ETCH_DECLARE_KERNEL(ToCopy)
ETCH_DECLARE_KERNEL(ConstantPadNd)
ETCH_DECLARE_KERNEL(LogicalNot)
ETCH_DECLARE_KERNEL(Any)
ETCH_DECLARE_KERNEL(All)
ETCH_DECLARE_KERNEL(Cumsum)
ETCH_DECLARE_KERNEL(Topk)
ETCH_DECLARE_KERNEL(Sort)
ETCH_DECLARE_KERNEL(Unique)
ETCH_DECLARE_KERNEL(Nonzero)
ETCH_DECLARE_KERNEL(Gather)
ETCH_DECLARE_KERNEL(Scatter)
ETCH_DECLARE_KERNEL(GridSampler2d)
ETCH_DECLARE_KERNEL(IndexSelect)
ETCH_DECLARE_KERNEL(IndexPut)
ETCH_DECLARE_KERNEL(Index)
ETCH_DECLARE_KERNEL(Triu)
ETCH_DECLARE_KERNEL(Tril)
ETCH_DECLARE_KERNEL(ScaledDotProductAttention)
ETCH_DECLARE_KERNEL(Quantize)
ETCH_DECLARE_KERNEL(Dequantize)
ETCH_DECLARE_KERNEL(QuantizedConvolution)
ETCH_DECLARE_KERNEL(QuantizedLinear)
ETCH_DECLARE_KERNEL(DequantizePerChannelGroup)
ETCH_DECLARE_KERNEL(WeightOnlyLinear)
ETCH_DECLARE_KERNEL(WeightOnlyEmbedding)
#undef ETCH_DECLARE_KERNEL

/// Shared by quantized_add and quantized_mul (per-tensor 8-bit, broadcasting).
Error validateQuantizedBinary(const KernelCall &call);
void runQuantizedAdd(const KernelCall &call);
void runQuantizedMul(const KernelCall &call);
/// softmax (or log_softmax) of \p extent values \p stride apart, as the
/// softmax kernels compute each line along their dim.
void softmaxLine(const float *src, float *dst, int64_t extent, int64_t stride,
                 bool logarithm);
/// Shared by every float activation (same shape and float32).
Error validateUnary(const KernelCall &call);
void runRelu(const KernelCall &call);
void runSigmoid(const KernelCall &call);
void runTanh(const KernelCall &call);
void runSilu(const KernelCall &call);
void runHardswish(const KernelCall &call);
void runHardsigmoid(const KernelCall &call);
void runGelu(const KernelCall &call);
void runHardtanh(const KernelCall &call);
void runLeakyRelu(const KernelCall &call);
void runElu(const KernelCall &call);
void runLogSoftmax(const KernelCall &call);
Error validateUnaryNumeric(const KernelCall &call);
void runExp(const KernelCall &call);
void runLog(const KernelCall &call);
void runSqrt(const KernelCall &call);
void runRsqrt(const KernelCall &call);
void runNeg(const KernelCall &call);
void runAbs(const KernelCall &call);
void runErf(const KernelCall &call);
void runSin(const KernelCall &call);
void runCos(const KernelCall &call);
void runReciprocal(const KernelCall &call);
void runFloor(const KernelCall &call);
void runCeil(const KernelCall &call);
void runRound(const KernelCall &call);
void runTan(const KernelCall &call);
void runAsin(const KernelCall &call);
void runAcos(const KernelCall &call);
void runAtan(const KernelCall &call);
void runSinh(const KernelCall &call);
void runCosh(const KernelCall &call);
void runAsinh(const KernelCall &call);
void runAcosh(const KernelCall &call);
void runAtanh(const KernelCall &call);
void runExpm1(const KernelCall &call);
void runLog1p(const KernelCall &call);
void runLog2(const KernelCall &call);
void runLog10(const KernelCall &call);
void runTrunc(const KernelCall &call);
void runSign(const KernelCall &call);
/// Shared by the comparisons (bool output, broadcasting).
Error validateCompare(const KernelCall &call);
void runEq(const KernelCall &call);
void runNe(const KernelCall &call);
void runLt(const KernelCall &call);
void runLe(const KernelCall &call);
void runGt(const KernelCall &call);
void runGe(const KernelCall &call);
/// Shared by logical_and, logical_or, logical_xor (bool output).
Error validateLogicalBinary(const KernelCall &call);
void runLogicalAnd(const KernelCall &call);
void runLogicalOr(const KernelCall &call);
void runLogicalXor(const KernelCall &call);
/// Shared by argmax and argmin.
Error validateArgReduction(const KernelCall &call);
void runArgmax(const KernelCall &call);
void runArgmin(const KernelCall &call);

} // namespace etch::runtime::portable
