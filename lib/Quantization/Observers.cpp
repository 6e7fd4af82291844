//===- Observers.cpp - Ranges, histograms and their int8 parameters -------===//
#include "Observers.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace etch::quantization {

AffineParams asymmetricInt8(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  // A constant zero value still needs a valid scale (torch uses float eps).
  double scale = std::max((double(hi) - double(lo)) / 255.0,
                          double(std::numeric_limits<float>::epsilon()));
  double zeroPoint = std::nearbyint(-128.0 - double(lo) / scale);
  return {scale, static_cast<int64_t>(std::clamp(zeroPoint, -128.0, 127.0))};
}

AffineParams unsignedUint8(float hi) {
  return {std::max(double(std::max(hi, 0.0f)) / 255.0,
                   double(std::numeric_limits<float>::epsilon())),
          0};
}

void ValueStats::addRange(const float *data, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(data[i]))
      continue;
    lo = std::min(lo, data[i]);
    hi = std::max(hi, data[i]);
  }
}

void ValueStats::addHistogram(const float *data, size_t count) {
  if (!seen())
    return;
  bins.resize(kBins, 0.0);
  double width = (double(hi) - double(lo)) / kBins;
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(data[i]))
      continue;
    size_t bin = width > 0 ? size_t((double(data[i]) - lo) / width) : 0;
    bins[std::min(bin, kBins - 1)] += 1;
  }
}

std::pair<float, float> ValueStats::range(Observer observer) const {
  if (!seen())
    return {0.0f, 0.0f};
  if (observer == Observer::MinMax || bins.empty())
    return {lo, hi};
  return observer == Observer::Percentile ? percentileRange(1e-4) : mseRange();
}

std::pair<float, float> ValueStats::percentileRange(double tail) const {
  double total = 0;
  for (double count : bins)
    total += count;
  double width = (double(hi) - double(lo)) / kBins, seen = 0;
  size_t first = 0, last = kBins - 1;
  while (first < kBins - 1 && (seen += bins[first]) <= tail * total)
    ++first;
  seen = 0;
  while (last > first && (seen += bins[last]) <= tail * total)
    --last;
  return {float(lo + first * width), float(lo + (last + 1) * width)};
}

/// The clipping range [bin first, bin last] whose expected squared error
/// is least: rounding noise (step^2 / 12) for values inside, the distance
/// to the nearer end for values clipped. Ends move inwards one bin at a
/// time, each step on the side that lowers the error more.
std::pair<float, float> ValueStats::mseRange() const {
  double width = (double(hi) - double(lo)) / kBins;
  auto error = [&](size_t first, size_t last) {
    double begin = lo + first * width, end = lo + (last + 1) * width;
    double step = (end - begin) / 255.0, noise = step * step / 12.0, sum = 0;
    for (size_t b = 0; b < kBins; ++b) {
      if (!bins[b])
        continue;
      double center = lo + (b + 0.5) * width;
      double clipped = center < begin ? begin - center
                       : center > end ? center - end
                                      : 0.0;
      sum += bins[b] * (clipped > 0 ? clipped * clipped : noise);
    }
    return sum;
  };
  size_t first = 0, last = kBins - 1;
  size_t bestFirst = first, bestLast = last;
  double best = error(first, last);
  while (last - first > kBins / 16) {
    double left = error(first + 1, last), right = error(first, last - 1);
    if (left <= right)
      ++first;
    else
      --last;
    double current = std::min(left, right);
    if (current < best) {
      best = current;
      bestFirst = first;
      bestLast = last;
    }
  }
  return {float(lo + bestFirst * width), float(lo + (bestLast + 1) * width)};
}

} // namespace etch::quantization
