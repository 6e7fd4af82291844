// f32 convolution and fully connected layers on weights packed once, NHWC
// in and out: an implicit GEMM (output pixels x output channels, summed
// over window taps x input channels) whose 6 x 16 register tiles keep their
// sums in vector registers over the whole reduction. The delegate that owns
// the weights packs them at init; running allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etch::runtime::optimized {

/// A 2-D convolution on NHWC tensors, weights [out][kh][kw][in / groups]
/// (XNNPACK's layout). A fully connected layer over rows of K values is
/// the 1 x 1 convolution of a rows x 1 image with K channels.
struct ConvGeometry {
  int64_t batch = 1, height = 1, width = 1, inChannels = 1;
  int64_t outHeight = 1, outWidth = 1, outChannels = 1;
  int64_t kernelHeight = 1, kernelWidth = 1;
  int64_t strideHeight = 1, strideWidth = 1;
  int64_t padTop = 0, padLeft = 0;
  int64_t dilationHeight = 1, dilationWidth = 1;
  int64_t groups = 1;

  static ConvGeometry fullyConnected(int64_t rows, int64_t in, int64_t out);
  /// Whether the geometry is consistent: positive extents, channels that
  /// split into the groups (taps outside the input read zeros, so the
  /// output extents need not follow from the window).
  bool valid() const;
};

/// The largest window (kernel height x width) the kernels take.
constexpr int64_t kConvMaxTaps = 256;

class PackedConvolution {
public:
  /// Whether the kernels take \p geometry: valid, a window of at most
  /// kConvMaxTaps taps.
  static bool supports(const ConvGeometry &geometry);

  /// Bytes the constructor writes for \p geometry (64-byte aligned).
  static size_t packedBytes(const ConvGeometry &geometry);

  /// Packs \p weights ([out][kh][kw][in / groups]) and \p bias ([out], or
  /// null for zeros) into \p storage (packedBytes(), 64-byte aligned),
  /// which must outlive this object. \p geometry: supports() holds.
  PackedConvolution(const ConvGeometry &geometry, const float *weights,
                    const float *bias, float *storage);

  /// out = clamp(conv(in), outputMin, outputMax) on the kernel thread pool
  /// with the widest micro-kernel this CPU runs (under ETCH_CPU_ISA).
  void run(const float *in, float *out, float outputMin, float outputMax) const;

  /// run() with the named micro-kernels ("avx512", "avx2" or "scalar") on the
  /// calling thread alone; false (nothing computed) when cpuHasIsa refuses it.
  bool runWith(const char *isa, const float *in, float *out, float outputMin,
               float outputMax) const;

  const ConvGeometry &geometry() const { return geometry_; }

  /// Which micro-kernels run() uses on this CPU: "avx512", "avx2" or
  /// "scalar".
  static const char *isa();

private:
  ConvGeometry geometry_;
  // Per panel of 16 output channels: 16 biases, then a row of 16 weights
  // per tap and input channel; then a zero row as long as an input pixel.
  const float *packed_;
};

} // namespace etch::runtime::optimized
