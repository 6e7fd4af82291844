//===- QuantizeWeights.cpp - etch-quantize-weights: weight-only int8/int4 -===//
//
// `et-compile --quantize=int8-weight|int4-weight`: every constant weight of
// a linear (linear, mm, addmm) and of an embedding is replaced by its
// quantized form and the dequantize that gives it back -- the graph torch's
// weight-only flows write -- so partitioning and etch-fold-weight-only-ops
// treat both the same. Activations stay float; no calibration is needed.
//   int8: per output channel, symmetric: scale = max|w| / 127, [-127, 127].
//   int4: per group of `group-size` columns of a row: the value of largest
//         magnitude maps to -8 (llama.cpp Q4_0's rule), [-8, 7].
//
//===----------------------------------------------------------------------===//
#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "edge/QuantTypes.h"
#include "etch/Transforms/Passes.h"

#include <cmath>

namespace etch {
#define GEN_PASS_DEF_QUANTIZEWEIGHTS
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch::edge;

namespace {

/// The f32 constant W[rows, columns] and whether the op reads its
/// transpose (mm/addmm take W^T [K, N]).
struct WeightUse {
  OpOperand *operand;
  bool transposed;
};

std::optional<WeightUse> weightUse(Operation *op) {
  auto use = [&](unsigned index, bool transposed) -> std::optional<WeightUse> {
    Value weight = op->getOperand(index);
    auto type = cast<RankedTensorType>(weight.getType());
    if (!weight.getDefiningOp<ConstantOp>() || type.getRank() != 2 ||
        !type.getElementType().isF32() || !type.hasStaticShape())
      return std::nullopt;
    return WeightUse{&op->getOpOperand(index), transposed};
  };
  if (isa<LinearOp>(op))
    return use(1, false);
  if (isa<MmOp>(op))
    return use(1, true);
  if (isa<AddmmOp>(op))
    return use(2, true);
  if (isa<EmbeddingOp>(op))
    return use(0, false);
  return std::nullopt;
}

/// Rows (output features) of \p values [a, b]; \p transposed: [columns,
/// rows] as stored.
std::vector<float> rowsOf(ArrayRef<float> values, int64_t rows,
                          int64_t columns, bool transposed) {
  std::vector<float> result(values.begin(), values.end());
  if (transposed)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c)
        result[r * columns + c] = values[c * rows + r];
  return result;
}

struct QuantizeWeightsPass
    : etch::impl::QuantizeWeightsBase<QuantizeWeightsPass> {
  using QuantizeWeightsBase::QuantizeWeightsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (bits != 8 && bits != 4) {
      func.emitError("etch-quantize-weights: bits must be 8 or 4, got ")
          << static_cast<int64_t>(bits);
      return signalPassFailure();
    }
    if (bits == 4 && (groupSize <= 0 || groupSize % 32 != 0)) {
      func.emitError("etch-quantize-weights: int4 group-size must be a "
                     "positive multiple of 32, got ")
          << static_cast<int64_t>(groupSize);
      return signalPassFailure();
    }
    // One quantized copy per constant, whichever ops read it.
    llvm::DenseMap<std::pair<Value, unsigned>, Value> quantized;
    SmallVector<WeightUse> uses;
    func.walk([&](Operation *op) {
      if (op->getParentOfType<DelegateOp>())
        return;
      if (std::optional<WeightUse> use = weightUse(op))
        uses.push_back(*use);
    });
    OpBuilder builder(&getContext());
    for (const WeightUse &use : uses) {
      Value weight = use.operand->get();
      auto [it, inserted] = quantized.try_emplace({weight, use.transposed});
      if (inserted) {
        builder.setInsertionPointAfterValue(weight);
        it->second = quantize(builder, weight, use.transposed);
      }
      if (it->second)
        use.operand->set(it->second);
    }
    // The float weights nothing reads any more.
    for (auto &[key, replacement] : quantized)
      if (Operation *constant = key.first.getDefiningOp();
          constant && constant->use_empty())
        constant->erase();
  }

  /// The dequantized replacement of \p weight (read transposed when
  /// \p transposed), or null when it does not fit the scheme.
  Value quantize(OpBuilder &builder, Value weight, bool transposed) {
    auto type = cast<RankedTensorType>(weight.getType());
    std::optional<SmallVector<float>> values = getConstantFloats(weight);
    if (!values)
      return Value();
    int64_t rows = type.getDimSize(transposed ? 1 : 0);
    int64_t columns = type.getDimSize(transposed ? 0 : 1);
    std::vector<float> w = rowsOf(*values, rows, columns, transposed);
    Value result = bits == 8 ? perChannel(builder, weight.getLoc(), w, rows,
                                          columns)
                             : perGroup(builder, weight.getLoc(), w, rows,
                                        columns);
    if (result && transposed)
      result = builder.create<PermuteOp>(
          weight.getLoc(), result, builder.getDenseI64ArrayAttr({1, 0}));
    return result;
  }

  /// int8 per output channel: a quantized constant and its dequantize.
  Value perChannel(OpBuilder &builder, Location loc, ArrayRef<float> w,
                   int64_t rows, int64_t columns) {
    SmallVector<double> scales(rows);
    std::string data(rows * columns, '\0');
    for (int64_t r = 0; r < rows; ++r) {
      float largest = 0;
      for (int64_t c = 0; c < columns; ++c)
        largest = std::max(largest, std::fabs(w[r * columns + c]));
      scales[r] = largest > 0 ? largest / 127.0 : 1.0;
      for (int64_t c = 0; c < columns; ++c)
        data[r * columns + c] = static_cast<char>(std::clamp<long>(
            std::lrint(w[r * columns + c] / scales[r]), -127, 127));
    }
    IntegerType storage = builder.getI8Type();
    quant::QuantizedType element = getUniformType(
        [&] { return emitError(loc); }, storage, scales,
        SmallVector<int64_t>(rows, 0), /*axis=*/0, -127, 127);
    if (!element)
      return Value();
    auto storageType = RankedTensorType::get({rows, columns}, storage);
    Value constant = builder.create<ConstantOp>(
        loc, RankedTensorType::get({rows, columns}, element),
        makeConstantFromOwnedBytes(storageType, std::move(data),
                                   "int8_weight"));
    return builder.create<DequantizeOp>(
        loc, RankedTensorType::get({rows, columns}, builder.getF32Type()),
        constant);
  }

  /// int4 per group of columns: int8 storage, f32 scales and the groupwise
  /// dequantize.
  Value perGroup(OpBuilder &builder, Location loc, ArrayRef<float> w,
                 int64_t rows, int64_t columns) {
    int64_t group = groupSize;
    if (columns % group != 0)
      return Value(); // stays float: the groups must tile the row
    int64_t groups = columns / group;
    std::vector<float> scales(rows * groups);
    std::string data(rows * columns, '\0');
    for (int64_t g = 0; g < rows * groups; ++g) {
      const float *values = w.data() + g * group;
      float extreme = 0;
      for (int64_t i = 0; i < group; ++i)
        if (std::fabs(values[i]) > std::fabs(extreme))
          extreme = values[i];
      float scale = extreme != 0 ? extreme / -8.0f : 1.0f;
      scales[g] = scale;
      for (int64_t i = 0; i < group; ++i)
        data[g * group + i] = static_cast<char>(
            std::clamp<long>(std::lrint(values[i] / scale), -8, 7));
    }
    Value q = builder.create<ConstantOp>(
        loc, makeConstantFromOwnedBytes(
                 RankedTensorType::get({rows, columns}, builder.getI8Type()),
                 std::move(data), "int4_weight"));
    Value s = builder.create<ConstantOp>(
        loc, makeFloatConstant(
                 RankedTensorType::get({rows, groups}, builder.getF32Type()),
                 scales, "int4_scales"));
    return builder.create<DequantizePerChannelGroupOp>(
        loc, RankedTensorType::get({rows, columns}, builder.getF32Type()), q,
        s, Value(), builder.getI64IntegerAttr(group),
        builder.getI64IntegerAttr(-8), builder.getI64IntegerAttr(7));
  }
};

} // namespace
