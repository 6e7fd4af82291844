//===- Quantizer.h - A target's int8 scheme ---------------------*- C++ -*-===//
//
// Post-training quantization asks the target which ops it runs in int8 and
// how: which operands are int8 activations (asymmetric, per tensor), which
// is the weight (symmetric, per channel or per tensor), and whether the
// result keeps its input's parameters (pooling, reshapes, clamps: ops whose
// int8 kernels copy or compare values). Each target's quantizer lives in
// its compiler folder, beside its support rules.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_QUANTIZATION_QUANTIZER_H
#define ETCH_QUANTIZATION_QUANTIZER_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace etch::quantization {

enum class WeightGranularity { PerTensor, PerChannel };

struct OpScheme {
  /// Operand indices read as int8 activations.
  llvm::SmallVector<unsigned, 2> activations;
  /// The constant weight operand, quantized symmetric int8 [-127, 127]
  /// (per channel: along dim 0 of the operand).
  std::optional<unsigned> weight;
  WeightGranularity weightGranularity = WeightGranularity::PerChannel;
  /// The result takes the first activation's parameters instead of its own.
  bool sharesInputParameters = false;
  /// A single-use relu/hardtanh/clamp after the op runs inside it: the
  /// clamp's result is the one quantized.
  bool fusesActivation = false;
};

class Quantizer {
public:
  virtual ~Quantizer() = default;
  /// How \p op runs in int8, or std::nullopt to keep it in float.
  virtual std::optional<OpScheme> scheme(mlir::Operation *op) const = 0;
  /// Whether an activation never seen below zero is stored as uint8 with
  /// zero point 0 (relu outputs) instead of int8 with zero point -128:
  /// for kernels that pay for a source zero point (oneDNN's VNNI ones).
  virtual bool unsignedNonNegativeActivations() const { return false; }
};

} // namespace etch::quantization

#endif // ETCH_QUANTIZATION_QUANTIZER_H
