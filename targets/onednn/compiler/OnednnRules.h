//===- OnednnRules.h - What the oneDNN target runs -------------*- C++ -*-===//
#ifndef ETCH_TARGETS_ONEDNN_COMPILER_ONEDNNRULES_H
#define ETCH_TARGETS_ONEDNN_COMPILER_ONEDNNRULES_H

#include "edge/EdgeDialect.h"
#include "etch/Quantization/QdqPattern.h"
#include "etch/Quantization/Quantizer.h"
#include "targets/onednn/schema/onednn_blob_generated.h"

#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace etch::onednn {

/// Empty when a oneDNN delegate runs \p op (float32, static shapes; rank-4
/// values NHWC in a delegate with a convolution or pooling); otherwise why
/// not.
std::string whyUnsupported(mlir::Operation *op);

/// 1 (channels-last) for the 2-D ops whose delegates keep rank-4 values
/// NHWC, 0 for the others (see Target::delegateLayout).
unsigned delegateLayout(mlir::Operation *op);

/// A delegate holding a convolution or pooling stores rank-4 values NHWC.
bool keepsChannelsLast(edge::DelegateOp delegate);

using quantization::isConstant;

/// The oneDNN eltwise algorithm (and its alpha, beta) that computes \p op,
/// when one does.
struct EltwiseForm {
  Eltwise algorithm;
  float alpha = 0, beta = 0;
};
std::optional<EltwiseForm> eltwiseForm(mlir::Operation *op);

/// The oneDNN binary algorithm of add/sub/mul/div/maximum/minimum.
std::optional<Binary> binaryForm(mlir::Operation *op);

/// A static tensor of per-tensor 8-bit (s8 or u8) quantized values.
bool isEightBitActivation(mlir::Type type);

/// The oneDNN target's int8 scheme (OnednnQuantizer.cpp).
const quantization::Quantizer &quantizer();

} // namespace etch::onednn

#endif
