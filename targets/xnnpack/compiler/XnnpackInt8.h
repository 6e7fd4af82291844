//===- XnnpackInt8.h - Which int8 nodes XNNPACK 2022 has -------*- C++ -*-===//
//
// What the lowering asks before it makes a dequantize -> op -> quantize
// pattern one XNNPACK int8 node, and the int8 weight data it writes.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TARGETS_XNNPACK_COMPILER_XNNPACKINT8_H
#define ETCH_TARGETS_XNNPACK_COMPILER_XNNPACKINT8_H

#include "etch/Quantization/QdqPattern.h"

#include "mlir/Dialect/Quant/QuantTypes.h"

#include <vector>

namespace etch::xnnpack {

/// An int8 activation operand: a per-tensor qint8 value computed at run
/// time.
bool isInt8Activation(const quantization::QuantizedOperand &operand);

/// Symmetric int8 weights: a quantized constant with zero points 0, per
/// tensor or (when \p perChannel) per index of dim 0.
bool isInt8Weight(const quantization::QuantizedOperand &operand,
                  bool perChannel);

/// Whether XNNPACK 2022 has the int8 node for \p q: conv/depthwise with
/// per-channel or per-tensor weights, fully connected with per-tensor
/// weights only, add, multiply, max pooling and reshapes/clamps that keep
/// their input's parameters, global average pooling. Everything else in
/// a quantized graph runs in fp32 between converts, in the same delegate.
bool supportsInt8(const quantization::QuantizedOp &q);

/// Whether XNNPACK's int8 node takes \p q's scales (QuantizationLimits.h,
/// in the f32 the blob stores); outside them \p q runs in fp32 between
/// converts. A pooling over dynamic extents is checked at run time.
bool int8ScalesSupported(const quantization::QuantizedOp &q);

/// The int8 storage of a quantized constant.
std::vector<int8_t> storedInt8(mlir::Value quantized);

/// Per-output-channel scales of int8 weights (a per-tensor scale
/// repeated).
std::vector<float> weightScales(mlir::quant::QuantizedType type,
                                int64_t channels);

} // namespace etch::xnnpack

#endif
