// max_pool2d, avg_pool2d, adaptive_avg_pool2d over CHW or NCHW float32.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace etch::runtime::portable {
namespace {

struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceilMode;
};

Window windowOf(const KernelCall &call) {
  Span<const int64_t> kernel = call.intsAttr("kernel_size");
  Span<const int64_t> stride = call.intsAttr("stride");
  Span<const int64_t> padding = call.intsAttr("padding");
  Span<const int64_t> dilation = call.intsAttr("dilation");
  Window w{kernel[0], kernel[1], 0,
           0,         0,         0,
           1,         1,         call.boolAttr("ceil_mode", false)};
  w.sh = stride.size() == 2 ? stride[0] : w.kh;
  w.sw = stride.size() == 2 ? stride[1] : w.kw;
  if (padding.size() == 2) {
    w.ph = padding[0];
    w.pw = padding[1];
  }
  if (dilation.size() == 2) {
    w.dh = dilation[0];
    w.dw = dilation[1];
  }
  return w;
}

/// Planes (N*C) and spatial extents of a CHW/NCHW tensor.
void planes(const TensorView &t, int64_t &count, int64_t &h, int64_t &w) {
  h = t.size(t.rank() - 2);
  w = t.size(t.rank() - 1);
  count = (h * w) != 0 ? t.numel() / (h * w) : 0;
}

Error validateWindowed(const KernelCall &call, bool hasDilation) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkType(call, &in, "self", ScalarType::Float32));
  if (in.rank() != 3 && in.rank() != 4)
    return kernelError(call, Error::InvalidShape, "self must be CHW or NCHW");
  Span<const int64_t> kernel = call.intsAttr("kernel_size");
  Span<const int64_t> stride = call.intsAttr("stride");
  Span<const int64_t> padding = call.intsAttr("padding");
  Span<const int64_t> dilation = call.intsAttr("dilation");
  if (kernel.size() != 2 || (stride.size() != 2 && !stride.empty()) ||
      (padding.size() != 2 && !padding.empty()) ||
      (hasDilation && dilation.size() != 2 && !dilation.empty()))
    return kernelError(call, Error::InvalidProgram,
                       "window attributes must have 2 entries");
  Window w = windowOf(call);
  if (w.sh < 1 || w.sw < 1 || !poolingPaddingFits(w.ph, w.kh, w.dh) ||
      !poolingPaddingFits(w.pw, w.kw, w.dw))
    return kernelError(call, Error::InvalidProgram, "invalid pooling window");
  int64_t expected[kMaxRank];
  for (int d = 0; d < in.rank(); ++d)
    expected[d] = in.size(d);
  int r = in.rank();
  expected[r - 2] =
      windowExtent(in.size(r - 2), w.kh, w.sh, w.ph, w.dh, w.ceilMode);
  expected[r - 1] =
      windowExtent(in.size(r - 1), w.kw, w.sw, w.pw, w.dw, w.ceilMode);
  if (expected[r - 2] < 1 || expected[r - 1] < 1)
    return kernelError(call, Error::InvalidProgram,
                       "the pooling window does not fit the input");
  return checkShape(call, call.outputs[0], "output", expected, r);
}

} // namespace

Error validateMaxPool2d(const KernelCall &call) {
  return validateWindowed(call, true);
}

void runMaxPool2d(const KernelCall &call) {
  Window w = windowOf(call);
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  int64_t count, h, width, oh, ow;
  planes(in, count, h, width);
  planes(out, count, oh, ow);
  const float *src = in.data<float>();
  float *dst = out.data<float>();
  for (int64_t p = 0; p < count; ++p) {
    const float *plane = src + p * h * width;
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        float best = -std::numeric_limits<float>::infinity();
        for (int64_t ky = 0; ky < w.kh; ++ky) {
          int64_t iy = oy * w.sh - w.ph + ky * w.dh;
          if (iy < 0 || iy >= h)
            continue;
          for (int64_t kx = 0; kx < w.kw; ++kx) {
            int64_t ix = ox * w.sw - w.pw + kx * w.dw;
            if (ix >= 0 && ix < width)
              best = std::max(best, plane[iy * width + ix]);
          }
        }
        dst[(p * oh + oy) * ow + ox] = best;
      }
  }
}

Error validateAvgPool2d(const KernelCall &call) {
  ET_CHECK_OK(validateWindowed(call, false));
  if (call.find("divisor_override") && call.intAttr("divisor_override", 1) == 0)
    return kernelError(call, Error::InvalidProgram, "divisor_override is 0");
  return Error::Ok;
}

void runAvgPool2d(const KernelCall &call) {
  Window w = windowOf(call);
  bool countPad = call.boolAttr("count_include_pad", true);
  int64_t divisorOverride =
      call.find("divisor_override") ? call.intAttr("divisor_override", 0) : 0;
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  int64_t count, h, width, oh, ow;
  planes(in, count, h, width);
  planes(out, count, oh, ow);
  const float *src = in.data<float>();
  float *dst = out.data<float>();
  for (int64_t p = 0; p < count; ++p) {
    const float *plane = src + p * h * width;
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        // ATen: the window is clipped to the padded input, then to the input.
        int64_t y0 = oy * w.sh - w.ph, x0 = ox * w.sw - w.pw;
        int64_t y1 = std::min(y0 + w.kh, h + w.ph),
                x1 = std::min(x0 + w.kw, width + w.pw);
        int64_t padded = (y1 - y0) * (x1 - x0);
        y0 = std::max<int64_t>(y0, 0);
        x0 = std::max<int64_t>(x0, 0);
        y1 = std::min(y1, h);
        x1 = std::min(x1, width);
        float sum = 0;
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t x = x0; x < x1; ++x)
            sum += plane[y * width + x];
        int64_t divisor = divisorOverride ? divisorOverride
                          : countPad      ? padded
                                          : (y1 - y0) * (x1 - x0);
        dst[(p * oh + oy) * ow + ox] = divisor > 0 ? sum / divisor : 0.0f;
      }
  }
}

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

namespace {
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
} // namespace

Error validateUpsampleNearest2d(const KernelCall &call) {
  return validateUpsample(call);
}
Error validateUpsampleBilinear2d(const KernelCall &call) {
  return validateUpsample(call);
}

void runUpsampleNearest2d(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  int64_t h = in.size(2), w = in.size(3), oh = out.size(2), ow = out.size(3);
  UpsampleAxis ys = upsampleAxis(call, "scales_h", h, oh, false);
  UpsampleAxis xs = upsampleAxis(call, "scales_w", w, ow, false);
  int64_t planes = in.size(0) * in.size(1);
  const float *src = in.data<float>();
  float *dst = out.data<float>();
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t y = 0; y < oh; ++y) {
      int64_t iy = nearestSource(ys, y);
      for (int64_t x = 0; x < ow; ++x)
        dst[(p * oh + y) * ow + x] = src[(p * h + iy) * w + nearestSource(xs, x)];
    }
}

void runUpsampleBilinear2d(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  const TensorView &out = *call.outputs[0];
  bool align = call.boolAttr("align_corners", false);
  int64_t h = in.size(2), w = in.size(3), oh = out.size(2), ow = out.size(3);
  UpsampleAxis ys = upsampleAxis(call, "scales_h", h, oh, align);
  UpsampleAxis xs = upsampleAxis(call, "scales_w", w, ow, align);
  int64_t planes = in.size(0) * in.size(1);
  const float *src = in.data<float>();
  float *dst = out.data<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const float *plane = src + p * h * w;
    for (int64_t y = 0; y < oh; ++y) {
      int64_t y0, y1;
      float ly;
      bilinearSource(ys, y, y0, y1, ly);
      for (int64_t x = 0; x < ow; ++x) {
        int64_t x0, x1;
        float lx;
        bilinearSource(xs, x, x0, x1, lx);
        float top = plane[y0 * w + x0] * (1 - lx) + plane[y0 * w + x1] * lx;
        float bottom = plane[y1 * w + x0] * (1 - lx) + plane[y1 * w + x1] * lx;
        dst[(p * oh + y) * ow + x] = top * (1 - ly) + bottom * ly;
      }
    }
  }
}

} // namespace etch::runtime::portable
