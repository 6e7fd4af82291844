//===- InferenceRules.h - Result-type rules ops share -----------*- C++ -*-===//
// An op that says `let inferRule = "reduction";` in EdgeOps.td gets its
// inferReturnTypes generated as a call to rules::reduction(context,
// location, getOperationName(), adaptor, types): a family's rule is written
// once, here (reading the operands and attributes it needs from the
// adaptor), over the shape computations below, defined beside their ops.
#ifndef ETCH_EDGE_INFERENCERULES_H
#define ETCH_EDGE_INFERENCERULES_H

#include "edge/EdgeTypeUtils.h"
#include "runtime/kernels/portable/WeightPacking.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace etch::edge {

/// The reduction over \p dims (all when absent) by
/// runtime/core/ReductionShape.h's rule (ReductionOps.cpp).
mlir::LogicalResult
inferReductionShape(std::optional<mlir::Location> location,
                    llvm::StringRef opName, mlir::Value self,
                    std::optional<llvm::ArrayRef<int64_t>> dims, bool keepdim,
                    llvm::SmallVectorImpl<mlir::Type> &types);
/// softmax/log_softmax: the input's shape; f16 to f32 with half_to_float.
mlir::LogicalResult
inferSoftmaxResult(std::optional<mlir::Location> location,
                   llvm::StringRef opName, mlir::Value self, int64_t dim,
                   bool halfToFloat, llvm::SmallVectorImpl<mlir::Type> &types);
/// any/all: the reduction shape as i1.
mlir::LogicalResult
inferTruthReduction(mlir::MLIRContext *context,
                    std::optional<mlir::Location> location,
                    llvm::StringRef opName, mlir::Value self,
                    std::optional<llvm::ArrayRef<int64_t>> dims, bool keepdim,
                    llvm::SmallVectorImpl<mlir::Type> &types);
/// argmax/argmin: the reduction over one dim (or all) as i64.
mlir::LogicalResult inferArgReduction(mlir::MLIRContext *context,
                                      std::optional<mlir::Location> location,
                                      llvm::StringRef opName, mlir::Value self,
                                      std::optional<uint64_t> dim, bool keepdim,
                                      llvm::SmallVectorImpl<mlir::Type> &types);

/// \p self and \p other broadcast (NumPy rules); one element type, as
/// importers make ATen's promotion explicit (ElementwiseOps.cpp).
mlir::LogicalResult
inferBroadcastResult(std::optional<mlir::Location> location,
                     llvm::StringRef opName, mlir::Value self,
                     mlir::Value other,
                     llvm::SmallVectorImpl<mlir::Type> &types);

/// logical and/or/xor: the broadcast shape as i1, any element types.
mlir::LogicalResult
inferLogicalResult(mlir::MLIRContext *context,
                   std::optional<mlir::Location> location,
                   llvm::StringRef opName, mlir::Value self, mlir::Value other,
                   llvm::SmallVectorImpl<mlir::Type> &types);

/// The window parameters ATen's pooling ops share, after defaulting.
struct PoolWindow {
  llvm::SmallVector<int64_t, 3> kernel, stride, padding, dilation;
  bool ceilMode;
};
/// [.., C, spatial outputs...] of a pooling window over \p input with
/// \p spatialDims spatial dims (PoolingOps.cpp).
mlir::LogicalResult inferPoolShape(std::optional<mlir::Location> location,
                                   llvm::StringRef opName, mlir::Value input,
                                   const PoolWindow &window, size_t spatialDims,
                                   llvm::SmallVectorImpl<mlir::Type> &types);
/// The leading dims kept, H and W set to \p size; \p self has rank 4
/// (NCHW), or 3 (CHW) as well where \p minRank is 3.
mlir::LogicalResult inferOutputSize(std::optional<mlir::Location> location,
                                    llvm::StringRef opName, mlir::Value self,
                                    llvm::ArrayRef<int64_t> size,
                                    int64_t minRank,
                                    llvm::SmallVectorImpl<mlir::Type> &types);

/// The window attributes edge.im2col and edge.col2im share, unchecked.
struct PatchArgs {
  llvm::ArrayRef<int64_t> kernel, dilation, padding, stride;
};
/// im2col: [N,] C, H, W -> [N,] C * kh * kw, L (PoolingOps.cpp).
mlir::LogicalResult inferPatchColumns(std::optional<mlir::Location> location,
                                      llvm::StringRef opName, mlir::Value self,
                                      const PatchArgs &args,
                                      llvm::SmallVectorImpl<mlir::Type> &types);
/// col2im: [N,] C * kh * kw, L -> [N,] C, output_size (PoolingOps.cpp).
mlir::LogicalResult inferPatchImage(std::optional<mlir::Location> location,
                                    llvm::StringRef opName, mlir::Value self,
                                    llvm::ArrayRef<int64_t> outputSize,
                                    const PatchArgs &args,
                                    llvm::SmallVectorImpl<mlir::Type> &types);

/// What edge.convolution and edge.convolution3d share.
struct ConvolutionArgs {
  mlir::Value input, weight, bias;
  llvm::ArrayRef<int64_t> stride, padding, dilation, outputPadding;
  bool transposed;
  int64_t groups;
};
/// Checks a convolution with \p spatial spatial dims and computes
/// [N, O, spatial outputs...] (LinearAlgebraOps.cpp).
mlir::LogicalResult inferConvolution(std::optional<mlir::Location> location,
                                     llvm::StringRef name,
                                     const ConvolutionArgs &args,
                                     size_t spatial,
                                     llvm::SmallVectorImpl<mlir::Type> &types);
/// \p lhs @ \p rhs, rank 2 or 3 (batched), named in errors as the op's
/// operands are.
mlir::LogicalResult inferMatmulResult(std::optional<mlir::Location> location,
                                      llvm::StringRef opName,
                                      llvm::StringRef lhsName, mlir::Value lhs,
                                      llvm::StringRef rhsName, mlir::Value rhs,
                                      int64_t rank,
                                      llvm::SmallVectorImpl<mlir::Type> &types);
/// triu/tril: self's type, rank 2 or more (ShapeOps.cpp).
mlir::LogicalResult inferTriangle(std::optional<mlir::Location> location,
                                  llvm::StringRef name, mlir::Value self,
                                  llvm::SmallVectorImpl<mlir::Type> &types);

/// input [..., in] through a weight [out, in]: [..., out]; whether the
/// operands agree beyond that is the verifier's (LinearAlgebraOps.cpp).
mlir::LogicalResult inferLinearShape(std::optional<mlir::Location> location,
                                     llvm::StringRef opName, mlir::Value input,
                                     mlir::Value weight,
                                     llvm::SmallVectorImpl<int64_t> &shape);

/// view/reshape: \p self's elements in the shape \p size (\p written as
/// the attribute has it, for messages), one -1 entry inferred (ShapeOps.cpp).
mlir::LogicalResult inferViewShape(std::optional<mlir::Location> location,
                                   llvm::StringRef opName, mlir::Value self,
                                   llvm::ArrayRef<int64_t> written,
                                   llvm::ArrayRef<int64_t> size,
                                   llvm::SmallVectorImpl<mlir::Type> &types);
/// expand: \p self broadcast to \p size, -1 keeping a dim.
mlir::LogicalResult inferExpandShape(std::optional<mlir::Location> location,
                                     llvm::StringRef opName, mlir::Value self,
                                     llvm::ArrayRef<int64_t> size,
                                     llvm::SmallVectorImpl<mlir::Type> &types);
/// full: \p size of \p dtype.
mlir::LogicalResult inferFilledShape(std::optional<mlir::Location> location,
                                     llvm::StringRef opName, mlir::Type dtype,
                                     llvm::ArrayRef<int64_t> size,
                                     llvm::SmallVectorImpl<mlir::Type> &types);

/// select: \p index in range of \p shape[\p dim], which is dropped.
mlir::LogicalResult dropSelectedDim(std::optional<mlir::Location> location,
                                    llvm::StringRef opName, int64_t index,
                                    int64_t dim,
                                    llvm::SmallVectorImpl<int64_t> &shape);
/// index_select: \p shape[\p dim] as long as the 0-D or 1-D \p index.
mlir::LogicalResult setIndexLength(std::optional<mlir::Location> location,
                                   llvm::StringRef opName, mlir::Value index,
                                   int64_t dim,
                                   llvm::SmallVectorImpl<int64_t> &shape);
/// slice: \p shape[\p dim] as long as the Python slice; a \p dynamicEnd
/// that is not a constant makes it known at run time only.
mlir::LogicalResult setSliceLength(std::optional<mlir::Location> location,
                                   llvm::StringRef opName, int64_t dim,
                                   std::optional<int64_t> start,
                                   std::optional<int64_t> end,
                                   mlir::Value dynamicEnd, int64_t step,
                                   llvm::SmallVectorImpl<int64_t> &shape);
/// topk: \p shape[\p dim] set to \p k, which it must not exceed (a
/// scalar, an empty \p shape, is its own top 1) (ReductionOps.cpp).
mlir::LogicalResult setTopCount(std::optional<mlir::Location> location,
                                llvm::StringRef opName, int64_t k, int64_t dim,
                                llvm::SmallVectorImpl<int64_t> &shape);

/// permute: \p source[i], the input dim of result dim i, from \p dims
/// (ShapeOps.cpp).
mlir::LogicalResult listedOrder(std::optional<mlir::Location> location,
                                llvm::StringRef opName,
                                llvm::ArrayRef<int64_t> dims, int64_t rank,
                                llvm::SmallVectorImpl<int64_t> &source);
/// transpose: the identity with \p dim0 and \p dim1 swapped.
mlir::LogicalResult swappedOrder(std::optional<mlir::Location> location,
                                 llvm::StringRef opName, int64_t dim0,
                                 int64_t dim1, int64_t rank,
                                 llvm::SmallVectorImpl<int64_t> &source);

namespace rules {

using Types = llvm::SmallVectorImpl<mlir::Type>;
using Where = std::optional<mlir::Location>;

template <typename Adaptor>
mlir::LogicalResult reduction(mlir::MLIRContext *, Where location,
                              llvm::StringRef name, Adaptor adaptor,
                              Types &types) {
  return inferReductionShape(location, name, adaptor.getSelf(),
                             adaptor.getDim(), adaptor.getKeepdim(), types);
}

template <typename Adaptor>
mlir::LogicalResult truthReduction(mlir::MLIRContext *context, Where location,
                                   llvm::StringRef name, Adaptor adaptor,
                                   Types &types) {
  return inferTruthReduction(context, location, name, adaptor.getSelf(),
                             adaptor.getDim(), adaptor.getKeepdim(), types);
}

template <typename Adaptor>
mlir::LogicalResult argReduction(mlir::MLIRContext *context, Where location,
                                 llvm::StringRef name, Adaptor adaptor,
                                 Types &types) {
  return inferArgReduction(context, location, name, adaptor.getSelf(),
                           adaptor.getDim(), adaptor.getKeepdim(), types);
}

template <typename Adaptor>
mlir::LogicalResult softmax(mlir::MLIRContext *, Where location,
                            llvm::StringRef name, Adaptor adaptor,
                            Types &types) {
  return inferSoftmaxResult(location, name, adaptor.getSelf(), adaptor.getDim(),
                            adaptor.getHalfToFloat(), types);
}

/// An empty stride means stride = kernel_size, as in ATen.
inline llvm::SmallVector<int64_t, 3>
strideOrKernel(llvm::ArrayRef<int64_t> stride, llvm::ArrayRef<int64_t> kernel) {
  return llvm::SmallVector<int64_t, 3>(stride.empty() ? kernel : stride);
}

template <size_t SpatialDims, typename Adaptor>
mlir::LogicalResult maxPool(mlir::MLIRContext *, Where location,
                            llvm::StringRef name, Adaptor adaptor,
                            Types &types) {
  PoolWindow window{
      llvm::SmallVector<int64_t, 3>(adaptor.getKernelSize()),
      strideOrKernel(adaptor.getStride(), adaptor.getKernelSize()),
      llvm::SmallVector<int64_t, 3>(adaptor.getPadding()),
      llvm::SmallVector<int64_t, 3>(adaptor.getDilation()),
      adaptor.getCeilMode()};
  return inferPoolShape(location, name, adaptor.getSelf(), window, SpatialDims,
                        types);
}

template <size_t SpatialDims, typename Adaptor>
mlir::LogicalResult avgPool(mlir::MLIRContext *, Where location,
                            llvm::StringRef name, Adaptor adaptor,
                            Types &types) {
  std::optional<uint64_t> divisor = adaptor.getDivisorOverride();
  if (divisor && *divisor == 0)
    return emitInferenceError(location, name,
                              "divisor_override must be non-zero");
  PoolWindow window{
      llvm::SmallVector<int64_t, 3>(adaptor.getKernelSize()),
      strideOrKernel(adaptor.getStride(), adaptor.getKernelSize()),
      llvm::SmallVector<int64_t, 3>(adaptor.getPadding()),
      llvm::SmallVector<int64_t, 3>(SpatialDims, 1), adaptor.getCeilMode()};
  return inferPoolShape(location, name, adaptor.getSelf(), window, SpatialDims,
                        types);
}

/// Resizes and adaptive pools: H and W set to output_size.
template <int64_t MinRank, typename Adaptor>
mlir::LogicalResult outputSize(mlir::MLIRContext *, Where location,
                               llvm::StringRef name, Adaptor adaptor,
                               Types &types) {
  return inferOutputSize(location, name, adaptor.getSelf(),
                         adaptor.getOutputSize(), MinRank, types);
}

template <typename Adaptor> PatchArgs patchArgsOf(Adaptor adaptor) {
  return {adaptor.getKernelSize(), adaptor.getDilation(), adaptor.getPadding(),
          adaptor.getStride()};
}

template <typename Adaptor>
mlir::LogicalResult patchColumns(mlir::MLIRContext *, Where location,
                                 llvm::StringRef name, Adaptor adaptor,
                                 Types &types) {
  return inferPatchColumns(location, name, adaptor.getSelf(),
                           patchArgsOf(adaptor), types);
}

template <typename Adaptor>
mlir::LogicalResult patchImage(mlir::MLIRContext *, Where location,
                               llvm::StringRef name, Adaptor adaptor,
                               Types &types) {
  return inferPatchImage(location, name, adaptor.getSelf(),
                         adaptor.getOutputSize(), patchArgsOf(adaptor), types);
}

template <size_t Spatial, typename Adaptor>
mlir::LogicalResult convolution(mlir::MLIRContext *, Where location,
                                llvm::StringRef name, Adaptor adaptor,
                                Types &types) {
  ConvolutionArgs args{adaptor.getInput(),
                       adaptor.getWeight(),
                       adaptor.getBias(),
                       adaptor.getStride(),
                       adaptor.getPadding(),
                       adaptor.getDilation(),
                       adaptor.getOutputPadding(),
                       adaptor.getTransposed(),
                       static_cast<int64_t>(adaptor.getGroups())};
  return inferConvolution(location, name, args, Spatial, types);
}

// The two operands a matrix product multiplies, for `matmul`.

/// mm, bmm: self @ mat2.
struct SelfTimesMat2 {
  template <typename Adaptor>
  static mlir::LogicalResult infer(Where location, llvm::StringRef name,
                                   Adaptor adaptor, int64_t rank,
                                   Types &types) {
    return inferMatmulResult(location, name, "self", adaptor.getSelf(), "mat2",
                             adaptor.getMat2(), rank, types);
  }
};
/// addmm: mat1 @ mat2 (self, the addend, is the verifier's).
struct Mat1TimesMat2 {
  template <typename Adaptor>
  static mlir::LogicalResult infer(Where location, llvm::StringRef name,
                                   Adaptor adaptor, int64_t rank,
                                   Types &types) {
    return inferMatmulResult(location, name, "mat1", adaptor.getMat1(), "mat2",
                             adaptor.getMat2(), rank, types);
  }
};

template <int64_t Rank, typename Operands = SelfTimesMat2, typename Adaptor>
mlir::LogicalResult matmul(mlir::MLIRContext *, Where location,
                           llvm::StringRef name, Adaptor adaptor,
                           Types &types) {
  return Operands::infer(location, name, adaptor, Rank, types);
}

/// grouped_mm: input [S, K] by weight [G, K, N] (offs [G]) -> [S, N].
template <typename Adaptor>
mlir::LogicalResult groupedRows(mlir::MLIRContext *, Where location,
                                llvm::StringRef name, Adaptor adaptor,
                                Types &types) {
  if (mlir::failed(
          verifyRank(location, name, "input", adaptor.getInput(), 2)) ||
      mlir::failed(
          verifyRank(location, name, "weight", adaptor.getWeight(), 3)) ||
      mlir::failed(verifyRank(location, name, "offs", adaptor.getOffs(), 1)))
    return mlir::failure();
  mlir::RankedTensorType input = rankedType(adaptor.getInput());
  llvm::ArrayRef<int64_t> weight = rankedType(adaptor.getWeight()).getShape();
  int64_t groups = rankedType(adaptor.getOffs()).getDimSize(0);
  if (!extentsAgree(input.getDimSize(1), weight[1]) ||
      !extentsAgree(weight[0], groups))
    return emitInferenceError(
        location, name,
        "input [S, K], weight [G, K, N] and offs [G] disagree: input " +
            formatType(input) + ", weight " + formatShape(weight) + ", offs " +
            formatType(rankedType(adaptor.getOffs())));
  types.push_back(input.clone({input.getDimSize(0), weight[2]}));
  return mlir::success();
}

template <typename Adaptor>
mlir::LogicalResult triangle(mlir::MLIRContext *, Where location,
                             llvm::StringRef name, Adaptor adaptor,
                             Types &types) {
  return inferTriangle(location, name, adaptor.getSelf(), types);
}

template <typename Adaptor>
mlir::LogicalResult broadcast(mlir::MLIRContext *, Where location,
                              llvm::StringRef name, Adaptor adaptor,
                              Types &types) {
  return inferBroadcastResult(location, name, adaptor.getSelf(),
                              adaptor.getOther(), types);
}

/// pow: self broadcast with its exponent.
template <typename Adaptor>
mlir::LogicalResult power(mlir::MLIRContext *, Where location,
                          llvm::StringRef name, Adaptor adaptor, Types &types) {
  return inferBroadcastResult(location, name, adaptor.getSelf(),
                              adaptor.getExponent(), types);
}

/// Comparisons: the broadcast shape, as i1.
template <typename Adaptor>
mlir::LogicalResult comparison(mlir::MLIRContext *context, Where location,
                               llvm::StringRef name, Adaptor adaptor,
                               Types &types) {
  if (mlir::failed(inferBroadcastResult(location, name, adaptor.getSelf(),
                                        adaptor.getOther(), types)))
    return mlir::failure();
  types.back() = mlir::cast<mlir::RankedTensorType>(types.back())
                     .clone(mlir::IntegerType::get(context, 1));
  return mlir::success();
}

template <typename Adaptor>
mlir::LogicalResult logical(mlir::MLIRContext *context, Where location,
                            llvm::StringRef name, Adaptor adaptor,
                            Types &types) {
  return inferLogicalResult(context, location, name, adaptor.getSelf(),
                            adaptor.getOther(), types);
}

/// The result has operand \p Operand's type; what the other operands must
/// be is the op's verifier's to check.
template <unsigned Operand, typename Adaptor>
mlir::LogicalResult likeOperand(mlir::MLIRContext *, Where, llvm::StringRef,
                                Adaptor adaptor, Types &types) {
  types.push_back(adaptor.getOperands()[Operand].getType());
  return mlir::success();
}

// Element types for rules that keep a shape and choose the element type:
// `of` gives it from the operand's, or reports why there is none (null).

/// The operand's own element type.
struct SameElement {
  template <typename Adaptor>
  static mlir::Type of(mlir::MLIRContext *, Where, llvm::StringRef, Adaptor,
                       mlir::Type element) {
    return element;
  }
};
/// Operand \p Operand's element type (gather: the values', at the index's
/// shape).
template <unsigned Operand> struct ElementOf {
  template <typename Adaptor>
  static mlir::Type of(mlir::MLIRContext *, Where, llvm::StringRef,
                       Adaptor adaptor, mlir::Type) {
    return mlir::cast<mlir::RankedTensorType>(
               adaptor.getOperands()[Operand].getType())
        .getElementType();
  }
};
/// Truth values (i1).
struct AsI1 {
  template <typename Adaptor>
  static mlir::Type of(mlir::MLIRContext *context, Where, llvm::StringRef,
                       Adaptor, mlir::Type) {
    return mlir::IntegerType::get(context, 1);
  }
};
/// f32, what the weight-only and dequantizing ops compute in.
struct AsF32 {
  template <typename Adaptor>
  static mlir::Type of(mlir::MLIRContext *context, Where, llvm::StringRef,
                       Adaptor, mlir::Type) {
    return mlir::Float32Type::get(context);
  }
};
/// The `dtype` attribute, an integer or float type.
struct AsDtype {
  template <typename Adaptor>
  static mlir::Type of(mlir::MLIRContext *, Where location,
                       llvm::StringRef name, Adaptor adaptor, mlir::Type) {
    mlir::Type dtype = adaptor.getDtype();
    if (dtype.isIntOrFloat())
      return dtype;
    (void)emitInferenceError(location, name,
                             "dtype must be an integer or float type, got " +
                                 formatType(dtype));
    return {};
  }
};
/// ATen's running sums: floats keep their type, integers and bools sum in
/// i64.
struct AsSumElement {
  template <typename Adaptor>
  static mlir::Type of(mlir::MLIRContext *context, Where, llvm::StringRef,
                       Adaptor, mlir::Type element) {
    if (mlir::isa<mlir::FloatType>(element))
      return element;
    return mlir::IntegerType::get(context, 64);
  }
};

/// Operand \p Operand's shape with the element type \p Element gives.
template <unsigned Operand, typename Element, typename Adaptor>
mlir::LogicalResult sameShape(mlir::MLIRContext *context, Where location,
                              llvm::StringRef name, Adaptor adaptor,
                              Types &types) {
  auto type = mlir::cast<mlir::RankedTensorType>(
      adaptor.getOperands()[Operand].getType());
  mlir::Type element =
      Element::of(context, location, name, adaptor, type.getElementType());
  if (!element)
    return mlir::failure();
  types.push_back(type.clone(element));
  return mlir::success();
}

/// The linear shape, of the element type \p Element gives for the input's.
template <typename Element, typename Adaptor>
mlir::LogicalResult linear(mlir::MLIRContext *context, Where location,
                           llvm::StringRef name, Adaptor adaptor,
                           Types &types) {
  llvm::SmallVector<int64_t> shape;
  if (mlir::failed(inferLinearShape(location, name, adaptor.getInput(),
                                    adaptor.getWeight(), shape)))
    return mlir::failure();
  mlir::Type element =
      Element::of(context, location, name, adaptor,
                  rankedType(adaptor.getInput()).getElementType());
  types.push_back(mlir::RankedTensorType::get(shape, element));
  return mlir::success();
}

// Columns of an embedding table's rows, for `embedding`.

/// As stored: weight [rows, columns].
struct StoredColumns {
  template <typename Adaptor> static int64_t of(Adaptor adaptor) {
    return rankedType(adaptor.getWeight()).getDimSize(1);
  }
};
/// A weight-only table's bytes read as `bits`-bit values.
struct PackedColumns {
  template <typename Adaptor> static int64_t of(Adaptor adaptor) {
    int64_t bytes = rankedType(adaptor.getWeight()).getDimSize(1);
    if (mlir::ShapedType::isDynamic(bytes))
      return bytes;
    return runtime::weight_packing::rowColumns(
        static_cast<int>(adaptor.getBits()), bytes);
  }
};

/// Rows of a 2-D table picked by indices: [indices..., columns], of the
/// element type \p Element gives for the table's.
template <typename Columns, typename Element, typename Adaptor>
mlir::LogicalResult embedding(mlir::MLIRContext *context, Where location,
                              llvm::StringRef name, Adaptor adaptor,
                              Types &types) {
  if (mlir::failed(
          verifyRank(location, name, "weight", adaptor.getWeight(), 2)))
    return mlir::failure();
  llvm::SmallVector<int64_t> shape(rankedType(adaptor.getIndices()).getShape());
  shape.push_back(Columns::of(adaptor));
  mlir::Type element =
      Element::of(context, location, name, adaptor,
                  rankedType(adaptor.getWeight()).getElementType());
  types.push_back(mlir::RankedTensorType::get(shape, element));
  return mlir::success();
}

// How unique and unique_dim cut self into the slices they compare, for
// `distinct`: the tensor sliced and the dim along which.

/// Every element a slice: the flattened tensor along dim 0.
struct FlattenedSlices {
  template <typename Adaptor>
  static std::optional<std::pair<mlir::RankedTensorType, int64_t>>
  of(Where, llvm::StringRef, Adaptor adaptor) {
    mlir::RankedTensorType type = rankedType(adaptor.getSelf());
    int64_t elements = type.hasStaticShape() ? type.getNumElements()
                                             : mlir::ShapedType::kDynamic;
    return std::make_pair(type.clone({elements}), int64_t{0});
  }
};
/// The slices self[..., i, ...] along `dim`.
struct SlicesAlongDim {
  template <typename Adaptor>
  static std::optional<std::pair<mlir::RankedTensorType, int64_t>>
  of(Where location, llvm::StringRef name, Adaptor adaptor) {
    mlir::RankedTensorType type = rankedType(adaptor.getSelf());
    std::optional<int64_t> dim =
        normalizeDim(location, name, "dim",
                     static_cast<int64_t>(adaptor.getDim()), type.getRank());
    if (!dim)
      return std::nullopt;
    return std::make_pair(type, *dim);
  }
};

/// The distinct slices (\p Slicing) and where they are: values with the
/// sliced dim unknown (it depends on the data), indices and counts one per
/// distinct slice, inverse one per input slice, all i64 but the values.
template <typename Slicing, typename Adaptor>
mlir::LogicalResult distinct(mlir::MLIRContext *context, Where location,
                             llvm::StringRef name, Adaptor adaptor,
                             Types &types) {
  auto sliced = Slicing::of(location, name, adaptor);
  if (!sliced)
    return mlir::failure();
  auto [type, dim] = *sliced;
  auto i64 = mlir::IntegerType::get(context, 64);
  llvm::SmallVector<int64_t> shape(type.getShape());
  int64_t slices = shape[dim];
  shape[dim] = mlir::ShapedType::kDynamic;
  auto perDistinct =
      mlir::RankedTensorType::get({mlir::ShapedType::kDynamic}, i64);
  types.push_back(type.clone(shape));
  types.push_back(perDistinct);
  types.push_back(mlir::RankedTensorType::get({slices}, i64));
  types.push_back(perDistinct);
  return mlir::success();
}

// What an op makes of an ATen size list (`size`, its dynamic-marker entries
// read from the `dynamic_size` operands), for `sized`.

/// view/reshape: self's elements in that shape.
struct ViewedAs {
  template <typename Adaptor>
  static mlir::LogicalResult infer(Where location, llvm::StringRef name,
                                   Adaptor adaptor,
                                   llvm::ArrayRef<int64_t> size, Types &types) {
    return inferViewShape(location, name, adaptor.getSelf(), adaptor.getSize(),
                          size, types);
  }
};
/// expand: self broadcast to it.
struct ExpandedTo {
  template <typename Adaptor>
  static mlir::LogicalResult infer(Where location, llvm::StringRef name,
                                   Adaptor adaptor,
                                   llvm::ArrayRef<int64_t> size, Types &types) {
    return inferExpandShape(location, name, adaptor.getSelf(), size, types);
  }
};
/// full: a new tensor of that shape and `dtype`.
struct FilledAs {
  template <typename Adaptor>
  static mlir::LogicalResult infer(Where location, llvm::StringRef name,
                                   Adaptor adaptor,
                                   llvm::ArrayRef<int64_t> size, Types &types) {
    return inferFilledShape(location, name, adaptor.getDtype(), size, types);
  }
};

template <typename Shape, typename Adaptor>
mlir::LogicalResult sized(mlir::MLIRContext *, Where location,
                          llvm::StringRef name, Adaptor adaptor, Types &types) {
  std::optional<llvm::SmallVector<int64_t>> size =
      resolveSizes(location, name, adaptor.getSize(), adaptor.getDynamicSize());
  if (!size)
    return mlir::failure();
  return Shape::infer(location, name, adaptor, *size, types);
}

// How an op changes self's shape along its `dim`, for `alongDim`: `resize`
// edits self's shape at the normalized dim or reports why it cannot;
// kScalarDim: a rank-0 self takes dim 0 or -1 (as ATen's lane ops do).

/// select: the dim dropped.
struct DropsSelected {
  static constexpr bool kScalarDim = false;
  template <typename Adaptor>
  static mlir::LogicalResult resize(Where location, llvm::StringRef name,
                                    Adaptor adaptor, int64_t dim,
                                    llvm::SmallVectorImpl<int64_t> &shape) {
    return dropSelectedDim(location, name, adaptor.getIndex(), dim, shape);
  }
};
/// index_select: one slice per index entry.
struct IndexLength {
  static constexpr bool kScalarDim = true;
  template <typename Adaptor>
  static mlir::LogicalResult resize(Where location, llvm::StringRef name,
                                    Adaptor adaptor, int64_t dim,
                                    llvm::SmallVectorImpl<int64_t> &shape) {
    return setIndexLength(location, name, adaptor.getIndex(), dim, shape);
  }
};
/// slice: the Python slice's length.
struct SliceLength {
  static constexpr bool kScalarDim = false;
  template <typename Adaptor>
  static mlir::LogicalResult resize(Where location, llvm::StringRef name,
                                    Adaptor adaptor, int64_t dim,
                                    llvm::SmallVectorImpl<int64_t> &shape) {
    return setSliceLength(location, name, dim, adaptor.getStart(),
                          adaptor.getEnd(), adaptor.getDynamicEnd(),
                          adaptor.getStep(), shape);
  }
};
/// topk: k values.
struct TopCount {
  static constexpr bool kScalarDim = true;
  template <typename Adaptor>
  static mlir::LogicalResult resize(Where location, llvm::StringRef name,
                                    Adaptor adaptor, int64_t dim,
                                    llvm::SmallVectorImpl<int64_t> &shape) {
    return setTopCount(location, name, static_cast<int64_t>(adaptor.getK()),
                       dim, shape);
  }
};

/// Self's shape changed along `dim` as \p Resize says, of self's type.
template <typename Resize, typename Adaptor>
mlir::LogicalResult alongDim(mlir::MLIRContext *, Where location,
                             llvm::StringRef name, Adaptor adaptor,
                             Types &types) {
  mlir::RankedTensorType self = rankedType(adaptor.getSelf());
  int64_t rank = self.getRank();
  std::optional<int64_t> dim = normalizeDim(
      location, name, "dim", static_cast<int64_t>(adaptor.getDim()),
      Resize::kScalarDim ? std::max<int64_t>(rank, 1) : rank);
  if (!dim)
    return mlir::failure();
  llvm::SmallVector<int64_t> shape(self.getShape());
  if (mlir::failed(Resize::resize(location, name, adaptor, *dim, shape)))
    return mlir::failure();
  types.push_back(self.clone(shape));
  return mlir::success();
}

// The order in which a permutation reads self's dims, for `permutation`.

/// permute: as `dims` lists them.
struct ListedOrder {
  template <typename Adaptor>
  static mlir::LogicalResult of(Where location, llvm::StringRef name,
                                Adaptor adaptor, int64_t rank,
                                llvm::SmallVectorImpl<int64_t> &source) {
    return listedOrder(location, name, adaptor.getDims(), rank, source);
  }
};
/// transpose: `dim0` and `dim1` swapped.
struct SwappedOrder {
  template <typename Adaptor>
  static mlir::LogicalResult of(Where location, llvm::StringRef name,
                                Adaptor adaptor, int64_t rank,
                                llvm::SmallVectorImpl<int64_t> &source) {
    return swappedOrder(location, name, adaptor.getDim0(), adaptor.getDim1(),
                        rank, source);
  }
};

/// Self's dims in the order \p Order gives.
template <typename Order, typename Adaptor>
mlir::LogicalResult permutation(mlir::MLIRContext *, Where location,
                                llvm::StringRef name, Adaptor adaptor,
                                Types &types) {
  mlir::RankedTensorType self = rankedType(adaptor.getSelf());
  llvm::SmallVector<int64_t> source(self.getRank());
  if (mlir::failed(Order::of(location, name, adaptor, self.getRank(), source)))
    return mlir::failure();
  types.push_back(self.clone(llvm::map_to_vector(
      source, [&](int64_t dim) { return self.getDimSize(dim); })));
  return mlir::success();
}

/// Ops that also return where each value came from (`inferIndices` in
/// EdgeBase.td): an i64 tensor of the values' shape.
inline mlir::LogicalResult appendIndices(mlir::MLIRContext *context,
                                         mlir::LogicalResult values,
                                         Types &types) {
  if (mlir::failed(values))
    return mlir::failure();
  types.push_back(mlir::cast<mlir::RankedTensorType>(types.front())
                      .clone(mlir::IntegerType::get(context, 64)));
  return mlir::success();
}

} // namespace rules
} // namespace etch::edge

#endif // ETCH_EDGE_INFERENCERULES_H
