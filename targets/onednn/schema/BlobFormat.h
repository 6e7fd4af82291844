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

/// What a blob needs of the CPU beyond x86-64 (oneDNN picks its kernels at
/// run time): VNNI when a convolution or inner product reads an 8-bit
/// source. Without VNNI oneDNN sums u8 x s8 products pairwise in saturating
/// 16 bits, and its int8 results drift from the Q/DQ graph's
/// (docs/targets.md). Indices out of range count as float: the runtime's
/// builder refuses them later.
inline bool needsVnni(const Blob &blob) {
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
