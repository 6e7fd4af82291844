//===- VulkanRules.h - What the Vulkan target runs -------------*- C++ -*-===//
#ifndef ETCH_TARGETS_VULKAN_COMPILER_VULKANRULES_H
#define ETCH_TARGETS_VULKAN_COMPILER_VULKANRULES_H

#include "targets/vulkan/schema/vulkan_blob_generated.h"

#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace etch::vulkan {

/// Empty when a Vulkan delegate runs \p op (float32, static shapes, rank
/// <= 6, every tensor within the 128 MiB storage buffer range every device
/// offers); otherwise why not.
std::string whyUnsupported(mlir::Operation *op);

/// The activation (and its alpha, beta) a unary op computes.
struct ActivationForm {
  Activation activation;
  float alpha = 0, beta = 0;
};
std::optional<ActivationForm> activationForm(mlir::Operation *op);

/// The binary op (and alpha, add/sub's multiplier of the second operand).
struct BinaryForm {
  BinaryOp op;
  float alpha = 1;
};
std::optional<BinaryForm> binaryForm(mlir::Operation *op);

} // namespace etch::vulkan

#endif
