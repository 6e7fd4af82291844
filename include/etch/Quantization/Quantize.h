//===- Quantize.h - Post-training int8 quantization -------------*- C++ -*-===//
//
// `et-compile --quantize=int8`: a target's quantizer picks the ops, the
// program runs on sample inputs in-process (the runtime's portable kernels)
// while observers record every value to be quantized, and quantize /
// dequantize pairs with the chosen parameters are inserted, int8 weights
// stored as quantized constants. The result is the same kind of Q/DQ graph
// PT2E and ONNX QDQ files hold, so every target lowers it the same way.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_QUANTIZATION_QUANTIZE_H
#define ETCH_QUANTIZATION_QUANTIZE_H

#include "etch/Quantization/Quantizer.h"
#include "runtime/core/ScalarType.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace etch::quantization {

/// One input tensor of a calibration sample.
struct HostTensor {
  runtime::ScalarType type = runtime::ScalarType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  std::string origin; // the file it came from, for messages
};
using CalibrationSample = std::vector<HostTensor>; // one per model input

enum class Observer {
  MinMax,     // the observed range
  Percentile, // the range holding all but 0.01% of values at each end
  Mse,        // the clipping range with the least expected squared error
};

struct QuantizeOptions {
  const Quantizer *quantizer = nullptr;
  Observer observer = Observer::Mse;
  /// Empty: `randomSamples` seeded standard-normal inputs, with a warning.
  std::vector<CalibrationSample> samples;
  unsigned randomSamples = 16;
  bool showProgress = true;
};

/// Quantizes every function of \p module in place; errors at the function.
mlir::LogicalResult quantizeModule(mlir::ModuleOp module,
                                   const QuantizeOptions &options);

/// Parses "minmax", "percentile" or "mse".
std::optional<Observer> parseObserver(llvm::StringRef name);

} // namespace etch::quantization

#endif // ETCH_QUANTIZATION_QUANTIZE_H
