//===- VulkanCompiler.h - Delegate body -> Vulkan blob ----------*- C++ -*-===//
#ifndef ETCH_TARGETS_VULKAN_COMPILER_VULKANCOMPILER_H
#define ETCH_TARGETS_VULKAN_COMPILER_VULKANCOMPILER_H

#include "edge/EdgeDialect.h"
#include "etch/Target/Target.h"

#include "targets/vulkan/schema/vulkan_blob_generated.h"

namespace etch::vulkan {

/// Lowers \p delegate's body (ops VulkanRules accepted) to dispatches of
/// the shader library over one planned arena; activations fuse into the
/// GEMM or convolution before them, views are free, weights are packed for
/// the shader that reads them.
/// Float tensors are stored as \p storage says (constants converted here).
mlir::FailureOr<CompiledDelegate> compileDelegate(edge::DelegateOp delegate,
                                                  FloatStorage storage);

/// A readable listing of a blob (arena, uploads, bindings, dispatches).
std::string describeBlob(llvm::ArrayRef<uint8_t> blob);

} // namespace etch::vulkan

#endif
