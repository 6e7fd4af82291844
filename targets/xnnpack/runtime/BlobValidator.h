// Semantic checks of an XNNPACK blob that XNNPACK (2022) does not make
// itself: shapes of every node, and a well-formed dataflow. Run at init,
// after flatbuffer verification, so a damaged blob is an error, never a
// crash inside XNNPACK.
#pragma once

#include "targets/xnnpack/schema/xnnpack_blob_generated.h"

#include <string>

namespace etch::xnnpack {

/// Empty when \p blob is consistent; otherwise what is wrong and where.
std::string validateBlob(const Blob &blob);

} // namespace etch::xnnpack
