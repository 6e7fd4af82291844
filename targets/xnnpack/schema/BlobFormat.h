// The XNNPACK blob's magic, version and node parameter tables (the framing
// is runtime/backend/BlobFraming.h).
#pragma once

#include "targets/xnnpack/schema/xnnpack_blob_generated.h"

#include "runtime/backend/BlobFraming.h"

#include <cstdint>

namespace etch::xnnpack {

inline constexpr char kBlobMagic[4] = {'E', 'X', 'N', 'N'};
inline constexpr uint32_t kBlobVersion = 2;
inline constexpr uint32_t kAbsentTensor = 0xFFFFFFFFu;

/// The parameter table each node kind carries (NodeParams::NONE: none).
inline NodeParams paramsOf(NodeKind kind) {
  switch (kind) {
  case NodeKind::Convolution2d:
    return NodeParams::ConvolutionParams;
  case NodeKind::DepthwiseConvolution2d:
    return NodeParams::DepthwiseConvolutionParams;
  case NodeKind::MaxPooling2d:
  case NodeKind::AveragePooling2d:
    return NodeParams::PoolingParams;
  case NodeKind::ConstantPad:
    return NodeParams::PadParams;
  case NodeKind::StaticReshape:
    return NodeParams::ReshapeParams;
  case NodeKind::LeakyRelu:
  case NodeKind::Elu:
    return NodeParams::ScalarParams;
  case NodeKind::Concatenate:
    return NodeParams::ConcatenateParams;
  default:
    return NodeParams::NONE;
  }
}

/// Whether \p node carries its kind's parameter table (the flatbuffers
/// verifier accepts a union type without its table).
inline bool hasItsParams(const Node &node) {
  NodeParams expected = paramsOf(node.kind());
  return node.params_type() == expected &&
         (expected == NodeParams::NONE || node.params() != nullptr);
}

} // namespace etch::xnnpack
