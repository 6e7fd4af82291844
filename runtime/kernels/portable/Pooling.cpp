// max and average pooling over (N)CHW and (N)CDHW, adaptive_avg_pool2d and
// upsampling over CHW or NCHW float32.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace etch::runtime::portable {
namespace {

/// A pooling window over (D, H, W); 2-D pooling has depth 1 (kernel 1,
/// stride 1, no padding), so one loop nest serves both.
struct Window {
  int64_t kernel[3], stride[3], padding[3], dilation[3];
  bool ceilMode;
};

Window windowOf(const KernelCall &call, int spatial) {
  Span<const int64_t> kernel = call.intsAttr("kernel_size");
  Span<const int64_t> stride = call.intsAttr("stride");
  Span<const int64_t> padding = call.intsAttr("padding");
  Span<const int64_t> dilation = call.intsAttr("dilation");
  Window w{{1, 1, 1},
           {1, 1, 1},
           {0, 0, 0},
           {1, 1, 1},
           call.boolAttr("ceil_mode", false)};
  for (int i = 0; i < spatial; ++i) {
    int at = 3 - spatial + i;
    w.kernel[at] = kernel[i];
    w.stride[at] = stride.empty() ? kernel[i] : stride[i];
    if (!padding.empty())
      w.padding[at] = padding[i];
    if (!dilation.empty())
      w.dilation[at] = dilation[i];
  }
  return w;
}

/// Planes (N*C) and (D, H, W) extents of a tensor whose last \p spatial dims
/// are spatial (depth 1 for 2-D).
struct Volume {
  int64_t planes, extent[3];
  int64_t size() const { return extent[0] * extent[1] * extent[2]; }
};

Volume volumeOf(const TensorView &t, int spatial) {
  Volume v{0, {1, 1, 1}};
  for (int i = 0; i < spatial; ++i)
    v.extent[3 - spatial + i] = t.size(t.rank() - spatial + i);
  v.planes = v.size() != 0 ? t.numel() / v.size() : 0;
  return v;
}

Error validateWindowed(const KernelCall &call, int spatial, bool hasDilation,
                       size_t outputs = 1) {
  ET_CHECK_OK(checkArity(call, 1, 1, outputs));
  const TensorView &in = *call.inputs[0];
  // Max pooling takes the element types maxPool dispatches on.
  ScalarType type = in.scalarType();
  bool anyType =
      hasDilation && (type == ScalarType::Float64 ||
                      type == ScalarType::UInt8 || type == ScalarType::Int8 ||
                      type == ScalarType::Int32 || type == ScalarType::Int64);
  if (!anyType)
    ET_CHECK_OK(checkType(call, &in, "self", ScalarType::Float32));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", type));
  if (in.rank() != spatial + 1 && in.rank() != spatial + 2)
    return kernelError(call, Error::InvalidShape,
                       spatial == 3 ? "self must be CDHW or NCDHW"
                                    : "self must be CHW or NCHW");
  Span<const int64_t> kernel = call.intsAttr("kernel_size");
  Span<const int64_t> stride = call.intsAttr("stride");
  Span<const int64_t> padding = call.intsAttr("padding");
  Span<const int64_t> dilation = call.intsAttr("dilation");
  size_t n = static_cast<size_t>(spatial);
  if (kernel.size() != n || (stride.size() != n && !stride.empty()) ||
      (padding.size() != n && !padding.empty()) ||
      (hasDilation && dilation.size() != n && !dilation.empty()))
    return kernelError(call, Error::InvalidProgram,
                       "window attributes must have %d entries", spatial);
  Window w = windowOf(call, spatial);
  int64_t expected[kMaxRank];
  int r = in.rank();
  for (int d = 0; d < r; ++d)
    expected[d] = in.size(d);
  for (int i = 0; i < 3; ++i) {
    if (w.stride[i] < 1 ||
        !poolingPaddingFits(w.padding[i], w.kernel[i], w.dilation[i]))
      return kernelError(call, Error::InvalidProgram, "invalid pooling window");
    if (i < 3 - spatial)
      continue;
    int dim = r - 3 + i;
    expected[dim] = windowExtent(in.size(dim), w.kernel[i], w.stride[i],
                                 w.padding[i], w.dilation[i], w.ceilMode);
    if (expected[dim] < 1)
      return kernelError(call, Error::InvalidProgram,
                         "the pooling window does not fit the input");
  }
  return checkShape(call, call.outputs[0], "output", expected, r);
}

/// With a second output, each maximum's flat position in its plane too.
template <typename T> void maxPoolOf(const KernelCall &call, int spatial) {
  Window w = windowOf(call, spatial);
  Volume in = volumeOf(*call.inputs[0], spatial);
  Volume out = volumeOf(*call.outputs[0], spatial);
  const T *src = call.inputs[0]->data<T>();
  T *dst = call.outputs[0]->data<T>();
  int64_t *where =
      call.outputs.size() > 1 ? call.outputs[1]->data<int64_t>() : nullptr;
  const int64_t *extent = in.extent;
  for (int64_t p = 0; p < in.planes; ++p) {
    const T *plane = src + p * in.size();
    for (int64_t oz = 0; oz < out.extent[0]; ++oz)
      for (int64_t oy = 0; oy < out.extent[1]; ++oy)
        for (int64_t ox = 0; ox < out.extent[2]; ++ox) {
          T best = std::numeric_limits<T>::has_infinity
                       ? -std::numeric_limits<T>::infinity()
                       : std::numeric_limits<T>::lowest();
          int64_t bestAt = -1;
          for (int64_t kz = 0; kz < w.kernel[0]; ++kz) {
            int64_t iz = oz * w.stride[0] - w.padding[0] + kz * w.dilation[0];
            if (iz < 0 || iz >= extent[0])
              continue;
            for (int64_t ky = 0; ky < w.kernel[1]; ++ky) {
              int64_t iy = oy * w.stride[1] - w.padding[1] + ky * w.dilation[1];
              if (iy < 0 || iy >= extent[1])
                continue;
              const T *row = plane + (iz * extent[1] + iy) * extent[2];
              for (int64_t kx = 0; kx < w.kernel[2]; ++kx) {
                int64_t ix =
                    ox * w.stride[2] - w.padding[2] + kx * w.dilation[2];
                if (ix >= 0 && ix < extent[2] &&
                    (bestAt < 0 || row[ix] > best)) {
                  best = row[ix];
                  bestAt = (iz * extent[1] + iy) * extent[2] + ix;
                }
              }
            }
          }
          *dst++ = best;
          if (where)
            *where++ = bestAt;
        }
  }
}

void maxPool(const KernelCall &call, int spatial) {
  switch (call.inputs[0]->scalarType()) {
  case ScalarType::Float64:
    return maxPoolOf<double>(call, spatial);
  case ScalarType::UInt8:
    return maxPoolOf<uint8_t>(call, spatial);
  case ScalarType::Int8:
    return maxPoolOf<int8_t>(call, spatial);
  case ScalarType::Int32:
    return maxPoolOf<int32_t>(call, spatial);
  case ScalarType::Int64:
    return maxPoolOf<int64_t>(call, spatial);
  default:
    return maxPoolOf<float>(call, spatial);
  }
}

/// ATen's average window along one dim: clipped to the padded input (its
/// length counts with count_include_pad), then to the input.
struct AvgSpan {
  int64_t first, last, padded;
};

AvgSpan avgSpan(const Window &w, int i, int64_t out, int64_t extent) {
  int64_t first = out * w.stride[i] - w.padding[i];
  int64_t last = std::min(first + w.kernel[i], extent + w.padding[i]);
  int64_t padded = last - first;
  return {std::max<int64_t>(first, 0), std::min(last, extent), padded};
}

void avgPool(const KernelCall &call, int spatial) {
  Window w = windowOf(call, spatial);
  bool countPad = call.boolAttr("count_include_pad", true);
  int64_t divisorOverride =
      call.find("divisor_override") ? call.intAttr("divisor_override", 0) : 0;
  Volume in = volumeOf(*call.inputs[0], spatial);
  Volume out = volumeOf(*call.outputs[0], spatial);
  const float *src = call.inputs[0]->data<float>();
  float *dst = call.outputs[0]->data<float>();
  const int64_t *extent = in.extent;
  for (int64_t p = 0; p < in.planes; ++p) {
    const float *plane = src + p * in.size();
    for (int64_t oz = 0; oz < out.extent[0]; ++oz) {
      AvgSpan z = avgSpan(w, 0, oz, extent[0]);
      for (int64_t oy = 0; oy < out.extent[1]; ++oy) {
        AvgSpan y = avgSpan(w, 1, oy, extent[1]);
        for (int64_t ox = 0; ox < out.extent[2]; ++ox) {
          AvgSpan x = avgSpan(w, 2, ox, extent[2]);
          float sum = 0;
          for (int64_t iz = z.first; iz < z.last; ++iz)
            for (int64_t iy = y.first; iy < y.last; ++iy)
              for (int64_t ix = x.first; ix < x.last; ++ix)
                sum += plane[(iz * extent[1] + iy) * extent[2] + ix];
          int64_t divisor = divisorOverride ? divisorOverride
                            : countPad
                                ? z.padded * y.padded * x.padded
                                : (z.last - z.first) * (y.last - y.first) *
                                      (x.last - x.first);
          *dst++ = divisor > 0 ? sum / divisor : 0.0f;
        }
      }
    }
  }
}

Error validateAvgPool(const KernelCall &call, int spatial) {
  ET_CHECK_OK(validateWindowed(call, spatial, false));
  if (call.find("divisor_override") && call.intAttr("divisor_override", 1) == 0)
    return kernelError(call, Error::InvalidProgram, "divisor_override is 0");
  return Error::Ok;
}

/// Planes (N*C) and spatial extents of a CHW/NCHW tensor.
void planes(const TensorView &t, int64_t &count, int64_t &h, int64_t &w) {
  h = t.size(t.rank() - 2);
  w = t.size(t.rank() - 1);
  count = (h * w) != 0 ? t.numel() / (h * w) : 0;
}

} // namespace

Error validateMaxPool2d(const KernelCall &call) {
  return validateWindowed(call, 2, true);
}
void runMaxPool2d(const KernelCall &call) { maxPool(call, 2); }
Error validateMaxPool2dWithIndices(const KernelCall &call) {
  ET_CHECK_OK(validateWindowed(call, 2, true, 2));
  ET_CHECK_OK(checkType(call, call.outputs[1], "indices", ScalarType::Int64));
  return checkShape(call, call.outputs[1], "indices", call.outputs[0]->sizes(),
                    call.outputs[0]->rank());
}
void runMaxPool2dWithIndices(const KernelCall &call) { maxPool(call, 2); }
Error validateMaxPool3d(const KernelCall &call) {
  return validateWindowed(call, 3, true);
}
void runMaxPool3d(const KernelCall &call) { maxPool(call, 3); }

Error validateAvgPool2d(const KernelCall &call) {
  return validateAvgPool(call, 2);
}
void runAvgPool2d(const KernelCall &call) { avgPool(call, 2); }
Error validateAvgPool3d(const KernelCall &call) {
  return validateAvgPool(call, 3);
}
void runAvgPool3d(const KernelCall &call) { avgPool(call, 3); }

Error validateAdaptiveAvgPool2d(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkType(call, &in, "self", ScalarType::Float32));
  Span<const int64_t> size = call.intsAttr("output_size");
  if ((in.rank() != 3 && in.rank() != 4) || size.size() != 2 || size[0] < 1 ||
      size[1] < 1)
    return kernelError(call, Error::InvalidProgram,
                       "needs CHW/NCHW input and a 2-entry output_size");
  int64_t expected[kMaxRank];
  for (int d = 0; d < in.rank(); ++d)
    expected[d] = in.size(d);
  expected[in.rank() - 2] = size[0];
  expected[in.rank() - 1] = size[1];
  return checkShape(call, call.outputs[0], "output", expected, in.rank());
}

void runAdaptiveAvgPool2d(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  int64_t count, h, width, oh, ow;
  planes(in, count, h, width);
  planes(out, count, oh, ow);
  const float *src = in.data<float>();
  float *dst = out.data<float>();
  for (int64_t p = 0; p < count; ++p) {
    const float *plane = src + p * h * width;
    for (int64_t oy = 0; oy < oh; ++oy) {
      int64_t y0 = oy * h / oh, y1 = ((oy + 1) * h + oh - 1) / oh;
      for (int64_t ox = 0; ox < ow; ++ox) {
        int64_t x0 = ox * width / ow, x1 = ((ox + 1) * width + ow - 1) / ow;
        float sum = 0;
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t x = x0; x < x1; ++x)
            sum += plane[y * width + x];
        dst[(p * oh + oy) * ow + ox] = sum / ((y1 - y0) * (x1 - x0));
      }
    }
  }
}

UpsampleAxis upsampleAxis(const KernelCall &call, const char *scaleName,
                          int64_t in, int64_t out, bool alignCorners) {
  if (alignCorners)
    return {out > 1 ? double(in - 1) / double(out - 1) : 0.0, in, true};
  const AttributeValue *scale = call.find(scaleName);
  if (scale && scale->kind == AttributeValue::Kind::Double &&
      scale->doubleValue > 0)
    return {1.0 / scale->doubleValue, in, false};
  return {double(in) / double(out), in, false};
}

int64_t nearestSource(const UpsampleAxis &axis, int64_t dst) {
  // Clamped as doubles: a tiny scale attribute makes dst * scale huge.
  return static_cast<int64_t>(
      std::min(std::floor(dst * axis.scale), axis.extent - 1.0));
}

void bilinearSource(const UpsampleAxis &axis, int64_t dst, int64_t &i0,
                    int64_t &i1, float &lambda) {
  double real = axis.alignCorners
                    ? dst * axis.scale
                    : std::max(0.0, (dst + 0.5) * axis.scale - 0.5);
  i0 = static_cast<int64_t>(std::min(real, axis.extent - 1.0));
  i1 = std::min<int64_t>(i0 + 1, axis.extent - 1);
  lambda = static_cast<float>(real - i0);
}

Error validateUpsample(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkType(call, &in, "self", ScalarType::Float32));
  Span<const int64_t> size = call.intsAttr("output_size");
  if (in.rank() != 4 || size.size() != 2 || size[0] < 1 || size[1] < 1 ||
      in.size(2) < 1 || in.size(3) < 1)
    return kernelError(call, Error::InvalidProgram,
                       "needs non-empty NCHW input and a 2-entry output_size");
  int64_t expected[4] = {in.size(0), in.size(1), size[0], size[1]};
  return checkShape(call, call.outputs[0], "output", expected, 4);
}

namespace {
/// Sets each pixel of an NCHW resize's output to \p pixel(input plane, its
/// width, row source, column source), where \p sourceOf(axis, index) says
/// which input rows or columns an output index reads (once per row for
/// rows, once per pixel for columns, as ATen).
template <typename SourceOf, typename Pixel>
void resizePlanes(const KernelCall &call, bool alignCorners, SourceOf sourceOf,
                  Pixel pixel) {
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  int64_t h = in.size(2), w = in.size(3), oh = out.size(2), ow = out.size(3);
  UpsampleAxis ys = upsampleAxis(call, "scales_h", h, oh, alignCorners);
  UpsampleAxis xs = upsampleAxis(call, "scales_w", w, ow, alignCorners);
  const float *src = in.data<float>();
  float *dst = out.data<float>();
  for (int64_t p = 0; p < in.size(0) * in.size(1); ++p)
    for (int64_t y = 0; y < oh; ++y) {
      auto row = sourceOf(ys, y);
      for (int64_t x = 0; x < ow; ++x)
        *dst++ = pixel(src + p * h * w, w, row, sourceOf(xs, x));
    }
}

/// The two taps of a linear blend and the second one's weight.
struct LinearTaps {
  int64_t first, second;
  float weight;
};
LinearTaps linearTaps(const UpsampleAxis &axis, int64_t dst) {
  LinearTaps taps;
  bilinearSource(axis, dst, taps.first, taps.second, taps.weight);
  return taps;
}

/// The four taps of a cubic blend, clamped to the input (the coordinate is
/// not), and Keys' cubic convolution weights with A = -0.75, as ATen.
struct CubicTaps {
  int64_t index[4];
  float weight[4];
};
CubicTaps cubicTaps(const UpsampleAxis &axis, int64_t dst) {
  constexpr float a = -0.75f;
  auto near = [&](float d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
  auto far = [&](float d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
  double real =
      axis.alignCorners ? dst * axis.scale : (dst + 0.5) * axis.scale - 0.5;
  double first = std::floor(real);
  float t = static_cast<float>(real - first);
  CubicTaps taps{{}, {far(t + 1), near(t), near(1 - t), far(2 - t)}};
  for (int k = 0; k < 4; ++k)
    taps.index[k] =
        static_cast<int64_t>(std::clamp(first - 1 + k, 0.0, axis.extent - 1.0));
  return taps;
}
} // namespace

void runUpsampleNearest2d(const KernelCall &call) {
  resizePlanes(call, false, nearestSource,
               [](const float *plane, int64_t w, int64_t y, int64_t x) {
                 return plane[y * w + x];
               });
}

void runUpsampleBilinear2d(const KernelCall &call) {
  resizePlanes(
      call, call.boolAttr("align_corners", false), linearTaps,
      [](const float *plane, int64_t w, const LinearTaps &y,
         const LinearTaps &x) {
        const float *top = plane + y.first * w, *bottom = plane + y.second * w;
        float t = top[x.first] * (1 - x.weight) + top[x.second] * x.weight;
        float b =
            bottom[x.first] * (1 - x.weight) + bottom[x.second] * x.weight;
        return t * (1 - y.weight) + b * y.weight;
      });
}

void runUpsampleBicubic2d(const KernelCall &call) {
  resizePlanes(call, call.boolAttr("align_corners", false), cubicTaps,
               [](const float *plane, int64_t w, const CubicTaps &y,
                  const CubicTaps &x) {
                 float sum = 0;
                 for (int r = 0; r < 4; ++r) {
                   const float *row = plane + y.index[r] * w;
                   float across = 0;
                   for (int c = 0; c < 4; ++c)
                     across += row[x.index[c]] * x.weight[c];
                   sum += across * y.weight[r];
                 }
                 return sum;
               });
}

} // namespace etch::runtime::portable
