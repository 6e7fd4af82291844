// The oneDNN blob's magic and version (the framing is runtime/backend/
// BlobFraming.h) and limits shared by its writer and reader.
#pragma once

#include "targets/onednn/schema/onednn_blob_generated.h"

#include "runtime/backend/BlobFraming.h"

#include <cstdint>

namespace etch::onednn {

inline constexpr char kBlobMagic[4] = {'E', 'D', 'N', 'L'};
inline constexpr uint32_t kBlobVersion = 2; // 2: sum post-ops
inline constexpr uint32_t kAbsentTensor = 0xFFFFFFFFu;
inline constexpr int kMaxRank = 6;

/// Whether a convolution or inner product of the blob reads an 8-bit
/// source: oneDNN runs those in int8 on a CPU with VNNI. Without VNNI its
/// int8 kernels sum u8 x s8 products pairwise in saturating 16 bits and
/// drift from the Q/DQ graph's results (docs/targets.md), so the runtime
/// computes them in float there. Indices out of range count as float: the
/// runtime's builder refuses them later.
inline bool multipliesInt8(const Blob &blob) {
  if (!blob.nodes() || !blob.tensors())
    return false;
  for (const Node *node : *blob.nodes()) {
    bool multiplies = node->params_type() == NodeParams::Convolution ||
                      node->params_type() == NodeParams::InnerProduct;
    if (!multiplies || !node->inputs() || node->inputs()->size() == 0)
      continue;
    uint32_t source = node->inputs()->Get(0);
    if (source < blob.tensors()->size() &&
        blob.tensors()->Get(source)->datatype() != DataType::F32)
      return true;
  }
  return false;
}

} // namespace etch::onednn
