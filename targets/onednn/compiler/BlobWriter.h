// The oneDNN blob as the compiler builds it: flatbuffers object-API tensors
// and nodes, the constant section, and the framing (BlobFormat.h).
#ifndef ETCH_TARGETS_ONEDNN_COMPILER_BLOBWRITER_H
#define ETCH_TARGETS_ONEDNN_COMPILER_BLOBWRITER_H

#include "targets/onednn/schema/BlobFormat.h"
#include "targets/onednn/schema/onednn_blob_generated.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etch::onednn {

class BlobWriter {
public:
  uint32_t addTensor(llvm::ArrayRef<int64_t> dims, Layout layout) {
    auto tensor = std::make_unique<TensorT>();
    tensor->dims.assign(dims.begin(), dims.end());
    tensor->layout = layout;
    blob.tensors.push_back(std::move(tensor));
    return blob.tensors.size() - 1;
  }
  /// A float32 constant, its bytes ordered as \p layout says.
  uint32_t addConstant(llvm::ArrayRef<int64_t> dims, Layout layout,
                       llvm::ArrayRef<float> values) {
    return addData(dims, layout, values.data(), values.size() * sizeof(float));
  }
  /// A constant of \p size bytes (the caller sets its data type).
  uint32_t addData(llvm::ArrayRef<int64_t> dims, Layout layout,
                   const void *bytes, size_t size);
  TensorT &tensor(uint32_t id) { return *blob.tensors[id]; }
  NodeT &addNode(uint32_t output, std::vector<uint32_t> inputs) {
    auto node = std::make_unique<NodeT>();
    node->output = output;
    node->inputs = std::move(inputs);
    blob.nodes.push_back(std::move(node));
    return *blob.nodes.back();
  }

  /// The blob: header, flatbuffer, 64-byte aligned constant section.
  std::vector<uint8_t> finish(uint32_t inputCount, uint32_t outputCount);

private:
  BlobT blob;
  std::string data;
};

} // namespace etch::onednn

#endif
