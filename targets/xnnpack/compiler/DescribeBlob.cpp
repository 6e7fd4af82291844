// A readable listing of an XNNPACK blob (et-compile --dump-delegates, tests).
#include "XnnpackCompiler.h"

#include "BlobWriter.h"

#include "runtime/kernels/optimized/GemmMicrokernel.h"
#include "targets/xnnpack/runtime/GemmSteps.h"
#include "targets/xnnpack/schema/BlobFormat.h"
#include "targets/xnnpack/schema/xnnpack_blob_generated.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;
namespace schema = etch::xnnpack;

namespace etch::xnnpack {

static void describeParams(const schema::Node &node, raw_ostream &os) {
  auto window = [&](const schema::Window2d &w) {
    os << " window [pad " << w.pad_top() << " " << w.pad_right() << " "
       << w.pad_bottom() << " " << w.pad_left() << ", kernel "
       << w.kernel_height() << "x" << w.kernel_width() << ", stride "
       << w.stride_height() << "x" << w.stride_width() << ", dilation "
       << w.dilation_height() << "x" << w.dilation_width() << "]";
  };
  switch (node.params_type()) {
  case schema::NodeParams::ConvolutionParams: {
    const auto *p = node.params_as_ConvolutionParams();
    window(*p->window());
    os << " groups " << p->groups() << " (" << p->group_input_channels()
       << " -> " << p->group_output_channels() << " channels)";
    break;
  }
  case schema::NodeParams::DepthwiseConvolutionParams: {
    const auto *p = node.params_as_DepthwiseConvolutionParams();
    window(*p->window());
    os << " multiplier " << p->depth_multiplier() << " channels "
       << p->input_channels();
    break;
  }
  case schema::NodeParams::PoolingParams:
    window(*node.params_as_PoolingParams()->window());
    break;
  case schema::NodeParams::PadParams: {
    const auto *p = node.params_as_PadParams();
    os << " pre [";
    llvm::interleaveComma(*p->pre(), os);
    os << "] post [";
    llvm::interleaveComma(*p->post(), os);
    os << "] value " << llvm::format("%g", p->value());
    break;
  }
  case schema::NodeParams::ReshapeParams: {
    const auto *p = node.params_as_ReshapeParams();
    os << " shape [";
    llvm::interleave(*p->shape(), os, "x");
    os << "]";
    if (p->dynamic_dim() >= 0)
      os << " dynamic dim " << p->dynamic_dim();
    break;
  }
  case schema::NodeParams::ScalarParams:
    os << " value "
       << llvm::format("%g", node.params_as_ScalarParams()->value());
    break;
  case schema::NodeParams::ConcatenateParams:
    os << " axis " << node.params_as_ConcatenateParams()->axis();
    break;
  case schema::NodeParams::NONE:
    break;
  }
}

/// The blob inside \p bytes, or what is wrong with them.
static const schema::Blob *openDescribedBlob(ArrayRef<uint8_t> bytes,
                                             runtime::FramedBlob &framed,
                                             std::string &problem) {
  problem = runtime::openBlob<schema::VerifyBlobBuffer>(
      {{bytes.data(), bytes.size()}, {}}, kBlobMagic, kBlobVersion, framed);
  return problem.empty() ? schema::GetBlob(framed.flatbuffer) : nullptr;
}

std::string describeLoadChoices(ArrayRef<uint8_t> bytes) {
  runtime::FramedBlob framed;
  std::string problem;
  const schema::Blob *blob = openDescribedBlob(bytes, framed, problem);
  if (!blob || !validateBlob(*blob).empty())
    return {};
  std::vector<Dims> dims;
  for (const schema::Tensor *tensor : *blob->tensors())
    dims.emplace_back(tensor->dims()->begin(), tensor->dims()->end());
  int candidates = 0, moved = 0, silus = 0;
  for (uint32_t n = 0; n < blob->nodes()->size(); ++n) {
    const schema::Node *node = blob->nodes()->Get(n);
    bool floatGemm = (node->kind() == schema::NodeKind::Convolution2d ||
                      node->kind() == schema::NodeKind::FullyConnected) &&
                     blob->tensors()->Get(node->inputs()->Get(0))->datatype() ==
                         schema::Datatype::Fp32;
    candidates += floatGemm;
    moved += floatGemm && gemmGeometry(*blob, *node, dims).has_value();
    silus += isSiluPair(*blob, dims, n);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (moved)
    os << moved << " of " << candidates
       << " f32 convolutions and linear layers run on etch's GEMM kernels "
          "where the CPU's widest ISA is AVX2, on XNNPACK's elsewhere (chosen "
          "at load; the others have non-constant weights, fewer than "
       << runtime::optimized::kTileRows
       << " output rows or a reduction shallower than " << kMinGemmDepth << ")";
  if (moved && silus)
    os << "; ";
  if (silus)
    os << silus << (silus == 1 ? " SiLU runs" : " SiLUs run")
       << " as one pass of etch's silu where the CPU has AVX2 or AVX-512, as "
          "XNNPACK's sigmoid and multiply elsewhere";
  return text;
}

std::string describeBlob(ArrayRef<uint8_t> bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  runtime::FramedBlob framed;
  std::string problem;
  const schema::Blob *blob = openDescribedBlob(bytes, framed, problem);
  if (!blob)
    return "xnnpack: " + problem + "\n";
  os << "xnnpack blob v" << blob->version() << ": " << blob->tensors()->size()
     << " tensors, " << blob->nodes()->size() << " nodes, "
     << blob->input_count() << " inputs, " << blob->output_count()
     << " outputs, " << framed.constantsSize << " constant bytes\n";
  for (auto [index, tensor] : llvm::enumerate(*blob->tensors())) {
    os << "  tensor " << index << " [";
    llvm::interleave(*tensor->dims(), os, "x");
    os << "]";
    if (tensor->data_size())
      os << " constant " << tensor->data_size() << " bytes";
    if (tensor->input() >= 0)
      os << " input " << tensor->input();
    if (tensor->output() >= 0)
      os << " output " << tensor->output();
    if (tensor->nchw())
      os << " nchw";
    if (tensor->datatype() != schema::Datatype::Fp32)
      os << " " << schema::EnumNameDatatype(tensor->datatype());
    if (tensor->datatype() == schema::Datatype::Qint8 ||
        tensor->datatype() == schema::Datatype::Qint32)
      os << " scale " << llvm::format("%g", tensor->scale()) << " zero point "
         << tensor->zero_point();
    if (tensor->channel_scales())
      os << " " << tensor->channel_scales()->size() << " scales on dim "
         << tensor->channel_dim();
    os << "\n";
  }
  for (const schema::Node *node : *blob->nodes()) {
    os << "  " << schema::EnumNameNodeKind(node->kind()) << " (";
    llvm::interleaveComma(*node->inputs(), os, [&](uint32_t id) {
      if (id == kAbsentTensor)
        os << "-";
      else
        os << id;
    });
    os << ") -> (";
    llvm::interleaveComma(*node->outputs(), os);
    os << ")";
    describeParams(*node, os);
    if (node->output_min() != -kInf || node->output_max() != kInf)
      os << " range [" << llvm::format("%g", node->output_min()) << ", "
         << llvm::format("%g", node->output_max()) << "]";
    os << "\n";
  }
  return text;
}

} // namespace etch::xnnpack
