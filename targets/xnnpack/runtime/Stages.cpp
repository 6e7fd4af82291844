#include "Stages.h"

#include "GemmSteps.h"
#include "targets/xnnpack/schema/BlobFormat.h"

#include "runtime/core/MemoryPlanner.h"

#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace etch::xnnpack {
namespace {

constexpr uint64_t kAlignment = 64;

/// The steps in node order: XNNPACK runs cut at each node that is a step
/// of its own (a concatenation, a GEMM node) and at each fused SiLU pair.
std::vector<StepPlan> cutSteps(const Blob &blob, const std::vector<Dims> &dims,
                               const std::vector<bool> &gemm, bool fuseSilu) {
  std::vector<StepPlan> steps;
  const auto &nodes = *blob.nodes();
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    if (fuseSilu && isSiluPair(blob, dims, n)) {
      steps.push_back({StepKind::Silu, n, n + 2});
      ++n;
      continue;
    }
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

constexpr size_t kNone = SIZE_MAX;

/// Per tensor, in steps: the step that writes it, the last that reads it,
/// and whether it passes between steps (or a step outside XNNPACK touches
/// it), which puts it in the delegate buffer.
struct Lifetimes {
  std::vector<size_t> writer, lastReader;
  std::vector<bool> shared;

  size_t lastUse(uint32_t tensor) const {
    return lastReader[tensor] == kNone ? writer[tensor] : lastReader[tensor];
  }
};

Lifetimes lifetimesOf(const Blob &blob, const std::vector<StepPlan> &steps) {
  size_t count = blob.tensors()->size();
  Lifetimes life{std::vector<size_t>(count, kNone),
                 std::vector<size_t>(count, kNone),
                 std::vector<bool>(count, false)};
  const auto &nodes = *blob.nodes();
  for (size_t s = 0; s < steps.size(); ++s) {
    const StepPlan &step = steps[s];
    bool outside = step.kind != StepKind::Xnnpack;
    auto read = [&](uint32_t index) {
      life.lastReader[index] = s;
      life.shared[index] =
          life.shared[index] || outside ||
          (life.writer[index] != kNone && life.writer[index] != s);
    };
    auto write = [&](uint32_t index) {
      life.writer[index] = s;
      life.shared[index] = life.shared[index] || outside;
    };
    if (step.kind == StepKind::Silu) {
      // The sigmoid's output is never stored: the pass reads x, writes out.
      read(nodes.Get(step.first)->inputs()->Get(0));
      write(nodes.Get(step.first + 1)->outputs()->Get(0));
      continue;
    }
    for (uint32_t n = step.first; n < step.end; ++n) {
      const Node &node = *nodes.Get(n);
      for (uint32_t index : *node.inputs())
        if (index != kAbsentTensor)
          read(index);
      write(node.outputs()->Get(0));
    }
  }
  return life;
}

/// Per tensor, the tensor whose bytes it uses (itself, or the input of the
/// SiLU that wrote it in place); \p last grows to cover the chain.
std::vector<uint32_t> inPlaceOwners(const Blob &blob,
                                    const std::vector<StepPlan> &steps,
                                    const Lifetimes &life,
                                    const std::function<bool(uint32_t)> &placed,
                                    std::vector<size_t> &last) {
  std::vector<uint32_t> owner(blob.tensors()->size());
  for (uint32_t i = 0; i < owner.size(); ++i)
    owner[i] = i;
  // A SiLU whose input dies with it writes over its input: those bytes are
  // in cache (just written), a fresh output's would have to be fetched.
  for (size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].kind != StepKind::Silu)
      continue;
    uint32_t x = blob.nodes()->Get(steps[s].first)->inputs()->Get(0);
    uint32_t out = blob.nodes()->Get(steps[s].first + 1)->outputs()->Get(0);
    if (placed(x) && placed(out) && life.lastReader[x] == s) {
      owner[out] = owner[x];
      last[owner[x]] = std::max(last[owner[x]], last[out]);
    }
  }
  return owner;
}

} // namespace

StagePlan planStages(const Blob &blob, const std::vector<Dims> &dims,
                     const std::vector<bool> &gemm, bool fuseSilu) {
  StagePlan plan;
  plan.steps = cutSteps(blob, dims, gemm, fuseSilu);
  const auto &tensors = *blob.tensors();
  Lifetimes life = lifetimesOf(blob, plan.steps);
  auto inBuffer = [&](uint32_t i) {
    const Tensor &tensor = *tensors.Get(i);
    bool ownMemory =
        tensor.data_size() || tensor.input() >= 0 || tensor.output() >= 0;
    return life.shared[i] && !ownMemory && life.writer[i] != kNone;
  };
  std::vector<size_t> last(tensors.size());
  for (uint32_t i = 0; i < tensors.size(); ++i)
    last[i] = life.lastUse(i);
  std::vector<uint32_t> owner =
      inPlaceOwners(blob, plan.steps, life, inBuffer, last);
  // Values passed between steps, placed by lifetime in steps.
  std::vector<uint32_t> placed;
  std::vector<runtime::PlannedBuffer> buffers;
  for (uint32_t i = 0; i < tensors.size(); ++i) {
    if (!inBuffer(i) || owner[i] != i)
      continue;
    uint64_t bytes = numel(dims[i]) * elementBytes(tensors.Get(i)->datatype());
    // XNNPACK may read XNN_EXTRA_BYTES past an input.
    bytes =
        (bytes + XNN_EXTRA_BYTES + kAlignment - 1) / kAlignment * kAlignment;
    placed.push_back(i);
    buffers.push_back({bytes, static_cast<int64_t>(life.writer[i]),
                       static_cast<int64_t>(last[i])});
  }
  plan.bytes = runtime::MemoryPlanner(kAlignment).plan(buffers);
  plan.offsets.assign(tensors.size(), -1);
  for (size_t v = 0; v < placed.size(); ++v)
    plan.offsets[placed[v]] = static_cast<int64_t>(buffers[v].offset);
  for (uint32_t i = 0; i < tensors.size(); ++i)
    if (owner[i] != i)
      plan.offsets[i] = plan.offsets[owner[i]];
  return plan;
}

} // namespace etch::xnnpack
