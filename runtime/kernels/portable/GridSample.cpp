// grid_sampler_2d: each output pixel reads input at the grid's normalized
// (x, y), bilinear, nearest or bicubic, with zeros, border or reflection
// padding: torch's CPU kernel's rules, which ONNX GridSample shares.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>

namespace etch::runtime::portable {
namespace {

enum Interpolation { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding { kZeros = 0, kBorder = 1, kReflection = 2 };

/// [-1, 1] to pixel coordinates.
template <typename T> T unnormalize(T coord, int64_t size, bool alignCorners) {
  return alignCorners ? (coord + 1) / 2 * (size - 1)
                      : ((coord + 1) * size - 1) / 2;
}

/// \p coord folded into [low / 2, high / 2] by reflecting at its ends.
template <typename T> T reflect(T coord, int64_t twiceLow, int64_t twiceHigh) {
  if (twiceLow == twiceHigh)
    return 0;
  T low = T(twiceLow) / 2, span = T(twiceHigh - twiceLow) / 2;
  coord = std::fabs(coord - low);
  T extra = std::fmod(coord, span);
  int64_t flips = static_cast<int64_t>(std::floor(coord / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

template <typename T> T clip(T coord, int64_t size) {
  return std::min(T(size - 1), std::max(coord, T(0)));
}

/// Where padding sends a pixel coordinate (zeros: nowhere new).
template <typename T>
T pad(T coord, int64_t size, int padding, bool alignCorners) {
  if (padding == kBorder)
    return clip(coord, size);
  if (padding == kReflection) {
    coord = alignCorners ? reflect(coord, 0, 2 * (size - 1))
                         : reflect(coord, -1, 2 * size - 1);
    return clip(coord, size);
  }
  return coord;
}

struct Plane {
  const float *data;
  int64_t height, width;
  /// The pixel, or 0 outside the plane.
  float at(int64_t y, int64_t x) const {
    return y >= 0 && y < height && x >= 0 && x < width ? data[y * width + x]
                                                       : 0.0f;
  }
};

float cubicNear(float t, float a) { // |t| <= 1
  return ((a + 2) * t - (a + 3)) * t * t + 1;
}
float cubicFar(float t, float a) { // 1 < |t| < 2
  return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
}
void cubicWeights(float t, float w[4]) {
  constexpr float a = -0.75f;
  w[0] = cubicFar(t + 1, a);
  w[1] = cubicNear(t, a);
  w[2] = cubicNear(1 - t, a);
  w[3] = cubicFar(2 - t, a);
}

float sample(const Plane &plane, float gx, float gy, int mode, int padding,
             bool alignCorners) {
  float x = unnormalize(gx, plane.width, alignCorners);
  float y = unnormalize(gy, plane.height, alignCorners);
  if (mode == kBicubic) {
    // Taps around the unpadded point, each padded on its own.
    float x0 = std::floor(x), y0 = std::floor(y);
    float wx[4], wy[4];
    cubicWeights(x - x0, wx);
    cubicWeights(y - y0, wy);
    float sum = 0;
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        float tx = pad(x0 - 1 + i, plane.width, padding, alignCorners);
        float ty = pad(y0 - 1 + j, plane.height, padding, alignCorners);
        sum += wx[i] * wy[j] *
               plane.at(static_cast<int64_t>(ty), static_cast<int64_t>(tx));
      }
    return sum;
  }
  x = pad(x, plane.width, padding, alignCorners);
  y = pad(y, plane.height, padding, alignCorners);
  if (mode == kNearest)
    return plane.at(static_cast<int64_t>(std::nearbyint(y)),
                    static_cast<int64_t>(std::nearbyint(x)));
  int64_t x0 = static_cast<int64_t>(std::floor(x)),
          y0 = static_cast<int64_t>(std::floor(y));
  float fx = x - x0, fy = y - y0;
  return plane.at(y0, x0) * (1 - fx) * (1 - fy) +
         plane.at(y0, x0 + 1) * fx * (1 - fy) +
         plane.at(y0 + 1, x0) * (1 - fx) * fy +
         plane.at(y0 + 1, x0 + 1) * fx * fy;
}

} // namespace

Error validateGridSampler2d(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  const TensorView &input = *call.inputs[0], &grid = *call.inputs[1];
  ET_CHECK_OK(checkType(call, &input, "input", ScalarType::Float32));
  ET_CHECK_OK(checkType(call, &grid, "grid", ScalarType::Float32));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Float32));
  if (input.rank() != 4 || grid.rank() != 4 || grid.size(3) != 2 ||
      grid.size(0) != input.size(0))
    return kernelError(call, Error::InvalidShape,
                       "needs input [N, C, H, W] and grid [N, Ho, Wo, 2]");
  if (call.intAttr("interpolation_mode", 0) > 2 ||
      call.intAttr("padding_mode", 0) > 2)
    return kernelError(call, Error::InvalidProgram,
                       "interpolation_mode and padding_mode are 0, 1 or 2");
  int64_t shape[4] = {input.size(0), input.size(1), grid.size(1), grid.size(2)};
  return checkShape(call, call.outputs[0], "output", shape, 4);
}

void runGridSampler2d(const KernelCall &call) {
  const TensorView &input = *call.inputs[0], &grid = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  int mode = static_cast<int>(call.intAttr("interpolation_mode", 0));
  int padding = static_cast<int>(call.intAttr("padding_mode", 0));
  bool alignCorners = call.boolAttr("align_corners", false);
  int64_t channels = input.size(1), height = input.size(2),
          width = input.size(3), points = grid.size(1) * grid.size(2);
  const float *in = input.data<float>(), *g = grid.data<float>();
  float *dst = out.data<float>();
  for (int64_t n = 0; n < input.size(0); ++n)
    for (int64_t c = 0; c < channels; ++c) {
      Plane plane{in + (n * channels + c) * height * width, height, width};
      const float *where = g + n * points * 2;
      float *row = dst + (n * channels + c) * points;
      for (int64_t p = 0; p < points; ++p)
        row[p] = sample(plane, where[2 * p], where[2 * p + 1], mode, padding,
                        alignCorners);
    }
}

} // namespace etch::runtime::portable
