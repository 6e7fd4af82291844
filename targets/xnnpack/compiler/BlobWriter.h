// The XNNPACK blob as the compiler builds it: tensor and node records, the
// constant section, and the framing around the flatbuffer (BlobFormat.h).
#ifndef ETCH_TARGETS_XNNPACK_COMPILER_BLOBWRITER_H
#define ETCH_TARGETS_XNNPACK_COMPILER_BLOBWRITER_H

#include "targets/xnnpack/schema/BlobFormat.h"
#include "targets/xnnpack/schema/xnnpack_blob_generated.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace etch::xnnpack {

/// An open end of a node's output range (no clamp).
constexpr float kInf = std::numeric_limits<float>::infinity();

/// One blob tensor as the compiler fills it (schema Tensor).
struct TensorRecord {
  std::vector<uint64_t> dims;
  uint64_t dataOffset = 0, dataSize = 0;
  int input = -1, output = -1;
  bool nchw = false;
  Datatype datatype = Datatype::Fp32;
  float scale = 0;
  int32_t zeroPoint = 0;
  std::vector<float> channelScales;
  uint32_t channelDim = 0;
};

/// How XNNPACK stores a value of element type \p element: fp32, or qint8
/// with the type's parameters (the rules admit no other quantized values).
void setElementType(TensorRecord &record, mlir::Type element);

/// One blob node (schema Node).
struct NodeRecord {
  NodeKind kind;
  std::vector<uint32_t> inputs, outputs;
  NodeParamsUnion params; // the kind's table (BlobFormat.h paramsOf)
  float outputMin = -kInf, outputMax = kInf;
  bool fusable = false; // accepts a fused output range
};

/// Tensors, nodes and constant bytes of one delegate's blob.
class BlobWriter {
public:
  uint32_t addTensor(std::vector<uint64_t> dims) {
    tensors.push_back({std::move(dims)});
    return tensors.size() - 1;
  }
  template <typename T>
  uint32_t addData(std::vector<uint64_t> dims, llvm::ArrayRef<T> values) {
    uint32_t id = addTensor(std::move(dims));
    data.append(runtime::blobConstantPadding(data.size()), '\0');
    tensors[id].dataOffset = data.size();
    tensors[id].dataSize = values.size() * sizeof(T);
    data.append(reinterpret_cast<const char *>(values.data()),
                values.size() * sizeof(T));
    return id;
  }
  uint32_t addConstant(std::vector<uint64_t> dims, llvm::ArrayRef<float> values) {
    return addData(std::move(dims), values);
  }
  /// A channelwise-quantized constant (Qcint8 / Qcint32).
  template <typename T>
  uint32_t addChannelwise(std::vector<uint64_t> dims, llvm::ArrayRef<T> values,
                          std::vector<float> scales, uint32_t channelDim) {
    uint32_t id = addData(std::move(dims), values);
    TensorRecord &record = tensors[id];
    record.datatype = sizeof(T) == 1 ? Datatype::Qcint8
                                     : Datatype::Qcint32;
    record.channelScales = std::move(scales);
    record.channelDim = channelDim;
    return id;
  }
  std::vector<TensorRecord> tensors;
  std::vector<NodeRecord> nodes;
  std::string data;

  /// The blob: header, flatbuffer, 64-byte aligned constant section.
  std::vector<uint8_t> finish(uint32_t inputCount, uint32_t outputCount) const;
};


} // namespace etch::xnnpack

#endif
