// A readable listing of a oneDNN blob (et-compile --dump-delegates, tests).
#include "OnednnCompiler.h"

#include "targets/onednn/schema/BlobFormat.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

namespace etch::onednn {
namespace {

void list(const flatbuffers::Vector<int64_t> *values, raw_ostream &os,
          StringRef separator = "x") {
  if (values)
    interleave(*values, os, separator);
}

void describePostOps(const Node &node, raw_ostream &os) {
  if (!node.post_ops())
    return;
  for (const PostOp *post : *node.post_ops()) {
    if (post->sum())
      os << " +Sum(" << post->operand() << ")";
    else if (post->operand() != kAbsentTensor)
      os << " +" << EnumNameBinary(post->binary()) << "(" << post->operand()
         << ")";
    else
      os << " +" << EnumNameEltwise(post->eltwise()) << "("
         << format("%g, %g", post->alpha(), post->beta()) << ")";
  }
}

void describeParams(const Node &node, raw_ostream &os) {
  auto window = [&](const auto *p) {
    os << " stride ";
    list(p->strides(), os);
    os << " dilation ";
    list(p->dilations(), os);
    os << " pad ";
    list(p->pad_begin(), os, ",");
    os << "/";
    list(p->pad_end(), os, ",");
  };
  if (const auto *p = node.params_as_Convolution()) {
    window(p);
    os << " groups " << p->groups();
  } else if (const auto *p = node.params_as_Pool()) {
    os << " " << EnumNamePooling(p->algorithm()) << " kernel ";
    list(p->kernel(), os);
    window(p);
  } else if (const auto *p = node.params_as_BinaryOp()) {
    os << " " << EnumNameBinary(p->algorithm());
  } else if (const auto *p = node.params_as_EltwiseOp()) {
    os << " " << EnumNameEltwise(p->algorithm())
       << format(" alpha %g beta %g", p->alpha(), p->beta());
  }
}

} // namespace

std::string describeBlob(ArrayRef<uint8_t> bytes) {
  std::string text;
  raw_string_ostream os(text);
  runtime::FramedBlob framed;
  if (std::string problem = runtime::openBlob<VerifyBlobBuffer>(
          {{bytes.data(), bytes.size()}, {}}, kBlobMagic, kBlobVersion, framed);
      !problem.empty())
    return "onednn: " + problem + "\n";
  const Blob *blob = GetBlob(framed.flatbuffer);
  os << "onednn blob v" << blob->version() << ": " << blob->input_count()
     << " inputs, " << blob->output_count() << " outputs; needs x86-64"
     << (multipliesInt8(*blob) ? "; int8 convolutions or linear layers: int8 "
                                 "with VNNI, else float"
                               : "")
     << "\n";
  if (blob->tensors())
    for (auto [index, tensor] : llvm::enumerate(*blob->tensors())) {
      os << "  tensor " << index << " [";
      list(tensor->dims(), os);
      os << "] " << EnumNameLayout(tensor->layout());
      if (tensor->datatype() != DataType::F32) {
        os << " " << EnumNameDataType(tensor->datatype());
        if (tensor->channel_scales())
          os << " " << tensor->channel_scales()->size() << " channel scales";
        else
          os << format(" scale %g zero point %d", tensor->scale(),
                       tensor->zero_point());
      }
      if (tensor->data_size())
        os << " constant " << tensor->data_size() << " bytes";
      if (tensor->input() >= 0)
        os << " input " << tensor->input();
      if (tensor->output() >= 0)
        os << " output " << tensor->output();
      if (tensor->nchw())
        os << " (NCHW in the program)";
      os << "\n";
    }
  if (blob->nodes())
    for (const Node *node : *blob->nodes()) {
      os << "  " << EnumNameNodeParams(node->params_type()) << " (";
      if (node->inputs())
        interleave(
            *node->inputs(), os,
            [&](uint32_t index) {
              if (index == kAbsentTensor)
                os << "none";
              else
                os << index;
            },
            ", ");
      os << ") -> (" << node->output() << ")";
      describeParams(*node, os);
      describePostOps(*node, os);
      os << "\n";
    }
  return text;
}

} // namespace etch::onednn
