//===- ShaderLibrary.cpp - The embedded compute shaders -------------------===//
#include "ShaderLibrary.h"

namespace etch::vulkan {
namespace {
// glslc -mfmt=num: the words as a C initializer list.
const uint32_t kCopy[] = {
#include "copy.spv.inc"
};
const uint32_t kBinary[] = {
#include "binary.spv.inc"
};
const uint32_t kUnary[] = {
#include "unary.spv.inc"
};
const uint32_t kGemm[] = {
#include "gemm.spv.inc"
};
const uint32_t kConv2d[] = {
#include "conv2d.spv.inc"
};
const uint32_t kPool2d[] = {
#include "pool2d.spv.inc"
};
const uint32_t kSoftmax[] = {
#include "softmax.spv.inc"
};
const uint32_t kLayerNorm[] = {
#include "layer_norm.spv.inc"
};
const uint32_t kReduce[] = {
#include "reduce.spv.inc"
};
const uint32_t kAttention[] = {
#include "attention.spv.inc"
};

#define ETCH_SPIRV(words) Spirv{words, sizeof(words)}
/// Indexed by Shader.
const Spirv kLibrary[] = {
    ETCH_SPIRV(kCopy),    ETCH_SPIRV(kBinary),  ETCH_SPIRV(kUnary),
    ETCH_SPIRV(kGemm),    ETCH_SPIRV(kConv2d),    ETCH_SPIRV(kPool2d),
    ETCH_SPIRV(kSoftmax), ETCH_SPIRV(kLayerNorm), ETCH_SPIRV(kReduce),
    ETCH_SPIRV(kAttention),
};
#undef ETCH_SPIRV
static_assert(sizeof(kLibrary) / sizeof(kLibrary[0]) ==
                  static_cast<size_t>(Shader::MAX) + 1,
              "one SPIR-V module per shader");
} // namespace

Spirv shaderSpirv(Shader shader) {
  return kLibrary[static_cast<size_t>(shader)];
}

} // namespace etch::vulkan
