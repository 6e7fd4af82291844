// Defines one blob node in an XNNPACK subgraph: a table from node kind to
// the xnn_define_* call that takes its tensors and parameters.
#pragma once

#include "BlobValidator.h"
#include "targets/xnnpack/schema/xnnpack_blob_generated.h"

#include "runtime/backend/Backend.h"
#include "runtime/core/Error.h"

#include <xnnpack.h>

#include <cstdint>
#include <vector>

namespace etch::xnnpack {

/// Refuses the blob: logs "xnnpack: <what>" (runtime::invalidBlob).
inline runtime::Error fail(const char *what) {
  return runtime::invalidBlob("xnnpack", what);
}

/// Defines \p node in \p subgraph; \p ids maps the blob's tensor indices
/// to the subgraph's value ids, \p dims holds every tensor's current dims
/// (a reshape's output). Fails with a logged message naming the node kind.
runtime::Error defineNode(xnn_subgraph_t subgraph, const Node &node,
                          const std::vector<uint32_t> &ids,
                          const std::vector<Dims> &dims);

} // namespace etch::xnnpack
