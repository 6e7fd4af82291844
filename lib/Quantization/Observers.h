//===- Observers.h - Value statistics and int8 parameters -------*- C++ -*-===//
#ifndef ETCH_LIB_QUANTIZATION_OBSERVERS_H
#define ETCH_LIB_QUANTIZATION_OBSERVERS_H

#include "etch/Quantization/Quantize.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace etch::quantization {

/// Parameters of 8-bit activations: real = (q - zeroPoint) * scale.
struct AffineParams {
  double scale;
  int64_t zeroPoint;
};

/// The int8 parameters covering [lo, hi] (widened to include 0, so zero is
/// exact: padding and relu outputs).
AffineParams asymmetricInt8(float lo, float hi);

/// The uint8 [0, 255] parameters covering [0, hi], zero point 0.
AffineParams unsignedUint8(float hi);

/// What an observer keeps about one value: its range (first pass over the
/// samples) and, for the histogram observers, a histogram over that range
/// (second pass).
class ValueStats {
public:
  static constexpr size_t kBins = 512;
  void addRange(const float *data, size_t count);
  void addHistogram(const float *data, size_t count);
  bool seen() const { return lo <= hi; }
  /// The range \p observer picks.
  std::pair<float, float> range(Observer observer) const;

private:
  std::pair<float, float> percentileRange(double tail) const;
  std::pair<float, float> mseRange() const;
  float lo = 3.4e38f, hi = -3.4e38f;
  std::vector<double> bins;
};

} // namespace etch::quantization

#endif // ETCH_LIB_QUANTIZATION_OBSERVERS_H
