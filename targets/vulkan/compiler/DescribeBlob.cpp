//===- DescribeBlob.cpp - Readable listing of a Vulkan blob ---------------===//
#include "VulkanCompiler.h"

#include "targets/vulkan/schema/ShaderInterface.h"

#include "runtime/backend/BlobFraming.h"

#include "llvm/Support/raw_ostream.h"

namespace etch::vulkan {
namespace {

void printRegion(llvm::raw_ostream &os, const Region *region) {
  os << "@" << region->offset() << "+" << region->size();
}

template <typename T>
void printList(llvm::raw_ostream &os, const flatbuffers::Vector<T> *values) {
  os << "[";
  if (values)
    for (uint32_t i = 0; i < values->size(); ++i)
      os << (i ? ", " : "") << values->Get(i);
  os << "]";
}

void printBindings(llvm::raw_ostream &os, const char *what,
                   const flatbuffers::Vector<flatbuffers::Offset<Binding>>
                       *bindings) {
  if (!bindings)
    return;
  for (uint32_t i = 0; i < bindings->size(); ++i) {
    os << "  " << what << " " << i << ": ";
    printList(os, bindings->Get(i)->dims());
    os << " ";
    printRegion(os, bindings->Get(i)->region());
    os << "\n";
  }
}

} // namespace

std::string describeBlob(llvm::ArrayRef<uint8_t> bytes) {
  runtime::FramedBlob framed;
  if (std::string problem = runtime::openBlob<VerifyBlobBuffer>(
          {{bytes.data(), bytes.size()}, {}}, kBlobMagic, kBlobVersion, framed);
      !problem.empty())
    return "vulkan: " + problem + "\n";
  const Blob *blob = GetBlob(framed.flatbuffer);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "vulkan blob: arena " << blob->arena_size() << " bytes, "
     << (blob->uploads() ? blob->uploads()->size() : 0) << " uploads ("
     << framed.constantsSize << " constant bytes), "
     << (blob->dispatches() ? blob->dispatches()->size() : 0) << " dispatches, "
     << (blob->float_storage() == FloatStorage::F16 ? "float16" : "float32")
     << " storage\n";
  printBindings(os, "input", blob->inputs());
  printBindings(os, "output", blob->outputs());
  if (blob->dispatches())
    for (uint32_t i = 0; i < blob->dispatches()->size(); ++i) {
      const Dispatch &dispatch = *blob->dispatches()->Get(i);
      os << "  dispatch " << i << ": " << EnumNameShader(dispatch.shader())
         << " groups ";
      printList(os, dispatch.groups());
      os << " local ";
      printList(os, dispatch.local_size());
      os << " bindings [";
      if (dispatch.bindings())
        for (uint32_t b = 0; b < dispatch.bindings()->size(); ++b) {
          os << (b ? ", " : "");
          printRegion(os, dispatch.bindings()->Get(b));
        }
      os << "] push ";
      printList(os, dispatch.push());
      os << "\n";
    }
  return text;
}

} // namespace etch::vulkan
