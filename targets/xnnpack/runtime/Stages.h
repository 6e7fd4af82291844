// How a blob runs on XNNPACK 2022, which has no concatenate node: one XNNPACK
// runtime per run of nodes between concatenations (and between the nodes
// etch's GEMM kernels take on this CPU: GemmSteps.h, and the SiLUs it
// fuses), per concatenation a strided copy of each input into its slice of
// the output, per GEMM node a PackedConvolution, and per SiLU one pass of
// etch's silu. Values passed from one step to another live in one delegate
// buffer, placed by lifetime.
#pragma once

#include "BlobValidator.h"

#include <cstdint>
#include <vector>

namespace etch::xnnpack {

enum class StepKind {
  Xnnpack,       // a run of nodes: one XNNPACK runtime
  Concatenation, // one Concatenate node: a copy per input
  Gemm,          // one node on etch's GEMM kernels
  Silu,          // a Sigmoid and the Multiply of its input by it: one pass
};

/// Nodes [first, end) of the blob.
struct StepPlan {
  StepKind kind;
  uint32_t first, end;
};

struct StagePlan {
  std::vector<StepPlan> steps;
  /// Per tensor: its byte offset in the delegate buffer when it passes
  /// between steps (or a concatenation reads or writes it), else -1. Border
  /// tensors and constants have their own memory.
  std::vector<int64_t> offsets;
  uint64_t bytes = 0; // the delegate buffer's size
};

/// \p blob's steps and buffer at tensor extents \p dims (a validated blob);
/// \p gemm[n]: node n runs on etch's GEMM kernels (empty: none does);
/// \p fuseSilu: every isSiluPair (GemmSteps.h) is a Silu step.
StagePlan planStages(const Blob &blob, const std::vector<Dims> &dims,
                     const std::vector<bool> &gemm = {}, bool fuseSilu = false);

} // namespace etch::xnnpack
