//===- QdqPattern.h - Ops that can run on quantized values ------*- C++ -*-===//
//
// Quantized graphs (PT2E, ONNX QDQ, etch's own quantizer) express an int8 op
// as dequantize -> float op [-> relu/hardtanh/clamp] -> quantize. A target
// that has the integer kernel folds that pattern into one quantized node;
// what it does not fold keeps the float semantics, so the program stays
// correct on any target. This is the one place that recognises the pattern.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_QUANTIZATION_QDQPATTERN_H
#define ETCH_QUANTIZATION_QDQPATTERN_H

#include "edge/EdgeDialect.h"
#include "etch/Target/Activation.h"

#include <optional>

namespace etch::quantization {

/// One operand of a quantized op.
struct QuantizedOperand {
  /// The quantized value the operand dequantizes (an activation or a
  /// quantized constant); null when the operand is not dequantized.
  mlir::Value quantized;
  mlir::quant::QuantizedType type; // its element type; null with `quantized`
};

/// `op` reads dequantized operands and its result, possibly through one
/// clamp-like op (relu, hardtanh, clamp), is quantized by `output`.
struct QuantizedOp {
  mlir::Operation *op = nullptr;
  llvm::SmallVector<QuantizedOperand> operands; // one per op operand
  mlir::Operation *activation = nullptr;        // the clamp-like op, if any
  edge::QuantizeOp output;

  mlir::quant::QuantizedType outputType() const;
  /// Per-tensor type of operand \p index, or null (absent, not dequantized,
  /// or per axis).
  mlir::quant::UniformQuantizedType perTensor(size_t index) const;
};

/// relu, hardtanh and clamp (etch/Target/Activation.h).
using etch::isClampLike;

/// \p op as a quantized op: its result has one use, a quantize (directly or
/// through one single-use clamp-like op), and at least one operand is
/// dequantized. Operands that are not dequantized are reported with a null
/// value (float constants such as PT2E's float biases).
std::optional<QuantizedOp> matchQuantizedOp(mlir::Operation *op);

/// A constant, or a dequantized constant: its float values are known at
/// compile time (constantRealValues).
bool isConstant(mlir::Value value);

/// The float values of a constant operand: an f32 constant, or the
/// dequantized values of a quantized constant behind a dequantize.
std::optional<llvm::SmallVector<float>> constantRealValues(mlir::Value value);

/// Erases \p op (a float op a fold replaced), then whatever only it read of
/// the quantized form's pieces: dequantizes, permutes of them, constants.
void eraseWithDeadProducers(mlir::Operation *op);

} // namespace etch::quantization

#endif // ETCH_QUANTIZATION_QDQPATTERN_H
