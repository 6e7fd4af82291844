// Semantic checks of an XNNPACK blob that XNNPACK (2022) does not make
// itself: shapes of every node, and a well-formed dataflow. Run at init,
// after flatbuffer verification, so a damaged blob is an error, never a
// crash inside XNNPACK.
#pragma once

#include "targets/xnnpack/schema/xnnpack_blob_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etch::xnnpack {

/// A tensor's extents in XNNPACK's order (NHWC for rank 4).
using Dims = std::vector<uint64_t>;

/// Elements larger than this are refused (a blob's sizes are untrusted).
inline constexpr uint64_t kMaxElements = uint64_t(1) << 34;

/// The element count, saturating above kMaxElements.
inline uint64_t numel(const Dims &dims) {
  uint64_t count = 1;
  for (uint64_t dim : dims)
    count = dim && count > kMaxElements / dim ? kMaxElements + 1 : count * dim;
  return count;
}

/// Bytes per element of \p datatype.
inline uint64_t elementBytes(Datatype datatype) {
  return datatype == Datatype::Qint8 || datatype == Datatype::Qcint8 ? 1 : 4;
}

/// Empty when tensor \p index's datatype and quantization parameters are
/// ones XNNPACK accepts; otherwise what is wrong.
std::string tensorTypeProblem(size_t index, const Tensor &tensor);

/// The shape rule of node \p index: its output's dims from its inputs'
/// (nullptr: an absent optional input), or what is wrong. One definition:
/// validation checks the blob's stored shapes with it, and a delegate whose
/// inputs change shape computes the new ones with it.
std::string nodeOutputDims(size_t index, const Node &node,
                           const std::vector<const Dims *> &in, Dims &out);

/// Empty when node \p index's int8 scales are within what XNNPACK accepts
/// (QuantizationLimits.h) at tensor extents \p dims; otherwise what is not.
/// Checked again when inputs change shape: pooling's limit counts pixels.
std::string nodeScalesProblem(size_t index, const Node &node, const Blob &blob,
                              const std::vector<Dims> &dims);

/// Empty when \p blob is consistent and its intermediate values (which
/// XNNPACK allocates itself) fit in \p memoryLimit bytes (the loading
/// method's LoadOptions::memoryLimit); otherwise what is wrong and where.
std::string validateBlob(const Blob &blob, uint64_t memoryLimit = UINT64_MAX);

} // namespace etch::xnnpack
