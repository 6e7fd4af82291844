// im2col (F.unfold) and col2im (F.fold): sliding 2-D blocks of an image as
// columns and back, float32 and float64, batched or not. Shapes follow
// runtime/core/PatchShape.h, the rule the Edge dialect infers them by.
#include "runtime/core/PatchShape.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cstring>

namespace etch::runtime::portable {
namespace {

Error readPatchWindow(const KernelCall &call, PatchWindow &window) {
  const char *names[4] = {"kernel_size", "dilation", "padding", "stride"};
  int64_t *fields[4] = {window.kernel, window.dilation, window.padding,
                        window.stride};
  for (int a = 0; a < 4; ++a) {
    Span<const int64_t> values = call.intsAttr(names[a]);
    if (values.size() != 2)
      return kernelError(call, Error::InvalidProgram,
                         "%s needs 2 entries (H, W), got %zu", names[a],
                         values.size());
    fields[a][0] = values[0];
    fields[a][1] = values[1];
  }
  for (int i = 0; i < 2; ++i)
    if (window.kernel[i] < 1 || window.dilation[i] < 1 ||
        window.stride[i] < 1 || window.padding[i] < 0)
      return kernelError(call, Error::InvalidProgram,
                         "kernel_size, dilation and stride need positive "
                         "entries, padding non-negative");
  if (patchTaps(window) == 0)
    return kernelError(call, Error::InvalidProgram,
                       "kernel_size overflows int64");
  return Error::Ok;
}

/// self float32 or float64, the output of its type.
Error checkFloat(const KernelCall &call, const TensorView &in) {
  ET_CHECK_OK(checkFloatType(call, in, "self"));
  return checkType(call, call.outputs[0], "output", in.scalarType());
}

/// The image and column geometry of one call, for either direction.
struct PatchGeometry {
  PatchWindow window;
  int64_t batch, channels, height, width, blocksHigh, blocksWide;

  /// Calls \p visit(image offset, column offset) for every tap of every
  /// window of one image that falls inside it, in col2im's summing order.
  template <typename Visit> void forEachTap(Visit visit) const {
    int64_t kh = window.kernel[0], kw = window.kernel[1];
    int64_t blocks = blocksHigh * blocksWide;
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          int64_t row = (c * kh + i) * kw + j;
          for (int64_t by = 0; by < blocksHigh; ++by) {
            int64_t y = by * window.stride[0] - window.padding[0] +
                        i * window.dilation[0];
            if (y < 0 || y >= height)
              continue;
            for (int64_t bx = 0; bx < blocksWide; ++bx) {
              int64_t x = bx * window.stride[1] - window.padding[1] +
                          j * window.dilation[1];
              if (x >= 0 && x < width)
                visit((c * height + y) * width + x,
                      row * blocks + by * blocksWide + bx);
            }
          }
        }
  }
  int64_t imageSize() const { return channels * height * width; }
  int64_t columnsSize() const {
    return channels * patchTaps(window) * blocksHigh * blocksWide;
  }
};

/// The call's window over images of \p channels x \p height x \p width
/// (validated at load).
PatchGeometry patchGeometry(const KernelCall &call, int64_t batch,
                            int64_t channels, int64_t height, int64_t width) {
  PatchGeometry g{{}, batch, channels, height, width, 0, 0};
  readPatchWindow(call, g.window);
  g.blocksHigh = patchBlocksAlong(g.window, 0, height);
  g.blocksWide = patchBlocksAlong(g.window, 1, width);
  return g;
}

PatchGeometry im2colGeometry(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  int r = in.rank();
  return patchGeometry(call, r == 4 ? in.size(0) : 1, in.size(r - 3),
                       in.size(r - 2), in.size(r - 1));
}

PatchGeometry col2imGeometry(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  Span<const int64_t> size = call.intsAttr("output_size");
  int r = in.rank();
  PatchGeometry g =
      patchGeometry(call, r == 3 ? in.size(0) : 1, 0, size[0], size[1]);
  g.channels = in.size(r - 2) / patchTaps(g.window); // C * kh * kw rows
  return g;
}

/// Zeroes the output, then calls \p tap(input, output, pixel, column) for
/// every tap inside each image of the batch, input and output advanced by
/// \p inputStride and \p outputStride per image.
template <typename Tap>
void movePatches(const KernelCall &call, int64_t inputStride,
                 int64_t outputStride, const PatchGeometry &g, Tap tap) {
  const TensorView &in = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  std::memset(out.data(), 0, out.nbytes());
  visitFloatType(in.scalarType(), [&](auto *type) {
    using T = std::remove_pointer_t<decltype(type)>;
    for (int64_t n = 0; n < g.batch; ++n) {
      const T *input = in.data<T>() + n * inputStride;
      T *output = out.data<T>() + n * outputStride;
      g.forEachTap([&](int64_t pixel, int64_t column) {
        tap(input, output, pixel, column);
      });
    }
  });
}

} // namespace

Error validateIm2col(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkFloat(call, in));
  PatchWindow window;
  ET_CHECK_OK(readPatchWindow(call, window));
  int r = in.rank();
  if (r != 3 && r != 4)
    return kernelError(call, Error::InvalidShape,
                       "self has rank %d, expected 3 (CHW) or 4 (NCHW)", r);
  int64_t blocks = patchBlocks(window, in.size(r - 2), in.size(r - 1));
  if (blocks == 0)
    return kernelError(call, Error::InvalidProgram,
                       "no window fits the %lldx%lld image",
                       static_cast<long long>(in.size(r - 2)),
                       static_cast<long long>(in.size(r - 1)));
  int64_t expected[3] = {in.size(0), 0, blocks};
  if (__builtin_mul_overflow(in.size(r - 3), patchTaps(window), &expected[1]))
    return kernelError(call, Error::InvalidShape,
                       "C * kernel_size overflows int64");
  return checkShape(call, call.outputs[0], "output", expected + (4 - r), r - 1);
}

void runIm2col(const KernelCall &call) {
  PatchGeometry g = im2colGeometry(call);
  movePatches(call, g.imageSize(), g.columnsSize(), g,
              [](const auto *image, auto *columns, int64_t pixel,
                 int64_t column) { columns[column] = image[pixel]; });
}

Error validateCol2im(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkFloat(call, in));
  PatchWindow window;
  ET_CHECK_OK(readPatchWindow(call, window));
  Span<const int64_t> size = call.intsAttr("output_size");
  if (size.size() != 2 || size[0] < 1 || size[1] < 1)
    return kernelError(call, Error::InvalidProgram,
                       "output_size needs 2 positive entries (H, W)");
  int r = in.rank();
  if (r != 2 && r != 3)
    return kernelError(call, Error::InvalidShape,
                       "self has rank %d, expected 2 (C * kh * kw, L) or 3 "
                       "(N, C * kh * kw, L)",
                       r);
  int64_t taps = patchTaps(window), rows = in.size(r - 2);
  int64_t blocks = patchBlocks(window, size[0], size[1]);
  if (blocks == 0 || rows % taps != 0 || in.size(r - 1) != blocks)
    return kernelError(
        call, Error::InvalidShape,
        "self is [.., %lld, %lld], expected a multiple of %lld "
        "rows and %lld columns (one per window)",
        static_cast<long long>(rows), static_cast<long long>(in.size(r - 1)),
        static_cast<long long>(taps), static_cast<long long>(blocks));
  int64_t expected[4] = {in.size(0), rows / taps, size[0], size[1]};
  return checkShape(call, call.outputs[0], "output", expected + (3 - r), r + 1);
}

void runCol2im(const KernelCall &call) {
  PatchGeometry g = col2imGeometry(call);
  movePatches(call, g.columnsSize(), g.imageSize(), g,
              [](const auto *columns, auto *image, int64_t pixel,
                 int64_t column) { image[pixel] += columns[column]; });
}

} // namespace etch::runtime::portable
