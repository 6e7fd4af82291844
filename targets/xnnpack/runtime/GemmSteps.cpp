#include "GemmSteps.h"

#include "targets/xnnpack/schema/BlobFormat.h"

#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/GemmMicrokernel.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace etch::xnnpack {

using runtime::optimized::ConvGeometry;
using runtime::optimized::PackedConvolution;

namespace {

/// etch's kernels inside XNNPACK delegates on CPUs whose widest ISA is
/// AVX2 (and AVX-512 when \p alsoAvx512), XNNPACK's on others, unless
/// \p variable says "etch" or "xnnpack".
bool etchPreferred(const char *variable, bool alsoAvx512) {
  const char *choice = std::getenv(variable);
  if (choice && std::strcmp(choice, "etch") == 0)
    return true;
  if (choice && std::strcmp(choice, "xnnpack") == 0)
    return false;
  const char *widest = runtime::optimized::widestIsa();
  return std::strcmp(widest, "avx2") == 0 ||
         (alsoAvx512 && std::strncmp(widest, "avx512", 6) == 0);
}

} // namespace

bool etchGemmPreferred() {
  static const bool preferred = etchPreferred("ETCH_XNNPACK_GEMM", false);
  return preferred;
}

bool fusedSiluPreferred() {
  static const bool preferred = etchPreferred("ETCH_XNNPACK_SILU", true);
  return preferred;
}

namespace {

/// Whether tensor \p index is f32 with static data (absent counts: bias).
bool constantFloat(const Blob &blob, uint32_t index) {
  if (index == kAbsentTensor)
    return true;
  const Tensor &tensor = *blob.tensors()->Get(index);
  return tensor.datatype() == Datatype::Fp32 && tensor.data_size() > 0;
}

bool floatTensor(const Blob &blob, uint32_t index) {
  return blob.tensors()->Get(index)->datatype() == Datatype::Fp32;
}

} // namespace

bool isSiluPair(const Blob &blob, const std::vector<Dims> &dims, uint32_t n) {
  const auto &nodes = *blob.nodes();
  const auto &tensors = *blob.tensors();
  if (n + 1 >= nodes.size())
    return false;
  const Node &sigmoid = *nodes.Get(n), &multiply = *nodes.Get(n + 1);
  if (sigmoid.kind() != NodeKind::Sigmoid ||
      multiply.kind() != NodeKind::Multiply || multiply.inputs()->size() != 2 ||
      !(multiply.output_min() == -INFINITY &&
        multiply.output_max() == INFINITY))
    return false;
  uint32_t x = sigmoid.inputs()->Get(0), gate = sigmoid.outputs()->Get(0);
  uint32_t a = multiply.inputs()->Get(0), b = multiply.inputs()->Get(1);
  uint32_t out = multiply.outputs()->Get(0);
  if (!((a == x && b == gate) || (a == gate && b == x)) || x == gate)
    return false;
  for (uint32_t index : {x, gate, out})
    if (tensors.Get(index)->datatype() != Datatype::Fp32 ||
        dims[index] != dims[x])
      return false;
  if (tensors.Get(gate)->output() >= 0)
    return false;
  for (uint32_t m = 0; m < nodes.size(); ++m)
    if (m != n + 1)
      for (uint32_t index : *nodes.Get(m)->inputs())
        if (index == gate)
          return false;
  return true;
}

std::optional<ConvGeometry> gemmGeometry(const Blob &blob, const Node &node,
                                         const std::vector<Dims> &dims) {
  const auto &inputs = *node.inputs();
  if (inputs.size() != 3 || !floatTensor(blob, inputs[0]) ||
      !floatTensor(blob, node.outputs()->Get(0)) ||
      !constantFloat(blob, inputs[1]) || inputs[1] == kAbsentTensor ||
      !constantFloat(blob, inputs[2]))
    return std::nullopt;
  const Dims &in = dims[inputs[0]], &out = dims[node.outputs()->Get(0)];
  ConvGeometry g;
  if (node.kind() == NodeKind::FullyConnected) {
    const Dims &filter = dims[inputs[1]];
    if (filter.size() != 2 || filter[1] == 0 || in.empty())
      return std::nullopt;
    g = ConvGeometry::fullyConnected(
        static_cast<int64_t>(numel(in) / filter[1]),
        static_cast<int64_t>(filter[1]), static_cast<int64_t>(filter[0]));
  } else if (node.kind() == NodeKind::Convolution2d) {
    const ConvolutionParams &params = *node.params_as_ConvolutionParams();
    const Window2d &w = *params.window();
    if (in.size() != 4 || out.size() != 4)
      return std::nullopt;
    g.batch = in[0];
    g.height = in[1];
    g.width = in[2];
    g.inChannels = in[3];
    g.outHeight = out[1];
    g.outWidth = out[2];
    g.outChannels = out[3];
    g.kernelHeight = w.kernel_height();
    g.kernelWidth = w.kernel_width();
    g.strideHeight = w.stride_height();
    g.strideWidth = w.stride_width();
    g.padTop = w.pad_top();
    g.padLeft = w.pad_left();
    g.dilationHeight = w.dilation_height();
    g.dilationWidth = w.dilation_width();
    g.groups = params.groups();
  } else {
    return std::nullopt;
  }
  // The weights as the kernels will read them (the validator checked the
  // node's shapes; this keeps the reads in bounds whatever it allowed).
  int64_t depth = g.kernelHeight * g.kernelWidth * g.inChannels /
                  std::max<int64_t>(g.groups, 1);
  uint64_t weightCount = static_cast<uint64_t>(g.outChannels * depth);
  // Fewer output rows than a tile (a classifier on one image) would waste
  // most of each tile: XNNPACK's one-row kernels do better there. The
  // shallowest reductions stay on XNNPACK too (kMinGemmDepth).
  if (!PackedConvolution::supports(g) ||
      g.batch * g.outHeight * g.outWidth < runtime::optimized::kTileRows ||
      depth < kMinGemmDepth || numel(dims[inputs[1]]) != weightCount ||
      (inputs[2] != kAbsentTensor &&
       numel(dims[inputs[2]]) != static_cast<uint64_t>(g.outChannels)) ||
      numel(out) != static_cast<uint64_t>(g.batch * g.outHeight * g.outWidth *
                                          g.outChannels))
    return std::nullopt;
  return g;
}

std::unique_ptr<GemmStep> GemmStep::create(const ConvGeometry &geometry,
                                           const float *weights,
                                           const float *bias,
                                           const float *input, float *output,
                                           float outputMin, float outputMax) {
  runtime::PlatformBlock storage = runtime::allocatePlatformBlock(
      PackedConvolution::packedBytes(geometry), 64);
  if (!storage)
    return nullptr;
  return std::unique_ptr<GemmStep>(new GemmStep(std::move(storage), geometry,
                                                weights, bias, input, output,
                                                outputMin, outputMax));
}

GemmStep::GemmStep(runtime::PlatformBlock storage, const ConvGeometry &geometry,
                   const float *weights, const float *bias, const float *input,
                   float *output, float outputMin, float outputMax)
    : storage_(std::move(storage)),
      conv_(geometry, weights, bias, reinterpret_cast<float *>(storage_.get())),
      input_(input), output_(output), outputMin_(outputMin),
      outputMax_(outputMax) {}

} // namespace etch::xnnpack
