//===- EdgeOps.td - Edge dialect operations ----------------*- tablegen -*-===//
//
// Argument names and order follow the ATen schema of the op's first ATen name
// (`self`, `other`, `dim`, `keepdim`, ...). Attributes that ATen spells as
// `int[]` are DenseI64ArrayAttr, `Scalar`/`float` are F64Attr.
//
//===----------------------------------------------------------------------===//

#ifndef ETCH_EDGE_OPS_TD
#define ETCH_EDGE_OPS_TD

include "EdgeBase.td"

//===----------------------------------------------------------------------===//
// Constants and unknown ops
//===----------------------------------------------------------------------===//

def Edge_ConstantOp : Edge_Op<"constant", [ConstantLike, Pure]> {
  let hasPortableKernel = 0;
  let summary = "A constant tensor (weights, buffers, folded values)";
  let description = [{
    Holds a weight or any other constant tensor. Importers create large
    weights as `dense_resource` blobs so the IR text never inlines them.

    A quantized constant (int8 weights, int32 biases) holds its storage
    values and says its `!quant.uniform` result type after `as`.

    ```mlir
    %w = edge.constant dense_resource<conv1_weight> : tensor<64x3x7x7xf32>
    %q = edge.constant dense<[1, -2]> : tensor<2xi8>
        as tensor<2x!quant.uniform<i8<-127:127>:f32, 0.5>>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Edge_Tensor:$result);
  let builders = [OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
    build($_builder, $_state, value.getType(), value);
  }]>];
  let hasCustomAssemblyFormat = 1;
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Edge_BufferOp : Edge_Op<"buffer", [MemoryEffects<[MemRead]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let hasPortableKernel = 0;
  let summary = "A mutable buffer's contents when the method starts";
  let description = [{
    State that lives across executions of a method (a KV cache, batch-norm
    running statistics): `value` is its initial contents; the function
    result that `etch.buffer_mutations` names after `name` holds its
    contents after the method, which the next execution reads here. Unlike
    `edge.constant` it is never folded: its contents change at run time.
    The importers make one for every buffer the program writes.

    ```mlir
    %cache = edge.buffer "key_cache_0" = dense<0.0> : tensor<1x8x256x64xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, ElementsAttr:$value);
  let results = (outs Edge_Tensor:$result);
  let assemblyFormat = "$name `=` $value attr-dict";
  let hasVerifier = 1;
}

def Edge_CustomOp : Edge_Op<"custom"> {
  let hasPortableKernel = 0;
  let summary = "An operator the Edge dialect does not define (yet)";
  let description = [{
    Keeps an operator the importer could not map, with its operands and
    attributes, so no information is lost. `op_name` is the source name
    (`aten::upsample_bicubic2d`, `onnx::Mod`, ...). Later phases either rewrite
    it or report it as unsupported.

    ```mlir
    %r = edge.custom "aten::frobnicate"(%x) {alpha = 2.0 : f64}
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$op_name, Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat =
      "$op_name `(` $operands `)` attr-dict `:` functional-type($operands, $results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Edge_ConvolutionOp
    : Edge_AtenOp<"convolution", "aten::convolution,aten::conv2d"> {
  let inferRule = "convolution<2>";
  let summary = "2-D convolution, direct or transposed, with optional bias";
  let description = [{
    NCHW input, OIHW weight (IOHW when `transposed`), optional bias of size O.
    `groups` splits channels (groups == C_in: depthwise). Omitted window
    arguments take `aten::conv2d`'s defaults (stride 1, padding 0,
    dilation 1); 1-D convolutions are imported as 2-D ones of height 1.
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$weight,
      Optional<Edge_FloatTensor>:$bias,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<BoolAttr, "false">:$transposed,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$output_padding,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_Convolution3dOp
    : Edge_AtenOp<"convolution3d", "aten::conv3d"> {
  let inferRule = "convolution<3>";
  let summary = "3-D convolution, direct or transposed, with optional bias";
  let description = [{
    `edge.convolution` over NCDHW input with OIDHW weight (IODHW when
    `transposed`): the same arguments with three entries each (D, H, W).
    A separate op because the targets' convolutions are 2-D: this one runs
    on the portable kernel.
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$weight,
      Optional<Edge_FloatTensor>:$bias,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1, 1}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1, 1}">:$dilation,
      DefaultValuedAttr<BoolAttr, "false">:$transposed,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0}">:$output_padding,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_LinalgDetOp : Edge_AtenOp<"linalg_det", "aten::_linalg_det"> {
  let summary = "Determinants of square matrices, with their LU factors";
  let description = [{
    `A` is [..., n, n]; `result` [...] the determinants, `LU` the packed LU
    factors of partial pivoting and `pivots` (1-based row swaps), as ATen's
    `_linalg_det` gives them. A singular matrix has determinant 0.
  }];
  let arguments = (ins Edge_FloatTensor:$A);
  let results = (outs Edge_FloatTensor:$result, Edge_FloatTensor:$LU,
      RankedTensorOf<[I32]>:$pivots);
}

def Edge_AddmmOp : Edge_AtenOp<"addmm", "aten::addmm"> {
  let inferRule = "matmul<2, Mat1TimesMat2>";
  let hasVerifier = 1;
  let summary = "beta * self + alpha * (mat1 @ mat2)";
  let arguments = (ins Edge_FloatTensor:$self, Edge_FloatTensor:$mat1,
      Edge_FloatTensor:$mat2,
      DefaultValuedAttr<F64Attr, "1.0">:$beta,
      DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_LinearOp : Edge_AtenOp<"linear", "aten::linear"> {
  let inferRule = "linear<SameElement>";
  let hasVerifier = 1;
  let summary = "input @ weight^T + bias over the last dimension";
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$weight,
      Optional<Edge_FloatTensor>:$bias);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_MmOp : Edge_AtenOp<"mm", "aten::mm"> {
  let inferRule = "matmul<2>";
  let summary = "Matrix product of two 2-D tensors";
  let arguments = (ins Edge_FloatTensor:$self, Edge_FloatTensor:$mat2);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_BmmOp : Edge_AtenOp<"bmm", "aten::bmm"> {
  let inferRule = "matmul<3>";
  let summary = "Batched matrix product of two 3-D tensors";
  let arguments = (ins Edge_FloatTensor:$self, Edge_FloatTensor:$mat2);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_GroupedMmOp
    : Edge_AtenOp<"grouped_mm", "transformers::grouped_mm_fallback"> {
  let inferRule = "groupedRows";
  let summary = "Rows sorted by group, each times its group's matrix";
  let description = [{
    `input` [S, K] holds rows sorted by group, `weight` [G, K, N] a matrix
    per group and `offs` [G] the cumulative row counts: group g owns rows
    offs[g-1] <= s < offs[g]. Rows from offs[G-1] on are zero (counts past
    S are cut at S). Mixture-of-experts layers sort their token-expert pairs
    by expert and run each expert on its rows (transformers'
    `grouped_mm_fallback`), reading each expert's weights once.
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$weight,
      Edge_IndexTensor:$offs);
  let results = (outs Edge_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Elementwise binary (broadcasting)
//===----------------------------------------------------------------------===//

class Edge_BinaryOp<string mnemonic, string aten, list<Trait> traits = []>
    : Edge_AtenOp<mnemonic, aten, traits> {
  let inferRule = "broadcast";
  let promotedOperands = "self,other";
  let results = (outs Edge_NumericTensor:$result);
  let description = [{
    Both operands broadcast to a common shape (NumPy rules) and must share an
    element type; importers insert explicit casts where ATen would promote.
  }];
}

def Edge_AddOp : Edge_BinaryOp<"add", "aten::add"> {
  let summary = "self + alpha * other";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other,
      DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let hasCanonicalizer = 1;
}

def Edge_SubOp : Edge_BinaryOp<"sub", "aten::sub"> {
  let summary = "self - alpha * other";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other,
      DefaultValuedAttr<F64Attr, "1.0">:$alpha);
}

def Edge_MulOp : Edge_BinaryOp<"mul", "aten::mul"> {
  let summary = "self * other";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other);
}

def Edge_DivOp : Edge_BinaryOp<"div", "aten::div"> {
  let summary = "self / other, optionally rounded ('trunc' or 'floor')";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other,
      OptionalAttr<StrAttr>:$rounding_mode);
  let hasVerifier = 1;
}

def Edge_PowOp : Edge_BinaryOp<"pow", "aten::pow"> {
  let inferRule = "power";
  let summary = "self ** exponent (integers as torch: a negative exponent "
                "gives 1, -1 or 0)";
  let promotedOperands = "self,exponent";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$exponent);
}

def Edge_RemainderOp : Edge_BinaryOp<"remainder", "aten::remainder"> {
  let summary = "self mod other with the sign of other (Python's %)";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other);
}

def Edge_FmodOp : Edge_BinaryOp<"fmod", "aten::fmod"> {
  let summary = "self mod other with the sign of self (C's fmod)";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other);
}

def Edge_BitwiseLeftShiftOp
    : Edge_BinaryOp<"bitwise_left_shift",
                    "aten::bitwise_left_shift,aten::__lshift__"> {
  let summary = "self shifted left by other bits (integers)";
  let description = [{
    Shifts of `other` < 0 or >= the bit width give 0 (C leaves them
    undefined).
  }];
  let arguments = (ins RankedTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>:$self,
      RankedTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>:$other);
}

def Edge_BitwiseRightShiftOp
    : Edge_BinaryOp<"bitwise_right_shift",
                    "aten::bitwise_right_shift,aten::__rshift__"> {
  let summary = "self shifted right by other bits (arithmetic when signed)";
  let description = [{
    Shifts of `other` < 0 or >= the bit width give 0, or -1 for a negative
    signed `self` (what shifting out every bit gives).
  }];
  let arguments = (ins RankedTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>:$self,
      RankedTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>:$other);
}

def Edge_MaximumOp : Edge_BinaryOp<"maximum", "aten::maximum"> {
  let summary = "Elementwise max(self, other)";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other);
}

def Edge_MinimumOp : Edge_BinaryOp<"minimum", "aten::minimum"> {
  let summary = "Elementwise min(self, other)";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other);
}

class Edge_CompareOp<string mnemonic, string aten>
    : Edge_AtenOp<mnemonic, aten> {
  let portableValidator = "Compare";
  let inferRule = "comparison";
  let summary = "Elementwise comparison (broadcasting) producing i1";
  let promotedOperands = "self,other";
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other);
  let results = (outs RankedTensorOf<[I1]>:$result);
}
def Edge_EqOp : Edge_CompareOp<"eq", "aten::eq">;
def Edge_NeOp : Edge_CompareOp<"ne", "aten::ne">;
def Edge_LtOp : Edge_CompareOp<"lt", "aten::lt">;
def Edge_LeOp : Edge_CompareOp<"le", "aten::le">;
def Edge_GtOp : Edge_CompareOp<"gt", "aten::gt">;
def Edge_GeOp : Edge_CompareOp<"ge", "aten::ge">;

def Edge_WhereOp : Edge_AtenOp<"where", "aten::where"> {
  let summary = "condition ? self : other, all three broadcasting";
  let promotedOperands = "self,other";
  let arguments = (ins RankedTensorOf<[I1]>:$condition, Edge_NumericTensor:$self,
      Edge_NumericTensor:$other);
  let results = (outs Edge_NumericTensor:$result);
}

class Edge_LogicalBinaryOp<string mnemonic, string aten>
    : Edge_AtenOp<mnemonic, aten> {
  let portableValidator = "LogicalBinary";
  let inferRule = "logical";
  let description = [{
    Operands broadcast (NumPy rules); any element type, nonzero is true.
  }];
  let arguments = (ins Edge_NumericTensor:$self, Edge_NumericTensor:$other);
  let results = (outs RankedTensorOf<[I1]>:$result);
}
def Edge_LogicalAndOp : Edge_LogicalBinaryOp<"logical_and", "aten::logical_and"> {
  let summary = "self && other, elementwise";
}
def Edge_LogicalOrOp : Edge_LogicalBinaryOp<"logical_or", "aten::logical_or"> {
  let summary = "self || other, elementwise";
}
def Edge_LogicalXorOp : Edge_LogicalBinaryOp<"logical_xor", "aten::logical_xor"> {
  let summary = "self != other as truth values, elementwise";
}
def Edge_LogicalNotOp : Edge_AtenOp<"logical_not", "aten::logical_not"> {
  let inferRule = "sameShape<0, AsI1>";
  let summary = "!self, elementwise (nonzero is true)";
  let arguments = (ins Edge_NumericTensor:$self);
  let results = (outs RankedTensorOf<[I1]>:$result);
}

def Edge_ToCopyOp : Edge_AtenOp<"to_copy", "aten::_to_copy"> {
  let inferRule = "sameShape<0, AsDtype>";
  let summary = "Convert to element type `dtype` (a copy, same shape)";
  let description = [{
    Float to integer truncates toward zero; anything to i1 is `!= 0`.
  }];
  let arguments = (ins Edge_Tensor:$self, TypeAttr:$dtype);
  let results = (outs Edge_Tensor:$result);
}

def Edge_ConstantPadNdOp : Edge_AtenOp<"constant_pad_nd", "aten::constant_pad_nd"> {
  let summary = "Pad with `value`; `pad` lists (before, after) pairs from the last dim";
  let description = [{
    As ATen: `pad = [last_before, last_after, second_last_before, ...]`;
    negative entries crop.
  }];
  let arguments = (ins Edge_NumericTensor:$self, DenseI64ArrayAttr:$pad,
      DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Edge_NumericTensor:$result);
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

def Edge_ReluOp : Edge_UnaryFloatOp<"relu", "aten::relu"> {
  let summary = "max(x, 0)";
}
def Edge_SigmoidOp : Edge_UnaryFloatOp<"sigmoid", "aten::sigmoid"> {
  let summary = "1 / (1 + exp(-x))";
}
def Edge_TanhOp : Edge_UnaryFloatOp<"tanh", "aten::tanh"> {
  let summary = "Hyperbolic tangent";
}
def Edge_SiluOp : Edge_UnaryFloatOp<"silu", "aten::silu"> {
  let summary = "x * sigmoid(x)";
}
def Edge_HardswishOp : Edge_UnaryFloatOp<"hardswish", "aten::hardswish"> {
  let summary = "x * relu6(x + 3) / 6";
}
def Edge_HardsigmoidOp : Edge_UnaryFloatOp<"hardsigmoid", "aten::hardsigmoid"> {
  let summary = "relu6(x + 3) / 6";
}

// Elementwise math (attention, normalization, rotary embeddings).
def Edge_ExpOp : Edge_UnaryFloatOp<"exp", "aten::exp"> { let summary = "e^x"; }
def Edge_LogOp : Edge_UnaryFloatOp<"log", "aten::log"> { let summary = "Natural logarithm"; }
def Edge_SqrtOp : Edge_UnaryFloatOp<"sqrt", "aten::sqrt"> { let summary = "Square root"; }
def Edge_RsqrtOp : Edge_UnaryFloatOp<"rsqrt", "aten::rsqrt"> { let summary = "1 / sqrt(x)"; }
def Edge_NegOp : Edge_UnaryNumericOp<"neg", "aten::neg"> { let summary = "-x"; }
def Edge_AbsOp : Edge_UnaryNumericOp<"abs", "aten::abs"> { let summary = "|x|"; }
def Edge_ErfOp : Edge_UnaryFloatOp<"erf", "aten::erf"> { let summary = "Error function"; }
def Edge_SinOp : Edge_UnaryFloatOp<"sin", "aten::sin"> { let summary = "Sine"; }
def Edge_CosOp : Edge_UnaryFloatOp<"cos", "aten::cos"> { let summary = "Cosine"; }
def Edge_TanOp : Edge_UnaryFloatOp<"tan", "aten::tan"> { let summary = "Tangent"; }
def Edge_AsinOp : Edge_UnaryFloatOp<"asin", "aten::asin"> { let summary = "Arcsine"; }
def Edge_AcosOp : Edge_UnaryFloatOp<"acos", "aten::acos"> { let summary = "Arccosine"; }
def Edge_AtanOp : Edge_UnaryFloatOp<"atan", "aten::atan"> { let summary = "Arctangent"; }
def Edge_SinhOp : Edge_UnaryFloatOp<"sinh", "aten::sinh"> { let summary = "Hyperbolic sine"; }
def Edge_CoshOp : Edge_UnaryFloatOp<"cosh", "aten::cosh"> { let summary = "Hyperbolic cosine"; }
def Edge_AsinhOp : Edge_UnaryFloatOp<"asinh", "aten::asinh"> { let summary = "Inverse hyperbolic sine"; }
def Edge_AcoshOp : Edge_UnaryFloatOp<"acosh", "aten::acosh"> { let summary = "Inverse hyperbolic cosine"; }
def Edge_AtanhOp : Edge_UnaryFloatOp<"atanh", "aten::atanh"> { let summary = "Inverse hyperbolic tangent"; }
def Edge_Expm1Op : Edge_UnaryFloatOp<"expm1", "aten::expm1"> { let summary = "e^x - 1, accurate near 0"; }
def Edge_Log1pOp : Edge_UnaryFloatOp<"log1p", "aten::log1p"> { let summary = "log(1 + x), accurate near 0"; }
def Edge_Log2Op : Edge_UnaryFloatOp<"log2", "aten::log2"> { let summary = "Base-2 logarithm"; }
def Edge_Log10Op : Edge_UnaryFloatOp<"log10", "aten::log10"> { let summary = "Base-10 logarithm"; }
def Edge_TruncOp : Edge_UnaryFloatOp<"trunc", "aten::trunc"> { let summary = "Round toward zero"; }
def Edge_SignOp : Edge_UnaryNumericOp<"sign", "aten::sign"> { let summary = "-1, 0 or 1 (NaN stays NaN)"; }
def Edge_ReciprocalOp : Edge_UnaryFloatOp<"reciprocal", "aten::reciprocal"> {
  let summary = "1 / x";
}
def Edge_FloorOp : Edge_UnaryFloatOp<"floor", "aten::floor"> { let summary = "Round down"; }
def Edge_CeilOp : Edge_UnaryFloatOp<"ceil", "aten::ceil"> { let summary = "Round up"; }
def Edge_RoundOp : Edge_UnaryFloatOp<"round", "aten::round"> {
  let summary = "Round to nearest, ties to even (as ATen)";
}

def Edge_GeluOp : Edge_UnaryFloatOp<"gelu", "aten::gelu"> {
  let summary = "Gaussian error linear unit, exact ('none') or 'tanh'";
  let arguments = (ins Edge_FloatTensor:$self,
      DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let hasVerifier = 1;
}

def Edge_HardtanhOp : Edge_UnaryFloatOp<"hardtanh", "aten::hardtanh"> {
  let summary = "Clamp to [min_val, max_val] (relu6 is hardtanh(0, 6))";
  let arguments = (ins Edge_FloatTensor:$self,
      DefaultValuedAttr<F64Attr, "-1.0">:$min_val,
      DefaultValuedAttr<F64Attr, "1.0">:$max_val);
  let hasVerifier = 1;
}

def Edge_LeakyReluOp : Edge_UnaryFloatOp<"leaky_relu", "aten::leaky_relu"> {
  let summary = "x if x > 0 else negative_slope * x";
  let arguments = (ins Edge_FloatTensor:$self,
      DefaultValuedAttr<F64Attr, "0.01">:$negative_slope);
}

def Edge_EluOp : Edge_UnaryFloatOp<"elu", "aten::elu"> {
  let summary = "scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))";
  let arguments = (ins Edge_FloatTensor:$self,
      DefaultValuedAttr<F64Attr, "1.0">:$alpha,
      DefaultValuedAttr<F64Attr, "1.0">:$scale,
      DefaultValuedAttr<F64Attr, "1.0">:$input_scale);
}

def Edge_ClampOp : Edge_AtenOp<"clamp", "aten::clamp"> {
  let inferRule = "likeOperand<0>";
  let summary = "Clamp to [min, max]; either bound may be absent";
  let arguments = (ins Edge_NumericTensor:$self,
      OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
  let results = (outs Edge_NumericTensor:$result);
  let hasVerifier = 1;
}

def Edge_SoftmaxOp : Edge_AtenOp<"softmax", "aten::_softmax,aten::softmax"> {
  let inferRule = "softmax";
  let summary = "Softmax along `dim`";
  let arguments = (ins Edge_FloatTensor:$self, I64Attr:$dim,
      DefaultValuedAttr<BoolAttr, "false">:$half_to_float);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_LogSoftmaxOp
    : Edge_AtenOp<"log_softmax", "aten::_log_softmax,aten::log_softmax"> {
  let portableValidator = "Softmax";
  let inferRule = "softmax";
  let summary = "Log of softmax along `dim`";
  let arguments = (ins Edge_FloatTensor:$self, I64Attr:$dim,
      DefaultValuedAttr<BoolAttr, "false">:$half_to_float);
  let results = (outs Edge_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Edge_ReductionOp<string mnemonic, string aten>
    : Edge_AtenOp<mnemonic, aten> {
  let inferRule = "reduction";
  let description = [{
    Reduces over `dim` (all dimensions when absent or empty); `keepdim` keeps
    reduced dimensions with size 1.
  }];
  let arguments = (ins Edge_NumericTensor:$self,
      OptionalAttr<DenseI64ArrayAttr>:$dim,
      DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Edge_NumericTensor:$result);
}

def Edge_MeanOp : Edge_ReductionOp<"mean", "aten::mean"> {
  let hasVerifier = 1;
  let summary = "Mean over dimensions";
}
def Edge_SumOp : Edge_ReductionOp<"sum", "aten::sum"> {
  let summary = "Sum over dimensions";
}
def Edge_ProdOp : Edge_ReductionOp<"prod", "aten::prod"> {
  let summary = "Product over dimensions";
}
def Edge_AmaxOp : Edge_ReductionOp<"amax", "aten::amax"> {
  let summary = "Maximum over dimensions";
}
def Edge_AminOp : Edge_ReductionOp<"amin", "aten::amin"> {
  let summary = "Minimum over dimensions";
}

class Edge_ArgReductionOp<string mnemonic, string aten>
    : Edge_AtenOp<mnemonic, aten> {
  let portableValidator = "ArgReduction";
  let inferRule = "argReduction";
  let description = [{
    Index (i64) of the first extreme value along `dim`; without `dim`, over
    the flattened tensor.
  }];
  let arguments = (ins Edge_NumericTensor:$self, OptionalAttr<I64Attr>:$dim,
      DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs RankedTensorOf<[I64]>:$result);
}
def Edge_ArgmaxOp : Edge_ArgReductionOp<"argmax", "aten::argmax"> {
  let summary = "Index of the maximum";
}
def Edge_ArgminOp : Edge_ArgReductionOp<"argmin", "aten::argmin"> {
  let summary = "Index of the minimum";
}

class Edge_TruthReductionOp<string mnemonic, string aten>
    : Edge_AtenOp<mnemonic, aten> {
  let inferRule = "truthReduction";
  let description = [{
    Reduces truth values (nonzero is true) over `dim` (all dimensions when
    absent or empty); `keepdim` keeps reduced dimensions with size 1.
  }];
  let arguments = (ins Edge_NumericTensor:$self,
      OptionalAttr<DenseI64ArrayAttr>:$dim,
      DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs RankedTensorOf<[I1]>:$result);
}
def Edge_AnyOp : Edge_TruthReductionOp<"any", "aten::any"> {
  let summary = "Whether any element is true";
}
def Edge_AllOp : Edge_TruthReductionOp<"all", "aten::all"> {
  let summary = "Whether every element is true";
}

def Edge_CumsumOp : Edge_AtenOp<"cumsum", "aten::cumsum"> {
  let inferRule = "sameShape<0, AsSumElement>";
  let hasVerifier = 1;
  let summary = "Running sum along `dim`";
  let description = [{
    As ATen without `dtype`: floating inputs keep their type, integer and
    bool inputs sum in i64 (importers cast first when `dtype` is given).
  }];
  let arguments = (ins Edge_NumericTensor:$self, I64Attr:$dim);
  let results = (outs Edge_NumericTensor:$result);
}

def Edge_NonzeroOp : Edge_AtenOp<"nonzero", "aten::nonzero",
    [DeclareOpInterfaceMethods<Edge_DataDependentShapeOpInterface>]> {
  let summary = "Coordinates of the nonzero elements, one row each";
  let description = [{
    [n, rank] int64, rows in row-major order of the elements; n depends on
    the values, so the first dim is dynamic, planned at the element count.
  }];
  let arguments = (ins Edge_Tensor:$self);
  let results = (outs RankedTensorOf<[I64]>:$result);
}

def Edge_UniqueOp : Edge_AtenOp<"unique", "aten::_unique2",
    [DeclareOpInterfaceMethods<Edge_DataDependentShapeOpInterface>]> {
  let inferRule = "distinct<FlattenedSlices>";
  let summary = "The distinct values of the flattened tensor, with where they are";
  let description = [{
    `values` ascending (`sorted`) or in order of first occurrence; `indices`
    the first position of each, `inverse` each element's entry in `values`
    (one per element of `self`, flattened), `counts` how often each occurs.
    With `consecutive` (unsorted: ATen's unique_consecutive) only runs of
    equal neighbours merge: a value that comes back after another is a new
    entry. How many values there are depends on the data: planned at the
    element count.
  }];
  let arguments = (ins Edge_NumericTensor:$self,
      DefaultValuedAttr<BoolAttr, "true">:$sorted,
      DefaultValuedAttr<BoolAttr, "false">:$consecutive);
  let results = (outs Edge_NumericTensor:$values,
      RankedTensorOf<[I64]>:$indices, RankedTensorOf<[I64]>:$inverse,
      RankedTensorOf<[I64]>:$counts);
}

def Edge_NonMaxSuppressionOp : Edge_Op<"non_max_suppression",
    [Pure, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<Edge_DataDependentShapeOpInterface>]> {
  let summary = "Greedy non-maximum suppression per batch and class";
  let description = [{
    ONNX's NonMaxSuppression. `boxes` [B, N, 4] holds two opposite corners
    (y1, x1, y2, x2 in either order), or with `center_point_box` (x center,
    y center, width, height); `scores` [B, C, N]. Per batch and class, the
    boxes scoring above `score_threshold` are taken best first (equal scores:
    the lower index first); each drops the later ones whose intersection
    over union with it exceeds `iou_threshold`; at most
    `max_output_boxes_per_class` are kept. One [batch, class, box] row per
    kept box, ordered by batch, class and selection. How many rows depends on
    the data: planned at B * C * min(max_output_boxes_per_class, N).
  }];
  let arguments = (ins Edge_FloatTensor:$boxes, Edge_FloatTensor:$scores,
      I64Attr:$max_output_boxes_per_class, F64Attr:$iou_threshold,
      OptionalAttr<F64Attr>:$score_threshold,
      DefaultValuedAttr<BoolAttr, "false">:$center_point_box);
  let results = (outs RankedTensorOf<[I64]>:$selected);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_RoiAlignOp
    : Edge_Op<"roi_align", [Pure, InferTypeOpAdaptor]> {
  let summary = "Average or max of bilinear samples over each region's bins";
  let description = [{
    ONNX's RoiAlign and torchvision's roi_align. `rois` [R, 4] holds
    x1, y1, x2, y2 in input coordinates times `spatial_scale`,
    `batch_indices` [R] the image of each. Each region is cut into
    `output_height` x `output_width` bins, each sampled on a
    `sampling_ratio`-square grid (0: ceil(region extent / bins) per axis);
    samples are bilinear, zero beyond one pixel outside the image. `aligned`
    shifts by half a pixel (ONNX half_pixel, torchvision aligned=True);
    without it a region is at least one pixel wide. `max` (ONNX mode=max)
    takes onnxruntime's maximum of the weighted corner values instead of
    the average. Result [R, C, output_height, output_width].
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$rois,
      RankedTensorOf<[I64]>:$batch_indices, I64Attr:$output_height,
      I64Attr:$output_width, DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
      DefaultValuedAttr<F64Attr, "1.0">:$spatial_scale,
      DefaultValuedAttr<BoolAttr, "true">:$aligned,
      DefaultValuedAttr<BoolAttr, "false">:$max);
  let results = (outs Edge_FloatTensor:$result);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_UniqueDimOp : Edge_AtenOp<"unique_dim", "aten::unique_dim",
    [DeclareOpInterfaceMethods<Edge_DataDependentShapeOpInterface>]> {
  let inferRule = "distinct<SlicesAlongDim>";
  let summary = "The distinct slices along `dim`, with where they are";
  let description = [{
    `edge.unique` over the slices `self[..., i, ...]` along `dim`, compared
    element by element in row-major order: `values` holds the distinct
    slices along `dim` (ascending lexicographically when `sorted`, else in
    order of first occurrence), `indices` each one's first position,
    `inverse` each input slice's entry in `values`, `counts` how often each
    occurs; with `consecutive` (unsorted), only runs of equal neighbouring
    slices merge. Planned at every slice distinct.
  }];
  let arguments = (ins Edge_NumericTensor:$self, I64Attr:$dim,
      DefaultValuedAttr<BoolAttr, "true">:$sorted,
      DefaultValuedAttr<BoolAttr, "false">:$consecutive);
  let results = (outs Edge_NumericTensor:$values,
      RankedTensorOf<[I64]>:$indices, RankedTensorOf<[I64]>:$inverse,
      RankedTensorOf<[I64]>:$counts);
}

def Edge_TopkOp : Edge_AtenOp<"topk", "aten::topk"> {
  let inferRule = "alongDim<TopCount>";
  let inferIndices = 1;
  let summary = "The `k` largest (or smallest) values along `dim`, with indices";
  let description = [{
    Best first whatever `sorted` says (sorted is one valid order); equal
    values keep the lower index first and NaN counts as the largest value,
    as torch's CPU kernel and ONNX TopK do.
  }];
  let arguments = (ins Edge_NumericTensor:$self, I64Attr:$k,
      DefaultValuedAttr<I64Attr, "-1">:$dim,
      DefaultValuedAttr<BoolAttr, "true">:$largest,
      DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Edge_NumericTensor:$values,
      RankedTensorOf<[I64]>:$indices);
}

def Edge_SortOp : Edge_AtenOp<"sort", "aten::sort"> {
  let inferRule = "likeOperand<0>";
  let inferIndices = 1;
  let hasVerifier = 1;
  let summary = "Values sorted along `dim`, with the indices they came from";
  let description = [{
    Always stable (equal values keep their order), which is one valid
    answer to `stable=False`; NaN sorts as the largest value, as in torch.
  }];
  let arguments = (ins Edge_NumericTensor:$self,
      DefaultValuedAttr<I64Attr, "-1">:$dim,
      DefaultValuedAttr<BoolAttr, "false">:$descending);
  let results = (outs Edge_NumericTensor:$values,
      RankedTensorOf<[I64]>:$indices);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def Edge_MaxPool2dOp
    : Edge_AtenOp<"max_pool2d", "aten::max_pool2d,aten::max_pool2d_with_indices"> {
  let inferRule = "maxPool<2>";
  let summary = "2-D max pooling over NCHW (values only)";
  let description = [{
    An empty `stride` means stride = kernel_size, as in ATen. Any numeric
    element type (ONNX pools uint8 images).
  }];
  let arguments = (ins Edge_NumericTensor:$self,
      DenseI64ArrayAttr:$kernel_size,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Edge_NumericTensor:$result);
}

def Edge_MaxPool2dWithIndicesOp
    : Edge_Op<"max_pool2d_with_indices", [Pure, InferTypeOpAdaptor]> {
  let inferRule = "maxPool<2>";
  let inferIndices = 1;
  let summary = "2-D max pooling with where each maximum came from";
  let description = [{
    `edge.max_pool2d` with a second result: each maximum's flat position
    h * W + w within its plane (the first on ties), as ATen's
    max_pool2d_with_indices gives it. Importers use it only where the
    positions are read (the values-only op is what targets take).
  }];
  let arguments = (ins Edge_NumericTensor:$self,
      DenseI64ArrayAttr:$kernel_size,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Edge_NumericTensor:$result,
      RankedTensorOf<[I64]>:$indices);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_AvgPool2dOp : Edge_AtenOp<"avg_pool2d", "aten::avg_pool2d"> {
  let inferRule = "avgPool<2>";
  let summary = "2-D average pooling over NCHW";
  let description = [{
    An empty `stride` means stride = kernel_size, as in ATen.
  }];
  let arguments = (ins Edge_FloatTensor:$self,
      DenseI64ArrayAttr:$kernel_size,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
      DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
      OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_MaxPool3dOp
    : Edge_AtenOp<"max_pool3d", "aten::max_pool3d,aten::max_pool3d_with_indices"> {
  let inferRule = "maxPool<3>";
  let summary = "3-D max pooling over NCDHW or CDHW (values only)";
  let description = [{
    `edge.max_pool2d` with three window entries (D, H, W).
  }];
  let arguments = (ins Edge_FloatTensor:$self,
      DenseI64ArrayAttr:$kernel_size,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1, 1}">:$dilation,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_AvgPool3dOp : Edge_AtenOp<"avg_pool3d", "aten::avg_pool3d"> {
  let inferRule = "avgPool<3>";
  let summary = "3-D average pooling over NCDHW or CDHW";
  let description = [{
    `edge.avg_pool2d` with three window entries (D, H, W).
  }];
  let arguments = (ins Edge_FloatTensor:$self,
      DenseI64ArrayAttr:$kernel_size,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0}">:$padding,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
      DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
      OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_AdaptiveAvgPool2dOp
    : Edge_AtenOp<"adaptive_avg_pool2d",
                  "aten::adaptive_avg_pool2d,aten::_adaptive_avg_pool2d"> {
  let inferRule = "outputSize<3>";
  let summary = "2-D adaptive average pooling to `output_size` (H, W)";
  let arguments = (ins Edge_FloatTensor:$self,
      DenseI64ArrayAttr:$output_size);
  let results = (outs Edge_FloatTensor:$result);
}

class Edge_UpsampleOp<string mnemonic, string aten, dag extra>
    : Edge_AtenOp<mnemonic, aten> {
  let inferRule = "outputSize<4>";
  let portableValidator = "Upsample";
  let arguments = !con((ins Edge_FloatTensor:$self,
                            DenseI64ArrayAttr:$output_size), extra,
                       (ins OptionalAttr<F64Attr>:$scales_h,
                            OptionalAttr<F64Attr>:$scales_w));
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_UpsampleNearest2dOp
    : Edge_UpsampleOp<"upsample_nearest2d", "aten::upsample_nearest2d", (ins)> {
  let summary = "Nearest-neighbour resize of NCHW to `output_size` (H, W)";
  let description = [{
    As ATen: source index = min(floor(dst * scale), in - 1), with scale =
    1 / scales_{h,w} when given, else in / out.
  }];
}

def Edge_UpsampleBilinear2dOp
    : Edge_UpsampleOp<"upsample_bilinear2d", "aten::upsample_bilinear2d",
                      (ins BoolAttr:$align_corners)> {
  let summary = "Bilinear resize of NCHW to `output_size` (H, W)";
  let description = [{
    As ATen: with `align_corners` corners map to corners; otherwise source
    = (dst + 0.5) * scale - 0.5, clamped at 0.
  }];
}

def Edge_UpsampleBicubic2dOp
    : Edge_UpsampleOp<"upsample_bicubic2d", "aten::upsample_bicubic2d",
                      (ins BoolAttr:$align_corners)> {
  let summary = "Bicubic resize of NCHW to `output_size` (H, W)";
  let description = [{
    As ATen: source = dst * scale with `align_corners`, else (dst + 0.5) *
    scale - 0.5 (not clamped); four taps around it, clamped to the border,
    weighted by Keys' cubic convolution with A = -0.75.
  }];
}

def Edge_Im2colOp : Edge_AtenOp<"im2col", "aten::im2col"> {
  let inferRule = "patchColumns";
  let summary = "Sliding 2-D blocks of an image as columns (F.unfold)";
  let description = [{
    [N, C, H, W] (or [C, H, W]) -> [N, C * kh * kw, L], L the number of
    windows (runtime/core/PatchShape.h): row (c * kh + i) * kw + j holds
    tap (i, j) of channel c, column l the l-th window in row-major order;
    taps in the padding are zero.
  }];
  let arguments = (ins Edge_FloatTensor:$self,
      DenseI64ArrayAttr:$kernel_size, DenseI64ArrayAttr:$dilation,
      DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$stride);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_Col2imOp : Edge_AtenOp<"col2im", "aten::col2im"> {
  let inferRule = "patchImage";
  let summary = "Sums columns of sliding blocks back into an image (F.fold)";
  let description = [{
    The adjoint of im2col: [N, C * kh * kw, L] (or [C * kh * kw, L]) ->
    [N, C, output_size]; each column's taps add into the pixels its window
    covers, taps in the padding are dropped. L must be the number of
    windows over output_size.
  }];
  let arguments = (ins Edge_FloatTensor:$self,
      DenseI64ArrayAttr:$output_size, DenseI64ArrayAttr:$kernel_size,
      DenseI64ArrayAttr:$dilation, DenseI64ArrayAttr:$padding,
      DenseI64ArrayAttr:$stride);
  let results = (outs Edge_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Edge_BatchNormOp
    : Edge_AtenOp<"batch_norm",
                  "aten::_native_batch_norm_legit_no_training,aten::batch_norm",
                  [AttrSizedOperandSegments]> {
  let inferRule = "likeOperand<0>";
  let hasVerifier = 1;
  let summary = "Batch normalization in inference form (running statistics)";
  let description = [{
    Normalizes channel dimension 1 with `running_mean`/`running_var`, then
    scales by `weight` and shifts by `bias` when present.
  }];
  let arguments = (ins Edge_FloatTensor:$input,
      Optional<Edge_FloatTensor>:$weight, Optional<Edge_FloatTensor>:$bias,
      Edge_FloatTensor:$running_mean, Edge_FloatTensor:$running_var,
      DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Edge_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `mean` $running_mean
    `var` $running_var attr-dict `:` functional-type(operands, results)
  }];
}

def Edge_LayerNormOp
    : Edge_AtenOp<"layer_norm", "aten::native_layer_norm,aten::layer_norm",
                  [AttrSizedOperandSegments]> {
  let inferRule = "likeOperand<0>";
  let hasVerifier = 1;
  let summary = "Layer normalization over the trailing `normalized_shape`";
  let arguments = (ins Edge_FloatTensor:$input,
      DenseI64ArrayAttr:$normalized_shape,
      Optional<Edge_FloatTensor>:$weight, Optional<Edge_FloatTensor>:$bias,
      DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Edge_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Edge_ViewOp
    : Edge_AtenOp<"view", "aten::view,aten::reshape,aten::_unsafe_view"> {
  let inferRule = "sized<ViewedAs>";
  let portableKernel = "Reshape";
  let summary = "Reshape to `size`; one entry may be -1 (inferred)";
  let description = [{
    Entries of `size` equal to the dynamic marker (int64 min) take their
    values, in order, from the `dynamic_size` operands: sizes that depend on
    dynamic input shapes.
  }];
  let arguments = (ins Edge_Tensor:$self,
      Variadic<Edge_SizeTensor>:$dynamic_size, DenseI64ArrayAttr:$size);
  let results = (outs Edge_Tensor:$result);
  let hasFolder = 1;
}

def Edge_PermuteOp : Edge_AtenOp<"permute", "aten::permute"> {
  let inferRule = "permutation<ListedOrder>";
  let summary = "Reorder dimensions: result dim i is input dim dims[i]";
  let arguments = (ins Edge_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs Edge_Tensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Edge_TransposeOp : Edge_AtenOp<"transpose", "aten::transpose"> {
  let inferRule = "permutation<SwappedOrder>";
  let portableKernel = "Permute";
  let summary = "Swap two dimensions";
  let arguments = (ins Edge_Tensor:$self, I64Attr:$dim0, I64Attr:$dim1);
  let results = (outs Edge_Tensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Edge_UnsqueezeOp : Edge_AtenOp<"unsqueeze", "aten::unsqueeze"> {
  let portableKernel = "Reshape";
  let summary = "Insert a size-1 dimension at `dim`";
  let arguments = (ins Edge_Tensor:$self, I64Attr:$dim);
  let results = (outs Edge_Tensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Edge_SqueezeOp : Edge_AtenOp<"squeeze", "aten::squeeze"> {
  let portableKernel = "Reshape";
  let summary = "Remove size-1 dimensions (those in `dim`, or all)";
  let arguments = (ins Edge_Tensor:$self, OptionalAttr<DenseI64ArrayAttr>:$dim);
  let results = (outs Edge_Tensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Edge_CatOp : Edge_AtenOp<"cat", "aten::cat,aten::concat"> {
  let summary = "Concatenate tensors along `dim`";
  let arguments = (ins Variadic<Edge_Tensor>:$tensors,
      DefaultValuedAttr<I64Attr, "0">:$dim);
  let results = (outs Edge_Tensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Edge_SliceOp : Edge_AtenOp<"slice", "aten::slice"> {
  let inferRule = "alongDim<SliceLength>";
  let summary = "Elements start, start+step, ... below end along `dim`";
  let description = [{
    `start`/`end` follow Python slicing: negative values count from the end,
    out-of-range values clamp, absent means the whole dimension. A
    `dynamic_end` operand gives the end at run time instead of `end`.
  }];
  let arguments = (ins Edge_Tensor:$self,
      Optional<Edge_SizeTensor>:$dynamic_end,
      DefaultValuedAttr<I64Attr, "0">:$dim,
      OptionalAttr<I64Attr>:$start, OptionalAttr<I64Attr>:$end,
      DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs Edge_Tensor:$result);
  let hasFolder = 1;
}

def Edge_SliceScatterOp : Edge_AtenOp<"slice_scatter", "aten::slice_scatter"> {
  let inferRule = "likeOperand<0>";
  let hasVerifier = 1;
  let summary = "`self` with the slice (dim, start, end, step) replaced by `src`";
  let description = [{
    The functional form of writing into a slice: `start`/`end` follow
    Python slicing as in `edge.slice`, and `src` has the slice's shape.
  }];
  let promotedOperands = "self,src";
  let arguments = (ins Edge_Tensor:$self, Edge_Tensor:$src,
      DefaultValuedAttr<I64Attr, "0">:$dim,
      OptionalAttr<I64Attr>:$start, OptionalAttr<I64Attr>:$end,
      DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs Edge_Tensor:$result);
}

def Edge_SelectOp : Edge_AtenOp<"select", "aten::select"> {
  let inferRule = "alongDim<DropsSelected>";
  let summary = "Take `index` along `dim`, dropping that dimension";
  let arguments = (ins Edge_Tensor:$self, I64Attr:$dim, I64Attr:$index);
  let results = (outs Edge_Tensor:$result);
}

def Edge_ExpandOp : Edge_AtenOp<"expand", "aten::expand"> {
  let inferRule = "sized<ExpandedTo>";
  let summary = "Broadcast to `size` (-1 keeps a dimension)";
  let description = [{
    Entries of `size` equal to the dynamic marker (int64 min) take their
    values, in order, from the `dynamic_size` operands.
  }];
  let arguments = (ins Edge_Tensor:$self,
      Variadic<Edge_SizeTensor>:$dynamic_size, DenseI64ArrayAttr:$size);
  let results = (outs Edge_Tensor:$result);
  let hasFolder = 1;
}

def Edge_SymSizeOp : Edge_AtenOp<"sym_size", "aten::sym_size"> {
  let summary = "The extent of `dim` of `self`, as a 0-d i64 tensor";
  let description = [{
    Sizes of dynamic shapes are values: sym_size reads one, ordinary
    arithmetic on 0-d i64 tensors combines them, and view/expand/slice/full/
    arange take them as operands. The runtime computes these while it
    prepares new input shapes.
  }];
  let arguments = (ins Edge_Tensor:$self, I64Attr:$dim);
  let results = (outs Edge_SizeTensor:$result);
  let hasFolder = 1;
}

def Edge_FullOp : Edge_AtenOp<"full", "aten::full"> {
  let inferRule = "sized<FilledAs>";
  let summary = "A tensor of `size` filled with `fill_value`, of type `dtype`";
  let description = [{
    Made at run time only when a size is dynamic (entries equal to the
    dynamic marker come from the `dynamic_size` operands); importers fold
    static ones into constants.
  }];
  let arguments = (ins Variadic<Edge_SizeTensor>:$dynamic_size,
      DenseI64ArrayAttr:$size, F64Attr:$fill_value, TypeAttr:$dtype);
  let results = (outs Edge_NumericTensor:$result);
}

def Edge_ArangeOp : Edge_AtenOp<"arange", "aten::arange"> {
  let summary = "start, start + step, ... below end, of type `dtype`";
  let description = [{
    Made at run time only when `end` is dynamic (the `dynamic_end` operand);
    importers fold static ranges into constants.
  }];
  let arguments = (ins Optional<Edge_SizeTensor>:$dynamic_end,
      DefaultValuedAttr<F64Attr, "0.0">:$start, OptionalAttr<F64Attr>:$end,
      DefaultValuedAttr<F64Attr, "1.0">:$step, TypeAttr:$dtype);
  let results = (outs Edge_NumericTensor:$result);
}

def Edge_EmbeddingOp : Edge_AtenOp<"embedding", "aten::embedding"> {
  let inferRule = "embedding<StoredColumns, SameElement>";
  let summary = "Rows of `weight` picked by integer `indices`";
  let arguments = (ins Edge_FloatTensor:$weight, Edge_IndexTensor:$indices,
      DefaultValuedAttr<I64Attr, "-1">:$padding_idx);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_GridSampler2dOp
    : Edge_AtenOp<"grid_sampler_2d", "aten::grid_sampler_2d,aten::grid_sampler"> {
  let summary = "Samples input [N, C, H, W] at grid [N, Ho, Wo, 2] (x, y in [-1, 1])";
  let description = [{
    torch's grid_sampler_2d: `interpolation_mode` 0 bilinear, 1 nearest
    (half to even), 2 bicubic (A = -0.75); `padding_mode` 0 zeros, 1 border,
    2 reflection; `align_corners` maps -1 and 1 to the corner pixels'
    centres (else to their outer edges). The result is [N, C, Ho, Wo].
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$grid,
      DefaultValuedAttr<I64Attr, "0">:$interpolation_mode,
      DefaultValuedAttr<I64Attr, "0">:$padding_mode,
      DefaultValuedAttr<BoolAttr, "false">:$align_corners);
  let results = (outs Edge_FloatTensor:$result);
}

def Edge_ScatterOp : Edge_AtenOp<"scatter", "aten::scatter"> {
  let inferRule = "likeOperand<0>";
  let hasVerifier = 1;
  let summary = "self with src[i][j][k] written to [i][index[i][j][k]][k] for dim 1, ...";
  let description = [{
    The inverse of gather: `index` has self's rank, is no larger than `src`
    in any dim nor than `self` outside `dim`; `src` has self's type and
    rank. `reduce` combines with what is there: none (the last write wins
    where indices repeat), add, multiply, amax, amin. Indices may be negative
    (counting from the end); an out-of-range index writes nothing (never
    outside the result).
  }];
  let arguments = (ins Edge_Tensor:$self, I64Attr:$dim,
      Edge_IndexTensor:$index, Edge_Tensor:$src,
      DefaultValuedAttr<StrAttr, "\"none\"">:$reduce);
  let results = (outs Edge_Tensor:$result);
}

def Edge_GatherOp : Edge_AtenOp<"gather", "aten::gather"> {
  let inferRule = "sameShape<1, ElementOf<0>>";
  let hasVerifier = 1;
  let summary = "result[i][j][k] = self[i][index[i][j][k]][k] for dim 1, ...";
  let description = [{
    `index` has self's rank and is no larger than self in the other
    dimensions; the result has index's shape. Indices may be negative
    (counting from the end); an out-of-range index gives 0 (never a read
    outside `self`).
  }];
  let arguments = (ins Edge_Tensor:$self, I64Attr:$dim,
      Edge_IndexTensor:$index);
  let results = (outs Edge_Tensor:$result);
}

def Edge_IndexSelectOp : Edge_AtenOp<"index_select", "aten::index_select"> {
  let inferRule = "alongDim<IndexLength>";
  let summary = "Slices of `self` along `dim` picked by a 1-D `index`";
  let arguments = (ins Edge_Tensor:$self, I64Attr:$dim,
      Edge_IndexTensor:$index);
  let results = (outs Edge_Tensor:$result);
}

def Edge_IndexPutOp : Edge_AtenOp<"index_put", "aten::index_put"> {
  let inferRule = "likeOperand<0>";
  let hasVerifier = 1;
  let summary = "`self` with self[indices] replaced by (or added to) `values`";
  let description = [{
    The functional form of advanced-index assignment: `indices` and
    `indexed_dims` select elements as in `edge.index`; `values` broadcasts
    to the shape `edge.index` would give. With `accumulate`, values are
    added (repeated indices add up). Out-of-range indices write nothing.
  }];
  let promotedOperands = "self,values";
  let arguments = (ins Edge_Tensor:$self, Edge_Tensor:$values,
      Variadic<Edge_IndexTensor>:$indices, DenseI64ArrayAttr:$indexed_dims,
      DefaultValuedAttr<BoolAttr, "false">:$accumulate);
  let results = (outs Edge_Tensor:$result);
}

def Edge_IndexOp : Edge_AtenOp<"index", "aten::index"> {
  let summary = "Advanced indexing: self[..., i0, ..., i1, ...]";
  let description = [{
    `indices` are integer tensors for the dimensions listed in
    `indexed_dims` (ascending); they broadcast together to shape B. When
    the indexed dimensions are adjacent, B replaces them in place; otherwise
    B comes first, then the remaining dimensions (NumPy's rule, as ATen's
    `index.Tensor`). Bool masks are not supported (their result shape
    depends on the data).
  }];
  let arguments = (ins Edge_Tensor:$self, Variadic<Edge_IndexTensor>:$indices,
      DenseI64ArrayAttr:$indexed_dims);
  let results = (outs Edge_Tensor:$result);
}

def Edge_TriuOp : Edge_AtenOp<"triu", "aten::triu"> {
  let inferRule = "triangle";
  let summary = "Keep elements on and above the `diagonal`-th diagonal";
  let description = [{
    Over the last two dimensions: element (i, j) is kept when
    j - i >= diagonal, else zero.
  }];
  let arguments = (ins Edge_NumericTensor:$self,
      DefaultValuedAttr<I64Attr, "0">:$diagonal);
  let results = (outs Edge_NumericTensor:$result);
}

def Edge_TrilOp : Edge_AtenOp<"tril", "aten::tril"> {
  let inferRule = "triangle";
  let summary = "Keep elements on and below the `diagonal`-th diagonal";
  let description = [{
    Over the last two dimensions: element (i, j) is kept when
    j - i <= diagonal, else zero.
  }];
  let arguments = (ins Edge_NumericTensor:$self,
      DefaultValuedAttr<I64Attr, "0">:$diagonal);
  let results = (outs Edge_NumericTensor:$result);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Edge_ScaledDotProductAttentionOp
    : Edge_AtenOp<"scaled_dot_product_attention",
                  "aten::scaled_dot_product_attention"> {
  let summary = "softmax(query @ key^T * scale + mask) @ value";
  let description = [{
    query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev].
    `scale` defaults to 1/sqrt(E). `attn_mask` broadcasts to [..., L, S]: a
    bool mask keeps positions where it is true, a float mask is added.
    `is_causal` masks positions j > i (upper left aligned, as ATen). With
    `enable_gqa`, the head dimension (-3) of key and value may divide
    query's: each key/value head serves a group of query heads. Rows whose
    every position is masked give zeros. Dropout is not supported (export
    is for inference: dropout_p must be 0).
  }];
  let arguments = (ins Edge_FloatTensor:$query, Edge_FloatTensor:$key,
      Edge_FloatTensor:$value, Optional<Edge_Tensor>:$attn_mask,
      DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
      DefaultValuedAttr<BoolAttr, "false">:$is_causal,
      OptionalAttr<F64Attr>:$scale,
      DefaultValuedAttr<BoolAttr, "false">:$enable_gqa);
  let results = (outs Edge_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def Edge_QuantizeOp : Edge_Op<"quantize", [Pure]> {
  let summary = "Quantize a float tensor to its result's `!quant.uniform` type";
  let description = [{
    q = clamp(round_half_even(x / scale) + zero_point, storage_min,
    storage_max), with scale and zero point per tensor or, for a per-axis
    type, per index of its quantized dimension. The result type says it all:
    the storage type (i8, u8, i32), its range (`i8<-127:127>` for symmetric
    weights), the expressed type (the operand's element type) and the
    parameters. This is torch's `quantize_per_tensor`/`quantize_per_channel`
    and ONNX's `QuantizeLinear`.

    ```mlir
    %q = edge.quantize %x : tensor<1x8xf32> -> tensor<1x8x!quant.uniform<i8:f32, 0.05:-3>>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input);
  let results = (outs Edge_QuantizedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Edge_DequantizeOp : Edge_Op<"dequantize", [Pure]> {
  let summary = "Dequantize a `!quant.uniform` tensor to its expressed type";
  let description = [{
    x = (q - zero_point) * scale, per tensor or per index of the quantized
    dimension. The result's element type is the operand type's expressed
    type.

    ```mlir
    %x = edge.dequantize %q : tensor<1x8x!quant.uniform<i8:f32, 0.05:-3>> -> tensor<1x8xf32>
    ```
  }];
  let arguments = (ins Edge_QuantizedTensor:$input);
  let results = (outs Edge_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Edge_DequantizePerChannelGroupOp
    : Edge_Op<"dequantize_per_channel_group", [Pure, InferTypeOpAdaptor]> {
  let inferRule = "sameShape<0, AsF32>";
  let summary = "Dequantize a 2-D integer tensor per group of columns";
  let description = [{
    result[n, k] = (input[n, k] - zero_points[n, k / group_size]) *
    scales[n, k / group_size], as f32: groupwise weight-only quantization
    (int4 values in int8 storage), torch's
    `quantized_decomposed.dequantize_per_channel_group`. `quant_min` and
    `quant_max` are the stored values' range; absent zero points are 0.

    ```mlir
    %w = edge.dequantize_per_channel_group %q, %scales
        {group_size = 32 : i64, quant_min = -8 : i64, quant_max = 7 : i64}
        : (tensor<64x128xi8>, tensor<64x4xf32>) -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Edge_IntegerTensor:$input, Edge_FloatTensor:$scales,
      Optional<Edge_IntegerTensor>:$zero_points, I64Attr:$group_size,
      I64Attr:$quant_min, I64Attr:$quant_max);
  let results = (outs Edge_FloatTensor:$result);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

// Weight-only quantized compute: what etch-fold-weight-only-ops makes of
// linear/embedding on dequantized constant weights, with the weights packed
// at compile time the way the kernels read them (runtime/kernels/
// portable/WeightPacking.h): `bits` 8 stores int8 [N, K]; `bits` 4 stores
// two values per byte, [N, K / 2] ui8, in blocks of 32 columns (byte j of a
// block holds column j in its low nibble and column j + 16 in its high one,
// each as value + 8). Scales (and zero points) are per output row and group
// of `group_size` columns: w[n, k] = (q[n, k] - zp[n, g]) * scale[n, g] with
// g = k / group_size; per channel is one group of K.
class Edge_WeightOnlyOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)> {
  let results = (outs Edge_FloatTensor:$result);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_WeightOnlyLinearOp
    : Edge_WeightOnlyOp<"weight_only_linear", [AttrSizedOperandSegments]> {
  let inferRule = "linear<AsF32>";
  let summary = "input @ dequantize(weight)^T + bias, int8 or int4 weights";
  let description = [{
    f32 input [..., K], packed weight (see above), scales [N, K / group_size]
    f32, optional zero points of the same shape (i8), optional f32 bias [N];
    result [..., N]. Kernels may accumulate in another order than
    dequantize-then-linear (rounding differs at float precision).
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_IntegerTensor:$weight,
      Edge_FloatTensor:$scales, Optional<Edge_IntegerTensor>:$zero_points,
      Optional<Edge_FloatTensor>:$bias, I64Attr:$bits, I64Attr:$group_size);
}

def Edge_WeightOnlyEmbeddingOp : Edge_WeightOnlyOp<"weight_only_embedding"> {
  let inferRule = "embedding<PackedColumns, AsF32>";
  let summary = "Rows of a quantized table picked by integer `indices`";
  let description = [{
    The packed table [vocab, K] (see above) with its scales and optional
    zero points; result [indices..., K], each picked row dequantized.
    Indices outside the table give zero rows.
  }];
  let arguments = (ins Edge_IntegerTensor:$weight, Edge_FloatTensor:$scales,
      Edge_IndexTensor:$indices, Optional<Edge_IntegerTensor>:$zero_points,
      I64Attr:$bits, I64Attr:$group_size);
}

// Integer ops: what etch-fold-quantized-ops makes of dequantize -> float op
// [-> relu/hardtanh/clamp] -> quantize where no target took the pattern, so
// the portable kernels compute it in integers. Parameters live in the
// operand and result types; `min`/`max` clamp the real result (a folded
// activation) before it is quantized.
class Edge_QuantizedComputeOp<string mnemonic>
    : Edge_Op<mnemonic, [Pure]> {
  let results = (outs Edge_QuantizedTensor:$result);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_QuantizedConvolutionOp
    : Edge_QuantizedComputeOp<"quantized_convolution"> {
  let summary = "Convolution of 8-bit quantized input and weights";
  let description = [{
    NCHW input quantized per tensor, OIHW weights per tensor or per output
    channel (axis 0), an optional float bias. Each output accumulates
    `(x - x_zero_point) * (w - w_zero_point[o])` exactly in integers, then
    `real = acc * x_scale * w_scale[o] + bias[o]`, clamped to [min, max] and
    quantized to the result type (round half to even, saturating).
    Window arguments as `edge.convolution` (no transposed form).
  }];
  let arguments = (ins Edge_QuantizedTensor:$input,
      Edge_QuantizedTensor:$weight, Optional<Edge_FloatTensor>:$bias,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups,
      OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
}

def Edge_QuantizedLinearOp : Edge_QuantizedComputeOp<"quantized_linear"> {
  let summary = "input @ weight^T + bias on 8-bit quantized input and weights";
  let description = [{
    Input [..., K] quantized per tensor, weight [N, K] per tensor or per
    output feature (axis 0), optional float bias [N]; integer accumulation
    and requantization as `edge.quantized_convolution`.
  }];
  let arguments = (ins Edge_QuantizedTensor:$input,
      Edge_QuantizedTensor:$weight, Optional<Edge_FloatTensor>:$bias,
      OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
}

class Edge_QuantizedBinaryOp<string mnemonic, string formula>
    : Edge_QuantizedComputeOp<mnemonic> {
  let portableValidator = "QuantizedBinary";
  let summary = "Elementwise " # formula # " of per-tensor quantized tensors";
  let description = [{
    Both operands broadcast to the result's shape (NumPy rules). Each operand
    is dequantized to f32, combined in f32 and the result quantized: the same
    arithmetic as dequantize -> float op -> quantize, with no float
    tensors in between.
  }];
  let arguments = (ins Edge_QuantizedTensor:$self,
      Edge_QuantizedTensor:$other,
      OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
}

def Edge_QuantizedAddOp : Edge_QuantizedBinaryOp<"quantized_add", "self + other">;
def Edge_QuantizedMulOp : Edge_QuantizedBinaryOp<"quantized_mul", "self * other">;

//===----------------------------------------------------------------------===//
// Delegation to targets
//===----------------------------------------------------------------------===//

def Edge_DelegateOp : Edge_Op<"delegate", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"DelegateReturnOp">]> {
  let hasPortableKernel = 0;
  let summary = "A subgraph a target claimed; it runs as one delegate call";
  let description = [{
    The partitioner outlines a connected, convex set of ops that `target`
    supports into the body (constants are cloned in). Code generation then
    attaches the target's opaque `blob` and `specs` (compile specs), which the
    serializer writes as a delegate segment.

    ```mlir
    %r = edge.delegate "xnnpack" (%x) : (tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
    ^bb0(%in: tensor<1x3x8x8xf32>):
      ...
      edge.delegate_return %y : tensor<1x4x8x8xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$target, Variadic<AnyRankedTensor>:$inputs,
      OptionalAttr<ElementsAttr>:$blob,
      OptionalAttr<DictionaryAttr>:$specs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $target `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
    $body
  }];
  let hasVerifier = 1;
}

def Edge_DelegateReturnOp : Edge_Op<"delegate_return", [Pure, Terminator,
    HasParent<"DelegateOp">]> {
  let hasPortableKernel = 0;
  let summary = "Returns a delegate body's results";
  let arguments = (ins Variadic<AnyRankedTensor>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, std::nullopt); }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

#endif // ETCH_EDGE_OPS_TD
