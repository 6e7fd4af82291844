#include "Stages.h"

#include "targets/xnnpack/schema/BlobFormat.h"

#include <xnnpack.h>

#include <algorithm>
#include <numeric>

namespace etch::xnnpack {
namespace {

constexpr uint64_t kAlignment = 64;

/// The steps in node order: a new one at each concatenation and after it.
std::vector<StepPlan> cutAtConcatenations(const Blob &blob) {
  std::vector<StepPlan> steps;
  const auto &nodes = *blob.nodes();
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    bool concatenation = nodes.Get(n)->kind() == NodeKind::Concatenate;
    if (concatenation || steps.empty() || steps.back().concatenation)
      steps.push_back({concatenation, n, n + 1});
    else
      steps.back().end = n + 1;
  }
  return steps;
}

/// A value's lifetime in steps and its size, for placement.
struct Lifetime {
  uint32_t tensor;
  size_t first, last;
  uint64_t bytes;
};

} // namespace

StagePlan planStages(const Blob &blob, const std::vector<Dims> &dims) {
  StagePlan plan;
  plan.steps = cutAtConcatenations(blob);
  const auto &tensors = *blob.tensors();
  const auto &nodes = *blob.nodes();
  constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> writer(tensors.size(), kNone),
      lastReader(tensors.size(), kNone);
  std::vector<bool> shared(tensors.size(), false);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const StepPlan &step = plan.steps[s];
    for (uint32_t n = step.first; n < step.end; ++n) {
      const Node &node = *nodes.Get(n);
      for (uint32_t index : *node.inputs()) {
        if (index == kAbsentTensor)
          continue;
        lastReader[index] = s;
        shared[index] = shared[index] || step.concatenation ||
                        (writer[index] != kNone && writer[index] != s);
      }
      uint32_t out = node.outputs()->Get(0);
      writer[out] = s;
      shared[out] = shared[out] || step.concatenation;
    }
  }
  std::vector<Lifetime> values;
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
    values.push_back({i, writer[i], std::max(last, writer[i]), bytes});
  }
  // Largest first, each at the lowest offset free for its whole lifetime.
  std::stable_sort(
      values.begin(), values.end(),
      [](const Lifetime &a, const Lifetime &b) { return a.bytes > b.bytes; });
  plan.offsets.assign(tensors.size(), -1);
  std::vector<const Lifetime *> placed;
  for (const Lifetime &value : values) {
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (const Lifetime *other : placed)
      if (other->first <= value.last && value.first <= other->last) {
        uint64_t start = static_cast<uint64_t>(plan.offsets[other->tensor]);
        taken.push_back({start, start + other->bytes});
      }
    std::sort(taken.begin(), taken.end());
    uint64_t offset = 0;
    for (const auto &[start, end] : taken) {
      if (offset + value.bytes <= start)
        break;
      offset = std::max(offset, end);
    }
    plan.offsets[value.tensor] = static_cast<int64_t>(offset);
    plan.bytes = std::max(plan.bytes, offset + value.bytes);
    placed.push_back(&value);
  }
  return plan;
}

} // namespace etch::xnnpack
