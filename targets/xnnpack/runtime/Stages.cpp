#include "Stages.h"

#include "targets/xnnpack/schema/BlobFormat.h"

#include "runtime/core/MemoryPlanner.h"

#include <xnnpack.h>

namespace etch::xnnpack {
namespace {

constexpr uint64_t kAlignment = 64;

/// The steps in node order: XNNPACK runs cut at each node that is a step
/// of its own (a concatenation, a GEMM node).
std::vector<StepPlan> cutSteps(const Blob &blob,
                               const std::vector<bool> &gemm) {
  std::vector<StepPlan> steps;
  const auto &nodes = *blob.nodes();
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    StepKind kind = nodes.Get(n)->kind() == NodeKind::Concatenate
                        ? StepKind::Concatenation
                    : n < gemm.size() && gemm[n] ? StepKind::Gemm
                                                 : StepKind::Xnnpack;
    if (kind != StepKind::Xnnpack || steps.empty() ||
        steps.back().kind != StepKind::Xnnpack)
      steps.push_back({kind, n, n + 1});
    else
      steps.back().end = n + 1;
  }
  return steps;
}

} // namespace

StagePlan planStages(const Blob &blob, const std::vector<Dims> &dims,
                     const std::vector<bool> &gemm) {
  StagePlan plan;
  plan.steps = cutSteps(blob, gemm);
  const auto &tensors = *blob.tensors();
  const auto &nodes = *blob.nodes();
  constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> writer(tensors.size(), kNone),
      lastReader(tensors.size(), kNone);
  std::vector<bool> shared(tensors.size(), false);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const StepPlan &step = plan.steps[s];
    // Values a step outside XNNPACK reads or writes live in the buffer.
    bool outside = step.kind != StepKind::Xnnpack;
    for (uint32_t n = step.first; n < step.end; ++n) {
      const Node &node = *nodes.Get(n);
      for (uint32_t index : *node.inputs()) {
        if (index == kAbsentTensor)
          continue;
        lastReader[index] = s;
        shared[index] = shared[index] || outside ||
                        (writer[index] != kNone && writer[index] != s);
      }
      uint32_t out = node.outputs()->Get(0);
      writer[out] = s;
      shared[out] = shared[out] || outside;
    }
  }
  // Values passed between steps, placed by lifetime in steps.
  std::vector<uint32_t> placed;
  std::vector<runtime::PlannedBuffer> buffers;
  for (uint32_t i = 0; i < tensors.size(); ++i) {
    const Tensor &tensor = *tensors.Get(i);
    bool ownMemory =
        tensor.data_size() || tensor.input() >= 0 || tensor.output() >= 0;
    if (!shared[i] || ownMemory || writer[i] == kNone)
      continue;
    uint64_t bytes = numel(dims[i]) * elementBytes(tensor.datatype());
    // XNNPACK may read XNN_EXTRA_BYTES past an input.
    bytes =
        (bytes + XNN_EXTRA_BYTES + kAlignment - 1) / kAlignment * kAlignment;
    size_t last = lastReader[i] == kNone ? writer[i] : lastReader[i];
    placed.push_back(i);
    buffers.push_back(
        {bytes, static_cast<int64_t>(writer[i]), static_cast<int64_t>(last)});
  }
  plan.bytes = runtime::MemoryPlanner(kAlignment).plan(buffers);
  plan.offsets.assign(tensors.size(), -1);
  for (size_t v = 0; v < placed.size(); ++v)
    plan.offsets[placed[v]] = static_cast<int64_t>(buffers[v].offset);
  return plan;
}

} // namespace etch::xnnpack
