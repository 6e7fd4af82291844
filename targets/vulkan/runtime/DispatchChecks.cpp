//===- DispatchChecks.cpp - What a dispatch may touch ---------------------===//
#include "DispatchChecks.h"

#include "targets/vulkan/schema/ShaderInterface.h"

#include <algorithm>
#include <cstdint>

namespace etch::vulkan {
namespace {

constexpr uint64_t kTooMany = uint64_t(1) << 40;

/// The push-constant words and bound regions of one dispatch.
struct View {
  const flatbuffers::Vector<uint32_t> &push;
  const flatbuffers::Vector<const Region *> &bindings;
  const flatbuffers::Vector<uint32_t> &groups;
  const flatbuffers::Vector<uint32_t> &local;
  uint64_t elementBytes; // of a float element in the arena
  uint64_t word(uint32_t i) const { return push.Get(i); }
  /// Float elements of binding \p i.
  uint64_t elements(uint32_t i) const {
    return bindings.Get(i)->size() / elementBytes;
  }
  uint64_t groupCount() const {
    return uint64_t(groups.Get(0)) * groups.Get(1) * groups.Get(2);
  }
};

/// a * b, saturating at kTooMany.
uint64_t times(uint64_t a, uint64_t b) {
  return a && b > kTooMany / a ? kTooMany : a * b;
}

/// The last element a strided walk over \p dims reaches from \p offset.
uint64_t lastIndex(const View &v, uint32_t dimsAt, uint32_t stridesAt,
                   uint64_t offset) {
  uint64_t last = offset;
  for (int d = 0; d < kMaxRank; ++d)
    last += times(v.word(dimsAt + d) - 1, v.word(stridesAt + d));
  return std::min(last, kTooMany);
}

/// One row of at most \p needed workgroups, none of them idle (a damaged
/// count would run millions of empty invocations).
std::string checkGroupRow(const View &v, uint64_t needed) {
  if (v.groups.Get(1) != 1 || v.groups.Get(2) != 1)
    return "a one-dimensional dispatch with several rows of workgroups";
  if (v.groups.Get(0) > needed)
    return "more workgroups than the work needs";
  return "";
}

/// A grid-stride dispatch over \p items.
std::string checkLine(const View &v, uint64_t items) {
  uint64_t width = v.local.Get(0);
  return checkGroupRow(v, (items + width - 1) / width);
}

/// The output extent of a window of \p kernel taps (dilated) sliding with
/// \p stride over \p extent plus \p padding on both sides, rounded down
/// or, with \p ceil, up (ATen's rule); 0 when the window does not fit.
uint64_t windowCount(uint64_t extent, uint64_t padding, uint64_t kernel,
                     uint64_t stride, uint64_t dilation, bool ceil) {
  uint64_t padded = extent + 2 * padding, span = dilation * (kernel - 1) + 1;
  if (span > padded)
    return 0;
  return (padded - span + (ceil ? stride - 1 : 0)) / stride + 1;
}

/// Copy and Binary: six positive dims, a walk per operand.
std::string checkStrided(const View &v, bool binary) {
  uint64_t count = 1;
  for (int d = 0; d < kMaxRank; ++d) {
    if (v.word(d) == 0)
      return "a dim is 0";
    count = times(count, v.word(d));
  }
  if (count >= kTooMany)
    return "too many elements";
  if (binary) {
    if (v.word(3 * kMaxRank) > static_cast<uint32_t>(BinaryOp::MAX))
      return "unknown binary op";
    if (lastIndex(v, 0, kMaxRank, 0) >= v.elements(0) ||
        lastIndex(v, 0, 2 * kMaxRank, 0) >= v.elements(1) ||
        count > v.elements(2))
      return "reads or writes past its regions";
    return checkLine(v, count);
  }
  if (lastIndex(v, 0, kMaxRank, v.word(3 * kMaxRank)) >= v.elements(0) ||
      lastIndex(v, 0, 2 * kMaxRank, v.word(3 * kMaxRank + 1)) >=
          v.elements(1))
    return "reads or writes past its regions";
  return checkLine(v, count);
}

std::string checkUnary(const View &v) {
  if (v.word(1) > static_cast<uint32_t>(Activation::MAX))
    return "unknown activation";
  if (v.word(0) > std::min(v.elements(0), v.elements(1)))
    return "reads or writes past its regions";
  return checkLine(v, v.word(0));
}

std::string checkGemm(const View &v) {
  uint64_t M = v.word(0), N = v.word(1), K = v.word(2);
  uint64_t tile = v.local.Get(0), batch = v.groups.Get(2);
  if (!M || !N || !K || v.local.Get(1) != tile)
    return "empty matrices or a non-square tile";
  if (v.groups.Get(0) != (N + tile - 1) / tile ||
      v.groups.Get(1) != (M + tile - 1) / tile)
    return "workgroup counts do not cover the result";
  if (v.word(12) > static_cast<uint32_t>(Activation::MAX))
    return "unknown activation";
  uint64_t lastA = times(batch - 1, v.word(3)) + times(M - 1, v.word(4)) +
                   times(K - 1, v.word(5));
  uint64_t lastB = times(batch - 1, v.word(6)) + times(K - 1, v.word(7)) +
                   times(N - 1, v.word(8));
  uint64_t lastBias = times(M - 1, v.word(9)) + times(N - 1, v.word(10));
  if (lastA >= v.elements(0) || lastB >= v.elements(1) ||
      (v.word(11) && lastBias >= v.elements(2)) ||
      times(times(batch, M), N) > v.elements(3) ||
      K > std::max(v.elements(0), v.elements(1)))
    return "reads or writes past its regions";
  return "";
}

std::string checkConv2d(const View &v) {
  for (uint32_t i = 0; i < 16; ++i)
    if (v.word(i) == 0 && (i < 11 || i >= 13))
      return "a size, dilation or group count is 0";
  uint64_t N = v.word(0), C = v.word(1), H = v.word(2), W = v.word(3),
           O = v.word(4), OH = v.word(5), OW = v.word(6), KH = v.word(7),
           KW = v.word(8), groups = v.word(15);
  if (C % groups || O % groups)
    return "groups do not divide the channels";
  // The output extent follows from the input and the window, as ATen
  // computes it (this also bounds the taps each output sums).
  if (OH != windowCount(H, v.word(11), KH, v.word(9), v.word(13), false) ||
      OW != windowCount(W, v.word(12), KW, v.word(10), v.word(14), false))
    return "output size does not follow from the input and the window";
  if (v.word(17) > static_cast<uint32_t>(Activation::MAX))
    return "unknown activation";
  if (times(times(N, C), H * W) > v.elements(0) ||
      times(times(O, C / groups), KH * KW) > v.elements(1) ||
      (v.word(16) && O > v.elements(2)) ||
      times(times(N, O), OH * OW) > v.elements(3))
    return "reads or writes past its regions";
  uint64_t groupOut = O / groups;
  uint64_t blocks = (groupOut + kConvBlock - 1) / kConvBlock;
  return checkLine(v, times(times(N, groups), times(blocks, OH * OW)));
}

std::string checkPool2d(const View &v) {
  uint64_t planes = v.word(0), H = v.word(1), W = v.word(2), OH = v.word(3),
           OW = v.word(4), KH = v.word(5), KW = v.word(6);
  if (!planes || !H || !W || !OH || !OW || !KH || !KW || !v.word(7) ||
      !v.word(8) || !v.word(11) || !v.word(12))
    return "a size, stride or dilation is 0";
  if (v.word(13) > static_cast<uint32_t>(PoolMode::MAX))
    return "unknown pooling mode";
  // The window loop is bounded by the padded input.
  if ((KH - 1) * v.word(11) + 1 > H + 2 * v.word(9) ||
      (KW - 1) * v.word(12) + 1 > W + 2 * v.word(10) ||
      v.word(9) > KH || v.word(10) > KW)
    return "window larger than the padded input";
  // Fixed windows: the output extent of ATen's floor or ceil mode.
  bool adaptive = v.word(13) >= static_cast<uint32_t>(PoolMode::AdaptiveAvg);
  auto fits = [&](uint64_t out, uint64_t extent, uint32_t at) {
    return out >= windowCount(extent, v.word(at + 9), v.word(at + 5),
                              v.word(at + 7), v.word(at + 11), false) &&
           out <= windowCount(extent, v.word(at + 9), v.word(at + 5),
                              v.word(at + 7), v.word(at + 11), true);
  };
  if (!adaptive && (!fits(OH, H, 0) || !fits(OW, W, 1)))
    return "output size does not follow from the input and the window";
  if (times(planes, H * W) > v.elements(0) ||
      times(planes, OH * OW) > v.elements(1))
    return "reads or writes past its regions";
  return checkLine(v, times(planes, OH * OW));
}

/// Softmax and Reduce: [outer, R, inner] in; Softmax writes the same,
/// Reduce [outer, inner].
std::string checkRows(const View &v, bool reduces) {
  uint64_t outer = v.word(0), R = v.word(1), inner = v.word(2);
  if (!outer || !R || !inner)
    return "a size is 0";
  if (reduces && v.word(3) > static_cast<uint32_t>(ReduceMode::MAX))
    return "unknown reduction";
  uint64_t all = times(times(outer, R), inner);
  if (all > v.elements(0) ||
      (reduces ? times(outer, inner) : all) > v.elements(1))
    return "reads or writes past its regions";
  return checkLine(v, times(outer, inner));
}

std::string checkLayerNorm(const View &v) {
  uint64_t rows = v.word(0), D = v.word(1), width = v.local.Get(0);
  if (!rows || !D)
    return "a size is 0";
  if (width & (width - 1))
    return "workgroup width is not a power of two";
  if (times(rows, D) > std::min(v.elements(0), v.elements(3)) ||
      (v.word(3) && D > v.elements(1)) || (v.word(4) && D > v.elements(2)))
    return "reads or writes past its regions";
  return checkGroupRow(v, rows); // a workgroup per row
}

std::string checkAttention(const View &v) {
  uint64_t B = v.word(0), H = v.word(1), KVH = v.word(2), L = v.word(3),
           S = v.word(4), E = v.word(5), Ev = v.word(6), kind = v.word(7);
  if (!B || !H || !KVH || !L || !S || !E || !Ev || H % KVH)
    return "a size is 0, or key/value heads do not divide the query heads";
  if (kind > static_cast<uint32_t>(MaskKind::MAX))
    return "unknown mask kind";
  uint64_t lastMask = times(B - 1, v.word(8)) + times(H - 1, v.word(9)) +
                      times(L - 1, v.word(10)) + times(S - 1, v.word(11));
  uint64_t maskUnits = kind == uint32_t(MaskKind::Bool)
                           ? v.bindings.Get(3)->size()
                           : v.elements(3);
  if (times(times(B, H), L * E) > v.elements(0) ||
      times(times(B, KVH), S * E) > v.elements(1) ||
      times(times(B, KVH), S * Ev) > v.elements(2) ||
      (kind && lastMask >= maskUnits) ||
      times(times(B, H), L * Ev) > v.elements(4))
    return "reads or writes past its regions";
  return checkLine(v, times(times(B, H), L));
}

/// Indexed by Shader.
std::string (*const kChecks[])(const View &) = {
    [](const View &v) { return checkStrided(v, false); },
    [](const View &v) { return checkStrided(v, true); },
    checkUnary,
    checkGemm,
    checkConv2d,
    checkPool2d,
    [](const View &v) { return checkRows(v, false); },
    checkLayerNorm,
    [](const View &v) { return checkRows(v, true); },
    checkAttention,
};
static_assert(sizeof(kChecks) / sizeof(kChecks[0]) ==
                  static_cast<size_t>(Shader::MAX) + 1,
              "one check per shader");

/// Shared memory a shader declares for its workgroup size.
uint64_t sharedBytes(Shader shader, uint64_t width) {
  if (shader == Shader::Gemm)
    return 2 * width * width * 4;
  return shader == Shader::LayerNorm ? width * 4 : 0;
}

} // namespace

std::string checkRegion(const Region *region, const DeviceLimits &limits) {
  // The flatbuffers verifier checks a struct's bounds, not its alignment.
  if (region && reinterpret_cast<uintptr_t>(region) % alignof(Region))
    return "a region is misaligned";
  if (!region || region->size() == 0 || region->size() % 4 ||
      region->offset() > limits.arenaSize ||
      region->size() > limits.arenaSize - region->offset())
    return "a region is empty or lies outside the arena";
  if (region->offset() % limits.offsetAlignment)
    return "a region's offset is not aligned for the device";
  if (region->size() > limits.maxRange)
    return "a region is larger than the device's storage buffer range";
  return "";
}

std::string checkDispatch(const Dispatch &dispatch, const DeviceLimits &limits,
                          FloatStorage storage) {
  if (dispatch.shader() > Shader::MAX)
    return "unknown shader";
  const ShaderInterface &interface = shaderInterface(dispatch.shader());
  if (!dispatch.bindings() ||
      dispatch.bindings()->size() != interface.bindings || !dispatch.push() ||
      dispatch.push()->size() != interface.pushWords ||
      interface.pushWords * 4 > limits.maxPushBytes)
    return "bindings or push constants differ from the shader's";
  for (const Region *region : *dispatch.bindings())
    if (std::string problem = checkRegion(region, limits); !problem.empty())
      return problem;
  if (!dispatch.groups() || dispatch.groups()->size() != 3 ||
      !dispatch.local_size() || dispatch.local_size()->size() != 2)
    return "workgroup counts or sizes missing";
  uint64_t invocations = 1;
  for (uint32_t i = 0; i < 3; ++i) {
    uint32_t groups = dispatch.groups()->Get(i);
    if (groups == 0 || groups > limits.maxGroups[i] || groups > kMaxGroups)
      return "workgroup count outside the device's limits";
  }
  for (uint32_t i = 0; i < 2; ++i) {
    uint32_t size = dispatch.local_size()->Get(i);
    if (size == 0 || size > limits.maxLocalSize[i])
      return "workgroup size outside the device's limits";
    invocations *= size;
  }
  // Only Gemm's workgroups are two-dimensional.
  if (dispatch.shader() != Shader::Gemm && dispatch.local_size()->Get(1) != 1)
    return "workgroup height other than 1";
  if (invocations > limits.maxInvocations ||
      sharedBytes(dispatch.shader(), dispatch.local_size()->Get(0)) >
          limits.sharedMemoryBytes)
    return "workgroup larger than the device allows";
  View view{*dispatch.push(), *dispatch.bindings(), *dispatch.groups(),
            *dispatch.local_size(), elementBytes(storage)};
  return kChecks[static_cast<size_t>(dispatch.shader())](view);
}

} // namespace etch::vulkan
