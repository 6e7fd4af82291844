#include "BlobWriter.h"

#include "mlir/Dialect/Quant/QuantTypes.h"

#include <cstring>

namespace etch::xnnpack {

namespace fb = flatbuffers;

/// How XNNPACK stores a value of element type \p element: fp32, or qint8
/// with the type's parameters (the rules admit no other quantized values).
void setElementType(TensorRecord &record, mlir::Type element) {
  if (auto uniform = mlir::dyn_cast<mlir::quant::UniformQuantizedType>(element)) {
    record.datatype = Datatype::Qint8;
    record.scale = static_cast<float>(uniform.getScale());
    record.zeroPoint = static_cast<int32_t>(uniform.getZeroPoint());
  }
}

std::vector<uint8_t> BlobWriter::finish(uint32_t inputCount,
                                      uint32_t outputCount) const {
  fb::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  std::vector<fb::Offset<Tensor>> tensorOffsets;
  for (const TensorRecord &t : tensors)
    tensorOffsets.push_back(CreateTensorDirect(
        fbb, &t.dims, t.dataOffset, t.dataSize, t.input, t.output, t.nchw,
        t.datatype, t.scale, t.zeroPoint,
        t.channelScales.empty() ? nullptr : &t.channelScales,
        t.channelDim));
  std::vector<fb::Offset<Node>> nodeOffsets;
  for (const NodeRecord &n : nodes)
    nodeOffsets.push_back(CreateNodeDirect(
        fbb, n.kind, &n.inputs, &n.outputs, n.params.type,
        n.params.Pack(fbb), n.outputMin, n.outputMax));
  auto blob = CreateBlobDirect(fbb, kBlobVersion, &tensorOffsets,
                                       &nodeOffsets, inputCount, outputCount);
  FinishBlobBuffer(fbb, blob);
  return runtime::frameBlob(kBlobMagic, kBlobVersion, fbb.GetBufferPointer(),
                            fbb.GetSize(), data);
}

} // namespace etch::xnnpack
