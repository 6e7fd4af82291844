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

} // namespace etch::onednn
