//===- ShapeFolds.cpp - Folders and canonicalizations of shape ops --------===//
//
// Pure reshapes (view, squeeze, unsqueeze) fold into each other and into
// constants; permutations compose; identity shape ops disappear. Constants
// are reshaped without copying (dense_resource blobs keep their handle);
// permuting or slicing a constant copies it, so that only happens for small
// constants.
//
//===----------------------------------------------------------------------===//
#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"

#include <cstring>
#include <limits>

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace etch::edge;

/// Constants larger than this are not copied by folding (reshapes never copy).
static constexpr int64_t kMaxCopiedConstantElements = 1 << 16;

/// The same constant data viewed with \p type (same element count).
static Attribute reshapeConstant(Attribute value, RankedTensorType type) {
  if (!value || !type.hasStaticShape())
    return {};
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.reshape(type);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(type, resource.getRawHandle());
  return {};
}

/// Copies elements of a small dense constant: result element i comes from
/// source element sourceIndex(i).
template <typename IndexFn>
static Attribute gatherConstant(Attribute value, RankedTensorType type,
                                IndexFn sourceIndex) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(value);
  if (!dense || !type.hasStaticShape())
    return {};
  if (dense.isSplat())
    return DenseElementsAttr::get(type, dense.getSplatValue<Attribute>());
  if (type.getNumElements() > kMaxCopiedConstantElements)
    return {};
  auto source = llvm::to_vector(dense.getValues<Attribute>());
  SmallVector<Attribute> result;
  result.reserve(type.getNumElements());
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    result.push_back(source[sourceIndex(i)]);
  return DenseElementsAttr::get(type, result);
}

static SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Constant folding of a permutation (result dim i is source dim perm[i])
/// on the raw bytes, so dense and dense_resource weights both fold. A
/// permute that is the constant's only user folds at any size (the original
/// becomes dead); otherwise only small constants are copied.
static Attribute permuteConstant(Attribute value, Value source,
                                 RankedTensorType resultType,
                                 ArrayRef<int64_t> perm) {
  auto elements = dyn_cast_or_null<ElementsAttr>(value);
  auto sourceType = cast<RankedTensorType>(source.getType());
  if (!elements || !resultType.hasStaticShape() ||
      !resultType.getElementType().isIntOrFloat() ||
      resultType.getElementType().isInteger(1))
    return {};
  if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
    return DenseElementsAttr::get(resultType, dense.getSplatValue<Attribute>());
  if (!source.hasOneUse() &&
      resultType.getNumElements() > kMaxCopiedConstantElements)
    return {};
  SmallVector<char> storage;
  std::optional<ArrayRef<char>> bytes = getConstantBytes(elements, storage);
  if (!bytes)
    return {};
  int64_t element = resultType.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> sourceStrides = rowMajorStrides(sourceType.getShape());
  SmallVector<int64_t> resultStrides = rowMajorStrides(resultType.getShape());
  std::string permuted(bytes->size(), '\0');
  for (int64_t flat = 0; flat < resultType.getNumElements(); ++flat) {
    int64_t from = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      from += ((flat / resultStrides[d]) % resultType.getDimSize(d)) *
              sourceStrides[perm[d]];
    std::memcpy(&permuted[flat * element], bytes->data() + from * element,
                element);
  }
  return makeConstantFromOwnedBytes(resultType, std::move(permuted),
                                    "permuted");
}

static bool isIdentityPermutation(ArrayRef<int64_t> perm) {
  for (auto [i, dim] : llvm::enumerate(perm))
    if (dim != static_cast<int64_t>(i))
      return false;
  return true;
}

/// `dims` with negative entries mapped into [0, rank).
static SmallVector<int64_t> normalizedPermutation(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> perm;
  for (int64_t dim : dims)
    perm.push_back(dim < 0 ? dim + static_cast<int64_t>(dims.size()) : dim);
  return perm;
}

static SmallVector<int64_t> transposePermutation(int64_t rank, int64_t dim0,
                                                 int64_t dim1) {
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (rank > 0)
    std::swap(perm[dim0 < 0 ? dim0 + rank : dim0],
              perm[dim1 < 0 ? dim1 + rank : dim1]);
  return perm;
}

//===----------------------------------------------------------------------===//
// Pure reshapes: view, squeeze, unsqueeze
//===----------------------------------------------------------------------===//

OpFoldResult ViewOp::fold(FoldAdaptor adaptor) {
  if (getSelf().getType() == getType())
    return getSelf();
  if (Attribute folded = reshapeConstant(adaptor.getSelf(), getType()))
    return folded;
  // view(view(x)) -> view(x): the intermediate shape does not matter.
  if (auto inner = getSelf().getDefiningOp<ViewOp>()) {
    getSelfMutable().assign(inner.getSelf());
    return getResult();
  }
  return {};
}

OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  if (getSelf().getType() == getType())
    return getSelf();
  return reshapeConstant(adaptor.getSelf(), getType());
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  return reshapeConstant(adaptor.getSelf(), getType());
}

Value etch::edge::permuteQuantizedConstant(OpBuilder &builder,
                                          ConstantOp constant,
                                          ArrayRef<int64_t> perm) {
  auto quantizedType = cast<RankedTensorType>(constant.getType());
  SmallVector<int64_t> shape;
  for (int64_t dim : perm)
    shape.push_back(quantizedType.getDimSize(dim));
  Type element = quantizedType.getElementType();
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(element)) {
    int32_t axis =
        llvm::find(perm, perAxis.getQuantizedDimension()) - perm.begin();
    element = quant::UniformQuantizedPerAxisType::get(
        perAxis.getFlags(), perAxis.getStorageType(),
        perAxis.getExpressedType(), perAxis.getScales(),
        perAxis.getZeroPoints(), axis, perAxis.getStorageTypeMin(),
        perAxis.getStorageTypeMax());
  }
  auto resultType = RankedTensorType::get(shape, element);
  Attribute permuted =
      permuteConstant(constant.getValue(), constant.getResult(),
                      storageTensorType(resultType), perm);
  if (!permuted)
    return Value();
  return builder.create<ConstantOp>(constant.getLoc(), resultType,
                                    cast<ElementsAttr>(permuted));
}

namespace {
/// A squeeze/unsqueeze with a fully static result is a view; canonicalizing
/// to one op lets reshape chains collapse.
template <typename ReshapeLikeOp>
struct ReshapeLikeToView : OpRewritePattern<ReshapeLikeOp> {
  using OpRewritePattern<ReshapeLikeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeLikeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic result shape");
    rewriter.replaceOpWithNewOp<ViewOp>(op, op.getSelf(), ValueRange(),
                                        type.getShape());
    return success();
  }
};

/// permute(permute(x, p), q) -> permute(x, p[q[i]]).
struct PermuteOfPermute : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSelf().getDefiningOp<PermuteOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> outer = normalizedPermutation(op.getDims());
    SmallVector<int64_t> first = normalizedPermutation(inner.getDims());
    SmallVector<int64_t> composed;
    for (int64_t dim : outer)
      composed.push_back(first[dim]);
    rewriter.replaceOpWithNewOp<PermuteOp>(op, inner.getSelf(), composed);
    return success();
  }
};

/// A permuted dequantized constant (decomposed linear layers transpose
/// their int8 weights) is the dequantize of the permuted constant, so the
/// weights stay a quantized constant that targets read as int8.
struct PermuteOfDequantizedConstant : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    auto dequantize = op.getSelf().getDefiningOp<DequantizeOp>();
    auto constant =
        dequantize ? dequantize.getInput().getDefiningOp<ConstantOp>() : nullptr;
    if (!constant)
      return failure();
    Value folded = permuteQuantizedConstant(
        rewriter, constant, normalizedPermutation(op.getDims()));
    if (!folded)
      return failure();
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, op.getType(), folded);
    return success();
  }
};

/// transpose is the permutation that swaps two dims; canonicalizing to
/// permute lets permutation chains compose.
struct TransposeToPermute : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = op.getSelf().getType().getRank();
    if (rank == 0)
      return failure();
    rewriter.replaceOpWithNewOp<PermuteOp>(
        op, op.getSelf(),
        transposePermutation(rank, op.getDim0(), op.getDim1()));
    return success();
  }
};
} // namespace

void SqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeLikeToView<SqueezeOp>>(context);
}

void UnsqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ReshapeLikeToView<UnsqueezeOp>>(context);
}

//===----------------------------------------------------------------------===//
// Permutations
//===----------------------------------------------------------------------===//

OpFoldResult PermuteOp::fold(FoldAdaptor adaptor) {
  SmallVector<int64_t> perm = normalizedPermutation(getDims());
  if (isIdentityPermutation(perm))
    return getSelf();
  return permuteConstant(adaptor.getSelf(), getSelf(), getType(), perm);
}

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<PermuteOfPermute, PermuteOfDequantizedConstant>(context);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType source = getSelf().getType();
  SmallVector<int64_t> perm =
      transposePermutation(source.getRank(), getDim0(), getDim1());
  if (isIdentityPermutation(perm))
    return getSelf();
  return permuteConstant(adaptor.getSelf(), getSelf(), getType(), perm);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<TransposeToPermute>(context);
}

//===----------------------------------------------------------------------===//
// cat, slice, expand
//===----------------------------------------------------------------------===//

OpFoldResult CatOp::fold(FoldAdaptor) {
  if (getTensors().size() == 1 && getTensors().front().getType() == getType())
    return getTensors().front();
  return {};
}

namespace {
/// cat(x0, ..., xk) where cat(x0, ..., xm) is computed earlier (m < k)
/// becomes cat(that, xm+1, ..., xk). DenseNet-style blocks concatenate every
/// earlier feature map at each layer; reusing the previous concatenation
/// copies only the new maps, and lets the memory plan nest each cat in the
/// next so that the whole block's concatenations copy nothing.
struct CatOfEarlierPrefix : OpRewritePattern<CatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CatOp op,
                                PatternRewriter &rewriter) const override {
    OperandRange tensors = op.getTensors();
    if (tensors.size() < 3)
      return failure();
    CatOp longest;
    for (Operation *user : tensors.front().getUsers()) {
      auto prefix = dyn_cast<CatOp>(user);
      if (!prefix || prefix == op || prefix.getDim() != op.getDim() ||
          prefix->getBlock() != op->getBlock() ||
          !prefix->isBeforeInBlock(op))
        continue;
      OperandRange parts = prefix.getTensors();
      if (parts.size() < 2 || parts.size() >= tensors.size() ||
          (longest && parts.size() <= longest.getTensors().size()) ||
          !std::equal(parts.begin(), parts.end(), tensors.begin()))
        continue;
      longest = prefix;
    }
    if (!longest)
      return failure();
    SmallVector<Value> joined = {longest.getResult()};
    llvm::append_range(joined,
                       tensors.drop_front(longest.getTensors().size()));
    rewriter.modifyOpInPlace(op, [&] { op->setOperands(joined); });
    return success();
  }
};
} // namespace

void CatOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<CatOfEarlierPrefix>(context);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  RankedTensorType source = getSelf().getType();
  int64_t rank = source.getRank();
  // I64Attr getters return uint64_t: convert before testing the sign.
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0)
    dim += rank;
  // Equal types say nothing about a dynamic dim (x[:, -1:] of [1, ?, H]
  // is [1, ?, H] too): only a slice of everything is x then.
  constexpr int64_t kNoEnd = std::numeric_limits<int64_t>::max();
  bool everything =
      getStep() == 1 && static_cast<int64_t>(getStart().value_or(0)) == 0 &&
      !getDynamicEnd() &&
      static_cast<int64_t>(getEnd().value_or(kNoEnd)) == kNoEnd;
  if (source == getType() &&
      (everything || !ShapedType::isDynamic(source.getDimSize(dim))))
    return getSelf();
  if (!source.hasStaticShape())
    return {};
  int64_t extent = source.getDimSize(dim);
  int64_t start = getStart().value_or(0);
  if (start < 0)
    start += extent;
  start = std::clamp<int64_t>(start, 0, extent);
  int64_t step = getStep();
  SmallVector<int64_t> sourceStrides = rowMajorStrides(source.getShape());
  SmallVector<int64_t> resultStrides = rowMajorStrides(getType().getShape());
  return gatherConstant(adaptor.getSelf(), getType(), [&](int64_t flat) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t coordinate = (flat / resultStrides[d]) % getType().getDimSize(d);
      if (d == dim)
        coordinate = start + coordinate * step;
      offset += coordinate * sourceStrides[d];
    }
    return offset;
  });
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getSelf().getType() == getType())
    return getSelf();
  // Expanding a splat constant is a bigger splat: no data is copied.
  if (auto dense = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSelf()))
    if (getType().hasStaticShape())
      return DenseElementsAttr::get(getType(),
                                    dense.getSplatValue<Attribute>());
  return {};
}
