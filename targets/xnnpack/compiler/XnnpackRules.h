//===- XnnpackRules.h - What Debian's XNNPACK (2022) runs ------*- C++ -*-===//
#ifndef ETCH_TARGETS_XNNPACK_COMPILER_XNNPACKRULES_H
#define ETCH_TARGETS_XNNPACK_COMPILER_XNNPACKRULES_H

#include "edge/EdgeDialect.h"
#include "etch/Quantization/QdqPattern.h"
#include "etch/Quantization/Quantizer.h"

#include "mlir/IR/Operation.h"

#include <string>

namespace etch::xnnpack {

/// Empty when the XNNPACK subgraph API can run \p op inside a delegate
/// (where rank-4 tensors may be NHWC: delegateLayout); otherwise the reason.
std::string whyUnsupported(mlir::Operation *op);

/// How a delegate holding an op must store its rank-4 values.
enum class DelegateLayout : unsigned {
  Any = 0,
  ChannelsLast = 1, // XNNPACK's 2-D operators: convolution, pooling
  Program = 2,      // a fully connected layer over a rank-4 value's last dim
};
DelegateLayout delegateLayout(mlir::Operation *op);

/// A delegate holding a channels-last op stores every rank-4 value NHWC.
bool keepsChannelsLast(edge::DelegateOp delegate);

/// relu/hardtanh/clamp: a clamp XNNPACK fuses into the output range of the
/// op producing its input.
using quantization::isClampLike;

using quantization::isConstant;

/// XNNPACK's int8 scheme (XnnpackQuantizer.cpp).
const quantization::Quantizer &quantizer();

/// True for XNNPACK's per-tensor signed int8 (qint8) quantized type.
bool isQint8(mlir::Type elementType);

} // namespace etch::xnnpack

#endif
