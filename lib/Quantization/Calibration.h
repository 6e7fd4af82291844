//===- Calibration.h - Run a function on samples, observe values -*- C++ -*-===//
#ifndef ETCH_LIB_QUANTIZATION_CALIBRATION_H
#define ETCH_LIB_QUANTIZATION_CALIBRATION_H

#include "etch/Quantization/Quantize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>

namespace etch::quantization {

/// A copy of one function compiled for the portable kernels that also
/// returns the observed values, loaded in this process.
class CalibrationProgram {
public:
  /// Builds and loads it; errors at \p func.
  static mlir::FailureOr<std::unique_ptr<CalibrationProgram>>
  create(mlir::func::FuncOp func, llvm::ArrayRef<mlir::Value> observed);
  ~CalibrationProgram();

  /// Runs \p sample and calls \p visit(observed index, values, count) for
  /// every observed value (function arguments straight from the sample).
  mlir::LogicalResult
  run(const CalibrationSample &sample,
      llvm::function_ref<void(size_t, const float *, size_t)> visit);

private:
  struct State;
  explicit CalibrationProgram(std::unique_ptr<State> state);
  std::unique_ptr<State> state;
};

} // namespace etch::quantization

#endif // ETCH_LIB_QUANTIZATION_CALIBRATION_H
