// Which of a blob's nodes run on etch's own f32 GEMM kernels instead of
// XNNPACK's, chosen at load from the CPU the program runs on. Debian's
// XNNPACK (2022) built its AVX2 f32 GEMM and convolution kernels with one
// sum spilled to the stack at every step, so on CPUs whose widest vector
// ISA is AVX2 (most x86 laptops and desktops) they run at about half the
// FMA throughput; its AVX-512 builds do not spill and stay in use.
// runtime/kernels/optimized/PackedConvolution.h runs those nodes there,
// each as a step of its own between XNNPACK runtimes (Stages.h).
#pragma once

#include "BlobValidator.h"

#include "runtime/kernels/optimized/PackedConvolution.h"
#include "runtime/platform/Platform.h"

#include <memory>
#include <optional>
#include <vector>

namespace etch::xnnpack {

/// Whether f32 convolutions and fully connected layers run on etch's
/// kernels on this CPU: ETCH_XNNPACK_GEMM=etch|xnnpack when set (to compare
/// the two), else when the widest ISA etch may use here is AVX2 (under
/// ETCH_CPU_ISA).
bool etchGemmPreferred();

/// Whether a SiLU (a Sigmoid, then the Multiply of its input by it) runs as
/// one pass of etch's silu rather than two XNNPACK nodes (Stages.h): on
/// CPUs with AVX2 or AVX-512. On AVX2 it made efficientnet_b0 0.72-0.88x
/// the time at 2 threads and 0.96-0.97x at 1. On AVX-512 XNNPACK's sigmoid
/// was the faster until etch's silu computed four vectors' steps together
/// (Silu.cpp): since then the pass made efficientnet_b0 0.89x the time at
/// 2 threads and 0.96x at 1 (2-core EPYC Zen 5, one run). Elsewhere (no
/// AVX2) XNNPACK's SSE kernels stay. ETCH_XNNPACK_SILU=etch or xnnpack
/// overrides.
bool fusedSiluPreferred();

/// Whether nodes \p n and n + 1 of \p blob compute silu(x) = x *
/// sigmoid(x), at tensor extents \p dims, so that one pass can: a Sigmoid
/// of f32 x, then an unclamped Multiply of x by its output (either order)
/// at x's extents, the sigmoid's output read by nothing else and not a
/// delegate output. (XNNPACK 2022 has no silu node: etch's compiler writes
/// these two, and so do other graphs' x * sigmoid(x).)
bool isSiluPair(const Blob &blob, const std::vector<Dims> &dims, uint32_t n);

/// The shallowest reduction (kernel taps x input channels per group) moved
/// to etch's kernels. From 16 on ours are faster on AVX2 (1x1 layers over
/// 16-112 channels 0.39-0.94x XNNPACK's time, mobilenet_v2's 3x3 stem over
/// 3 channels 0.97-1.2x); moving them made efficientnet_b0, mobilenet_v2
/// and mobilenet_v3_small 0.74-0.86x the time, at 1 and 2 threads (2-core
/// EPYC Zen 5 capped to AVX2, one run). Below it nothing was measured.
inline constexpr int64_t kMinGemmDepth = 16;

/// \p node as etch's GEMM kernels take it at tensor extents \p dims: an
/// f32 Convolution2d or FullyConnected with constant weights (and bias)
/// whose geometry PackedConvolution supports, with at least a tile's rows
/// of output and a reduction of kMinGemmDepth or more; otherwise nothing.
std::optional<runtime::optimized::ConvGeometry>
gemmGeometry(const Blob &blob, const Node &node,
             const std::vector<Dims> &dims);

/// One node run by PackedConvolution: its weights packed at creation.
class GemmStep {
public:
  /// nullptr when the packed weights cannot be allocated.
  static std::unique_ptr<GemmStep>
  create(const runtime::optimized::ConvGeometry &geometry,
         const float *weights, const float *bias, const float *input,
         float *output, float outputMin, float outputMax);

  void run() const { conv_.run(input_, output_, outputMin_, outputMax_); }

private:
  GemmStep(runtime::PlatformBlock storage,
           const runtime::optimized::ConvGeometry &geometry,
           const float *weights, const float *bias, const float *input,
           float *output, float outputMin, float outputMax);

  runtime::PlatformBlock storage_; // the packed weights
  runtime::optimized::PackedConvolution conv_;
  const float *input_;
  float *output_;
  float outputMin_, outputMax_;
};

} // namespace etch::xnnpack
