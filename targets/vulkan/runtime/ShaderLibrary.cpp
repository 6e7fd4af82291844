//===- ShaderLibrary.cpp - The embedded compute shaders -------------------===//
#include "ShaderLibrary.h"

namespace etch::vulkan {
namespace {
// glslc -mfmt=num: the words as a C initializer list.
const uint32_t kCopyF32[] = {
#include "copy.f32.spv.inc"
};
const uint32_t kBinaryF32[] = {
#include "binary.f32.spv.inc"
};
const uint32_t kUnaryF32[] = {
#include "unary.f32.spv.inc"
};
const uint32_t kGemmF32[] = {
#include "gemm.f32.spv.inc"
};
const uint32_t kConv2dF32[] = {
#include "conv2d.f32.spv.inc"
};
const uint32_t kPool2dF32[] = {
#include "pool2d.f32.spv.inc"
};
const uint32_t kSoftmaxF32[] = {
#include "softmax.f32.spv.inc"
};
const uint32_t kLayerNormF32[] = {
#include "layer_norm.f32.spv.inc"
};
const uint32_t kReduceF32[] = {
#include "reduce.f32.spv.inc"
};
const uint32_t kAttentionF32[] = {
#include "attention.f32.spv.inc"
};
const uint32_t kCopyF16[] = {
#include "copy.f16.spv.inc"
};
const uint32_t kBinaryF16[] = {
#include "binary.f16.spv.inc"
};
const uint32_t kUnaryF16[] = {
#include "unary.f16.spv.inc"
};
const uint32_t kGemmF16[] = {
#include "gemm.f16.spv.inc"
};
const uint32_t kConv2dF16[] = {
#include "conv2d.f16.spv.inc"
};
const uint32_t kPool2dF16[] = {
#include "pool2d.f16.spv.inc"
};
const uint32_t kSoftmaxF16[] = {
#include "softmax.f16.spv.inc"
};
const uint32_t kLayerNormF16[] = {
#include "layer_norm.f16.spv.inc"
};
const uint32_t kReduceF16[] = {
#include "reduce.f16.spv.inc"
};
const uint32_t kAttentionF16[] = {
#include "attention.f16.spv.inc"
};

#define ETCH_SPIRV(words)                                                      \
  Spirv { words, sizeof(words) }
/// Indexed by FloatStorage, then Shader.
const Spirv kLibrary[][static_cast<size_t>(Shader::MAX) + 1] = {
    {ETCH_SPIRV(kCopyF32), ETCH_SPIRV(kBinaryF32), ETCH_SPIRV(kUnaryF32),
     ETCH_SPIRV(kGemmF32), ETCH_SPIRV(kConv2dF32), ETCH_SPIRV(kPool2dF32),
     ETCH_SPIRV(kSoftmaxF32), ETCH_SPIRV(kLayerNormF32), ETCH_SPIRV(kReduceF32),
     ETCH_SPIRV(kAttentionF32)},
    {ETCH_SPIRV(kCopyF16), ETCH_SPIRV(kBinaryF16), ETCH_SPIRV(kUnaryF16),
     ETCH_SPIRV(kGemmF16), ETCH_SPIRV(kConv2dF16), ETCH_SPIRV(kPool2dF16),
     ETCH_SPIRV(kSoftmaxF16), ETCH_SPIRV(kLayerNormF16), ETCH_SPIRV(kReduceF16),
     ETCH_SPIRV(kAttentionF16)},
};
#undef ETCH_SPIRV
static_assert(sizeof(kLibrary) / sizeof(kLibrary[0]) ==
                  static_cast<size_t>(FloatStorage::MAX) + 1,
              "one shader library per storage");
} // namespace

Spirv shaderSpirv(Shader shader, FloatStorage storage) {
  return kLibrary[static_cast<size_t>(storage)][static_cast<size_t>(shader)];
}

} // namespace etch::vulkan
