#include "BlobWriter.h"

#include <cstring>

namespace etch::onednn {

uint32_t BlobWriter::addData(llvm::ArrayRef<int64_t> dims, Layout layout,
                             const void *bytes, size_t size) {
  uint32_t id = addTensor(dims, layout);
  data.append(runtime::blobConstantPadding(data.size()), '\0');
  tensor(id).data_offset = data.size();
  tensor(id).data_size = size;
  data.append(static_cast<const char *>(bytes), size);
  return id;
}

std::vector<uint8_t> BlobWriter::finish(uint32_t inputCount,
                                        uint32_t outputCount) {
  blob.version = kBlobVersion;
  blob.input_count = inputCount;
  blob.output_count = outputCount;
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  FinishBlobBuffer(fbb, Blob::Pack(fbb, &blob));
  return runtime::frameBlob(kBlobMagic, kBlobVersion, fbb.GetBufferPointer(),
                            fbb.GetSize(), data);
}

} // namespace etch::onednn
