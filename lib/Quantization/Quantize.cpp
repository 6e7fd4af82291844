//===- Quantize.cpp - Post-training int8: plan, calibrate, rewrite --------===//
#include "etch/Quantization/Quantize.h"

#include "Calibration.h"
#include "Observers.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Quantization/QdqPattern.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace etch::edge;

namespace etch::quantization {
namespace {

bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getElementType().isF32() && type.hasStaticShape();
}

/// What to quantize in one function: activations (in program order, each
/// once) with the value whose parameters they take, and weights.
struct Plan {
  SmallVector<Value> activations;
  llvm::DenseMap<Value, Value> sharesWith;
  SmallVector<std::pair<OpOperand *, WeightGranularity>> weights;

  void addActivation(Value value) {
    if (!llvm::is_contained(activations, value))
      activations.push_back(value);
  }
  /// The value whose observed range gives \p value's parameters.
  Value parameterSource(Value value) const {
    for (auto it = sharesWith.find(value); it != sharesWith.end();
         it = sharesWith.find(value))
      value = it->second;
    return value;
  }
};

Plan makePlan(func::FuncOp func, const Quantizer &quantizer) {
  Plan plan;
  llvm::DenseSet<Operation *> fusedActivations;
  for (Operation &op : func.getBody().front()) {
    if (fusedActivations.count(&op))
      continue;
    std::optional<OpScheme> scheme = quantizer.scheme(&op);
    if (!scheme || op.getNumResults() != 1 || !isFloatTensor(op.getResult(0)))
      continue;
    bool usable = llvm::all_of(scheme->activations, [&](unsigned index) {
      return index < op.getNumOperands() && isFloatTensor(op.getOperand(index));
    });
    if (scheme->weight)
      usable = usable && *scheme->weight < op.getNumOperands() &&
               getConstantFloats(op.getOperand(*scheme->weight));
    if (!usable)
      continue;
    Value output = op.getResult(0);
    float low, high;
    if (scheme->fusesActivation && output.hasOneUse() &&
        isClampLike(*output.getUsers().begin(), low, high)) {
      Operation *activation = *output.getUsers().begin();
      fusedActivations.insert(activation);
      output = activation->getResult(0);
    }
    for (unsigned index : scheme->activations)
      plan.addActivation(op.getOperand(index));
    if (scheme->sharesInputParameters)
      plan.sharesWith[output] = op.getOperand(scheme->activations.front());
    plan.addActivation(output);
    if (scheme->weight)
      plan.weights.push_back(
          {&op.getOpOperand(*scheme->weight), scheme->weightGranularity});
  }
  return plan;
}

/// Seeded standard-normal float inputs (integer inputs: small ids).
std::vector<CalibrationSample> randomSamples(func::FuncOp func,
                                             unsigned count) {
  std::mt19937 generator(20261122);
  std::normal_distribution<float> normal;
  std::vector<CalibrationSample> samples(count);
  for (CalibrationSample &sample : samples)
    for (Type type : func.getArgumentTypes()) {
      auto tensor = cast<RankedTensorType>(type);
      HostTensor input;
      input.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
      input.origin = "random";
      int64_t numel = tensor.getNumElements();
      if (tensor.getElementType().isInteger(64)) {
        input.type = runtime::ScalarType::Int64;
        std::vector<int64_t> ids(numel);
        for (int64_t &id : ids)
          id = generator() % 100;
        input.data.resize(numel * sizeof(int64_t));
        std::memcpy(input.data.data(), ids.data(), input.data.size());
      } else {
        std::vector<float> values(numel);
        for (float &value : values)
          value = normal(generator);
        input.data.resize(numel * sizeof(float));
        std::memcpy(input.data.data(), values.data(), input.data.size());
      }
      sample.push_back(std::move(input));
    }
  return samples;
}

class Progress {
public:
  Progress(bool show, size_t total) : show(show), total(total) {}
  void step(const char *phase, size_t done) {
    if (!show)
      return;
    size_t filled = total ? 30 * done / total : 30;
    llvm::errs() << "\rcalibrating (" << phase << ") ["
                 << std::string(filled, '#') << std::string(30 - filled, '.')
                 << "] " << done << "/" << total;
    if (done == total)
      llvm::errs() << "\n";
  }

private:
  bool show;
  size_t total;
};

/// Observes every planned activation over the samples: ranges, then (for
/// the histogram observers) histograms over those ranges.
FailureOr<std::vector<ValueStats>>
observe(func::FuncOp func, const Plan &plan,
        const std::vector<CalibrationSample> &samples,
        const QuantizeOptions &options) {
  FailureOr<std::unique_ptr<CalibrationProgram>> program =
      CalibrationProgram::create(func, plan.activations);
  if (failed(program))
    return failure();
  std::vector<ValueStats> stats(plan.activations.size());
  bool histogram = options.observer != Observer::MinMax;
  for (int pass = 0; pass < (histogram ? 2 : 1); ++pass) {
    Progress progress(options.showProgress, samples.size());
    for (size_t s = 0; s < samples.size(); ++s) {
      if (failed((*program)->run(
              samples[s], [&](size_t index, const float *data, size_t count) {
                pass == 0 ? stats[index].addRange(data, count)
                          : stats[index].addHistogram(data, count);
              })))
        return failure();
      progress.step(pass == 0 ? "ranges" : "histograms", s + 1);
    }
  }
  return stats;
}

void insertQuantization(Value value, quant::QuantizedType type) {
  OpBuilder builder(value.getContext());
  if (auto argument = dyn_cast<BlockArgument>(value))
    builder.setInsertionPointToStart(argument.getOwner());
  else
    builder.setInsertionPointAfter(value.getDefiningOp());
  auto tensor = cast<RankedTensorType>(value.getType());
  auto quantize =
      builder.create<QuantizeOp>(value.getLoc(), tensor.clone(type), value);
  auto dequantize =
      builder.create<DequantizeOp>(value.getLoc(), tensor, quantize);
  value.replaceAllUsesExcept(dequantize, quantize);
}

/// Symmetric int8 [-127, 127] weights, per channel along dim 0 or per
/// tensor, as a quantized constant behind a dequantize.
void quantizeWeight(OpOperand &operand, WeightGranularity granularity) {
  Value weight = operand.get();
  SmallVector<float> values = *getConstantFloats(weight);
  auto type = cast<RankedTensorType>(weight.getType());
  bool perChannel =
      granularity == WeightGranularity::PerChannel && type.getRank() > 0;
  int64_t channels = perChannel ? type.getDimSize(0) : 1;
  int64_t inner = channels ? int64_t(values.size()) / channels : 0;
  SmallVector<double> scales;
  std::string bytes(values.size(), '\0');
  for (int64_t c = 0; c < channels; ++c) {
    float largest = 0;
    for (int64_t i = c * inner; i < (c + 1) * inner; ++i)
      largest = std::max(largest, std::fabs(values[i]));
    double scale = std::max(double(largest) / 127.0,
                            double(std::numeric_limits<float>::epsilon()));
    scales.push_back(scale);
    for (int64_t i = c * inner; i < (c + 1) * inner; ++i)
      bytes[i] = static_cast<char>(
          std::clamp(std::nearbyint(values[i] / static_cast<float>(scale)),
                     -127.0f, 127.0f));
  }
  MLIRContext *context = weight.getContext();
  auto storage = IntegerType::get(context, 8);
  auto emitError = [&] { return mlir::emitError(weight.getLoc()); };
  quant::QuantizedType element = getUniformType(
      emitError, storage, scales, SmallVector<int64_t>(channels, 0),
      perChannel ? std::optional<int32_t>(0) : std::nullopt, -127, 127);
  OpBuilder builder(operand.getOwner());
  auto quantizedType = type.clone(element);
  auto constant = builder.create<ConstantOp>(
      weight.getLoc(), quantizedType,
      makeConstantFromOwnedBytes(storageTensorType(quantizedType),
                                 std::move(bytes), "quantized_weight"));
  operand.set(builder.create<DequantizeOp>(weight.getLoc(), type, constant));
}

LogicalResult quantizeFunction(func::FuncOp func,
                               const QuantizeOptions &options) {
  Plan plan = makePlan(func, *options.quantizer);
  if (plan.activations.empty()) {
    emitWarning(func.getLoc()) << "quantize: no op of '" << func.getSymName()
                               << "' runs in int8 on the chosen target";
    return success();
  }
  std::vector<CalibrationSample> random;
  const std::vector<CalibrationSample> *samples = &options.samples;
  if (samples->empty()) {
    emitWarning(func.getLoc())
        << "quantize: no calibration data (--calibration-data): calibrating "
           "on "
        << options.randomSamples
        << " random normal inputs; int8 accuracy on real inputs will suffer";
    random = randomSamples(func, options.randomSamples);
    samples = &random;
  }
  FailureOr<std::vector<ValueStats>> stats =
      observe(func, plan, *samples, options);
  if (failed(stats))
    return failure();
  llvm::DenseMap<Value, size_t> indexOf;
  for (auto [index, value] : llvm::enumerate(plan.activations))
    indexOf[value] = index;
  SmallVector<quant::QuantizedType> types;
  MLIRContext *context = func.getContext();
  auto signedStorage = IntegerType::get(context, 8);
  auto unsignedStorage = IntegerType::get(context, 8, IntegerType::Unsigned);
  bool unsignedWhenNonNegative =
      options.quantizer->unsignedNonNegativeActivations();
  for (Value value : plan.activations) {
    auto [lo, hi] =
        (*stats)[indexOf[plan.parameterSource(value)]].range(options.observer);
    bool asUnsigned = unsignedWhenNonNegative && lo >= 0;
    AffineParams params =
        asUnsigned ? unsignedUint8(hi) : asymmetricInt8(lo, hi);
    auto emitError = [&] { return mlir::emitError(value.getLoc()); };
    types.push_back(
        getUniformType(emitError, asUnsigned ? unsignedStorage : signedStorage,
                       {params.scale}, {params.zeroPoint}, std::nullopt,
                       asUnsigned ? 0 : -128, asUnsigned ? 255 : 127));
    if (!types.back())
      return failure();
  }
  for (auto [value, type] : llvm::zip(plan.activations, types))
    insertQuantization(value, type);
  for (auto [operand, granularity] : plan.weights)
    quantizeWeight(*operand, granularity);
  return success();
}

} // namespace

std::optional<Observer> parseObserver(llvm::StringRef name) {
  if (name == "minmax")
    return Observer::MinMax;
  if (name == "percentile")
    return Observer::Percentile;
  if (name == "mse")
    return Observer::Mse;
  return std::nullopt;
}

LogicalResult quantizeModule(ModuleOp module, const QuantizeOptions &options) {
  if (!options.quantizer)
    return module.emitError("quantize: no target with a quantizer");
  for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
    if (!func.isExternal() && failed(quantizeFunction(func, options)))
      return failure();
  return success();
}

} // namespace etch::quantization
