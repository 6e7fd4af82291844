#include "BlobValidator.h"

#include "targets/xnnpack/schema/BlobFormat.h"
#include "targets/xnnpack/schema/QuantizationLimits.h"

#include "runtime/platform/Platform.h"
#include "runtime/program/VectorAlignment.h"

#include <vector>

namespace etch::xnnpack {
namespace {


/// The output extent, or -1 when the window does not fit or its arithmetic
/// would overflow (every operand comes from the blob).
int64_t window(uint64_t in, uint64_t padBefore, uint64_t padAfter,
               uint64_t kernel, uint64_t stride, uint64_t dilation) {
  uint64_t padded, reach;
  if (!kernel || !stride || __builtin_add_overflow(in, padBefore, &padded) ||
      __builtin_add_overflow(padded, padAfter, &padded) ||
      __builtin_mul_overflow(dilation, kernel - 1, &reach) ||
      reach >= padded || padded > kMaxElements)
    return -1;
  return static_cast<int64_t>((padded - reach - 1) / stride + 1);
}

std::string nodeError(size_t index, const Node &node, const char *what) {
  return "node " + std::to_string(index) + " (" +
         EnumNameNodeKind(node.kind()) + "): " + what;
}

/// The broadcast of \p a and \p b (numpy rules); false when they do not.
bool broadcastShape(const Dims &a, const Dims &b, Dims &out) {
  out.assign(std::max(a.size(), b.size()), 1);
  for (size_t d = 0; d < out.size(); ++d) {
    size_t fromEnd = out.size() - d;
    uint64_t x = fromEnd <= a.size() ? a[a.size() - fromEnd] : 1;
    uint64_t y = fromEnd <= b.size() ? b[b.size() - fromEnd] : 1;
    if (x != y && x != 1 && y != 1)
      return false;
    out[d] = x == 1 ? y : x;
  }
  return true;
}

bool positiveWindow(const Window2d &w) {
  return w.kernel_height() && w.kernel_width() && w.stride_height() &&
         w.stride_width() && w.dilation_height() && w.dilation_width();
}

bool isPositiveFinite(float scale) {
  return scale > 0 && scale <= 3.4e38f;
}

} // namespace

std::string tensorTypeProblem(size_t index, const Tensor &tensor) {
  std::string where = "tensor " + std::to_string(index) + ": ";
  switch (tensor.datatype()) {
  case Datatype::Fp32:
    return "";
  case Datatype::Qint8:
  case Datatype::Qint32: {
    bool narrow = tensor.datatype() == Datatype::Qint8;
    if (!isPositiveFinite(tensor.scale()) ||
        (narrow && (tensor.zero_point() < -128 || tensor.zero_point() > 127)) ||
        (!narrow && tensor.zero_point() != 0))
      return where + "quantization scale or zero point out of range";
    return "";
  }
  case Datatype::Qcint8:
  case Datatype::Qcint32: {
    const auto *scales = tensor.channel_scales();
    size_t rank = tensor.dims()->size();
    if (!scales || tensor.channel_dim() >= rank ||
        scales->size() != tensor.dims()->Get(tensor.channel_dim()))
      return where + "needs one channel scale per index of its channel dim";
    for (float scale : *scales)
      if (!isPositiveFinite(scale))
        return where + "channel scale out of range";
    return "";
  }
  }
  return where + "unknown datatype";
}

std::string nodeOutputDims(size_t n, const Node &node,
                           const std::vector<const Dims *> &in, Dims &out) {
  if (!hasItsParams(node))
    return nodeError(n, node, "carries the wrong kind of parameters");
  auto need = [&](size_t count) {
    if (in.size() < count)
      return false;
    for (size_t i = 0; i < count; ++i)
      if (!in[i])
        return false;
    return true;
  };
  switch (node.kind()) {
  case NodeKind::Convolution2d:
  case NodeKind::DepthwiseConvolution2d: {
    bool depthwise = node.kind() == NodeKind::DepthwiseConvolution2d;
    if (!need(2) || in.size() != 3 || in[0]->size() != 4 || in[1]->size() != 4)
      return nodeError(n, node, "needs rank-4 input, filter and output");
    const Window2d &w = depthwise
                            ? *node.params_as_DepthwiseConvolutionParams()->window()
                            : *node.params_as_ConvolutionParams()->window();
    if (!positiveWindow(w))
      return nodeError(n, node, "kernel, stride and dilation must be positive");
    const Dims &x = *in[0], &f = *in[1];
    uint64_t kh = w.kernel_height(), kw = w.kernel_width();
    uint64_t channels, outChannels;
    if (depthwise) {
      const auto *params = node.params_as_DepthwiseConvolutionParams();
      channels = params->input_channels();
      outChannels = channels * params->depth_multiplier();
      if (f != Dims{1, kh, kw, outChannels} || x[3] != channels ||
          params->depth_multiplier() == 0)
        return nodeError(n, node, "filter or channels do not match");
    } else {
      const auto *params = node.params_as_ConvolutionParams();
      uint64_t groups = params->groups();
      uint64_t groupIn = params->group_input_channels();
      channels = groups * groupIn;
      outChannels = groups * params->group_output_channels();
      if (!groups || f != Dims{outChannels, kh, kw, groupIn} ||
          x[3] != channels)
        return nodeError(n, node, "filter or channels do not match");
    }
    if (in[2] && *in[2] != Dims{outChannels})
      return nodeError(n, node, "bias does not match the output channels");
    int64_t oh = window(x[1], w.pad_top(), w.pad_bottom(), kh,
                        w.stride_height(), w.dilation_height());
    int64_t ow = window(x[2], w.pad_left(), w.pad_right(), kw,
                        w.stride_width(), w.dilation_width());
    if (oh <= 0 || ow <= 0)
      return nodeError(n, node, "the window does not fit the input");
    out = {x[0], uint64_t(oh), uint64_t(ow), outChannels};
    return "";
  }
  case NodeKind::FullyConnected: {
    if (!need(2) || in.size() != 3 || in[1]->size() != 2 || in[0]->empty())
      return nodeError(n, node, "needs input, a rank-2 filter and an output");
    uint64_t k = (*in[1])[1], outFeatures = (*in[1])[0];
    if (!k || in[0]->back() != k)
      return nodeError(n, node, "feature counts do not match");
    if (in[2] && *in[2] != Dims{outFeatures})
      return nodeError(n, node, "bias does not match the output features");
    out = *in[0];
    out.back() = outFeatures;
    return "";
  }
  case NodeKind::Add:
  case NodeKind::Subtract:
  case NodeKind::Multiply:
  case NodeKind::Divide:
  case NodeKind::Maximum:
  case NodeKind::Minimum:
    if (!need(2) || in.size() != 2 || !broadcastShape(*in[0], *in[1], out))
      return nodeError(n, node, "inputs do not broadcast");
    return "";
  case NodeKind::LeakyRelu:
  case NodeKind::Elu:
  case NodeKind::Abs:
  case NodeKind::Negate:
  case NodeKind::SquareRoot:
  case NodeKind::Floor:
  case NodeKind::Ceiling:
  case NodeKind::BankersRounding:
  case NodeKind::Clamp:
  case NodeKind::Convert:
  case NodeKind::Hardswish:
  case NodeKind::Sigmoid:
  case NodeKind::Softmax:
    if (!need(1) || in.size() != 1 || in[0]->empty())
      return nodeError(n, node, "needs one input of rank >= 1");
    out = *in[0];
    return "";
  case NodeKind::MaxPooling2d:
  case NodeKind::AveragePooling2d: {
    bool max = node.kind() == NodeKind::MaxPooling2d;
    if (!need(1) || in.size() != 1 || in[0]->size() != 4)
      return nodeError(n, node, "needs rank-4 input and output");
    const Window2d &w = *node.params_as_PoolingParams()->window();
    if (!positiveWindow(w) ||
        (!max && (w.dilation_height() != 1 || w.dilation_width() != 1)))
      return nodeError(n, node,
                       "kernel, stride and dilation must be positive (average "
                       "pooling: dilation 1)");
    const Dims &x = *in[0];
    int64_t oh = window(x[1], w.pad_top(), w.pad_bottom(), w.kernel_height(),
                        w.stride_height(), w.dilation_height());
    int64_t ow = window(x[2], w.pad_left(), w.pad_right(), w.kernel_width(),
                        w.stride_width(), w.dilation_width());
    if (oh <= 0 || ow <= 0)
      return nodeError(n, node, "the window does not fit the input");
    out = {x[0], uint64_t(oh), uint64_t(ow), x[3]};
    return "";
  }
  case NodeKind::GlobalAveragePooling2d:
    if (!need(1) || in.size() != 1 || in[0]->size() != 4)
      return nodeError(n, node, "needs [N,H,W,C] input");
    out = {(*in[0])[0], 1, 1, (*in[0])[3]};
    return "";
  case NodeKind::ConstantPad: {
    const auto *params = node.params_as_PadParams();
    size_t rank = params->pre()->size();
    if (!need(1) || in.size() != 1 || in[0]->size() != rank ||
        params->post()->size() != rank || rank == 0)
      return nodeError(n, node, "needs one pre and one post padding per dim");
    out.resize(rank);
    for (size_t d = 0; d < rank; ++d)
      out[d] = (*in[0])[d] + params->pre()->Get(d) + params->post()->Get(d);
    if (numel(out) > kMaxElements)
      return nodeError(n, node, "the padded tensor is too large");
    return "";
  }
  case NodeKind::Concatenate: {
    uint32_t axis = node.params_as_ConcatenateParams()->axis();
    if (!need(in.size()) || in.empty() || axis >= in[0]->size())
      return nodeError(n, node, "needs inputs with the concatenation axis");
    out = *in[0];
    out[axis] = 0;
    for (const Dims *input : in) {
      Dims rest = *input;
      if (rest.size() != out.size())
        return nodeError(n, node, "inputs differ in rank");
      out[axis] += rest[axis];
      rest[axis] = out[axis];
      if (rest != out || out[axis] > kMaxElements)
        return nodeError(n, node,
                         "inputs differ in a dim other than the axis");
    }
    return "";
  }
  case NodeKind::StaticReshape: {
    const auto *params = node.params_as_ReshapeParams();
    if (!need(1) || in.size() != 1 ||
        !runtime::hasAlignedElements(params->shape()))
      return nodeError(n, node, "needs one input and an aligned shape");
    out.assign(params->shape()->begin(), params->shape()->end());
    // One dim may follow from the element count (a dynamic dim).
    int dynamic = params->dynamic_dim();
    if (dynamic >= 0) {
      if (static_cast<size_t>(dynamic) >= out.size())
        return nodeError(n, node, "dynamic dim is outside the shape");
      out[dynamic] = 1;
      uint64_t rest = numel(out);
      if (!rest || rest > kMaxElements || numel(*in[0]) % rest)
        return nodeError(n, node, "shape does not hold the input's elements");
      out[dynamic] = numel(*in[0]) / rest;
    }
    if (numel(out) != numel(*in[0]))
      return nodeError(n, node, "shape does not hold the input's elements");
    return "";
  }
  }
  return nodeError(n, node, "unknown node kind");
}

std::string nodeScalesProblem(size_t n, const Node &node, const Blob &blob,
                              const std::vector<Dims> &dims) {
  const auto &tensors = *blob.tensors();
  const auto &inputs = *node.inputs();
  auto input = [&](size_t i) -> const Tensor * {
    return i < inputs.size() && inputs.Get(i) != kAbsentTensor
               ? tensors.Get(inputs.Get(i))
               : nullptr;
  };
  const Tensor *x = input(0), *y = input(1);
  const Tensor &out = *tensors.Get(node.outputs()->Get(0));
  if (!x || x->datatype() != Datatype::Qint8 ||
      out.datatype() != Datatype::Qint8)
    return "";
  switch (node.kind()) {
  case NodeKind::Convolution2d:
  case NodeKind::DepthwiseConvolution2d:
  case NodeKind::FullyConnected: {
    bool supported = true;
    if (y && y->datatype() == Datatype::Qint8)
      supported = convolutionScalesSupported(x->scale(), y->scale(), out.scale());
    if (y && y->datatype() == Datatype::Qcint8)
      for (float scale : *y->channel_scales())
        supported &= convolutionScalesSupported(x->scale(), scale, out.scale());
    return supported ? ""
                     : nodeError(n, node,
                                 "input * filter / output scale is outside "
                                 "XNNPACK's [2^-32, 256)");
  }
  case NodeKind::Add:
  case NodeKind::Subtract:
    return !y || addScalesSupported(x->scale(), y->scale(), out.scale())
               ? ""
               : nodeError(n, node,
                           "an input's scale over the output's is outside "
                           "XNNPACK's [2^-10, 2^8)");
  case NodeKind::Multiply:
    return !y || multiplyScalesSupported(x->scale(), y->scale(), out.scale())
               ? ""
               : nodeError(n, node,
                           "the input scales' product over the output's is "
                           "outside XNNPACK's [2^-16, 2^8)");
  case NodeKind::GlobalAveragePooling2d: {
    const Dims &shape = dims[inputs.Get(0)];
    return globalAveragePoolingScalesSupported(x->scale(), out.scale(),
                                               numel({shape[1], shape[2]}))
               ? ""
               : nodeError(n, node,
                           "input over output scale outside XNNPACK's "
                           "[2^-8, 2^8), or over the pixel count below 2^-32");
  }
  default:
    return "";
  }
}

std::string validateBlob(const Blob &blob, uint64_t memoryLimit) {
  const auto &tensors = *blob.tensors();
  std::vector<Dims> dims;
  std::vector<bool> defined(tensors.size(), false);
  uint64_t internalBytes = 0;
  for (const Tensor *tensor : tensors) {
    dims.emplace_back(tensor->dims()->begin(), tensor->dims()->end());
    if (numel(dims.back()) > kMaxElements)
      return "tensor " + std::to_string(dims.size() - 1) + " is too large";
    defined[dims.size() - 1] = tensor->data_size() > 0 || tensor->input() >= 0;
    // XNNPACK allocates intermediate values itself: they count against the
    // method's memory limit like arenas do.
    if (!tensor->data_size() && tensor->input() < 0 && tensor->output() < 0)
      internalBytes += numel(dims.back()) * elementBytes(tensor->datatype());
    if (std::string problem = tensorTypeProblem(dims.size() - 1, *tensor);
        !problem.empty())
      return problem;
  }
  if (internalBytes > memoryLimit)
    return "intermediate values need " + std::to_string(internalBytes) +
           " bytes, more than the memory limit";
  const auto &nodes = *blob.nodes();
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node &node = *nodes.Get(n);
    std::vector<const Dims *> in;
    for (uint32_t index : *node.inputs()) {
      if (index == kAbsentTensor) {
        in.push_back(nullptr);
        continue;
      }
      if (!defined[index])
        return nodeError(n, node, "reads a tensor no earlier node wrote");
      in.push_back(&dims[index]);
    }
    uint32_t outIndex = node.outputs()->Get(0);
    if (defined[outIndex])
      return nodeError(n, node, "writes a tensor that already has a value");
    Dims out;
    if (std::string error = nodeOutputDims(n, node, in, out); !error.empty())
      return error;
    if (out != dims[outIndex])
      return nodeError(n, node, "output shape does not follow from the input");
    if (std::string error = nodeScalesProblem(n, node, blob, dims);
        !error.empty())
      return error;
    // The runtime concatenates by 32-bit copies.
    if (node.kind() == NodeKind::Concatenate)
      for (const auto *list : {node.inputs(), node.outputs()})
        for (uint32_t index : *list)
          if (tensors.Get(index)->datatype() != Datatype::Fp32)
            return nodeError(n, node, "concatenates other than fp32");
    defined[outIndex] = true;
  }
// XNNPACK gives a value nobody reads no memory, then asserts when the node
  // writing it is set up: every internal value must have a reader.
  std::vector<bool> read(tensors.size(), false);
  for (const Node *node : nodes)
    for (uint32_t index : *node->inputs())
      if (index != kAbsentTensor)
        read[index] = true;
  for (size_t n = 0; n < nodes.size(); ++n) {
    uint32_t outIndex = nodes.Get(n)->outputs()->Get(0);
    if (!read[outIndex] && tensors.Get(outIndex)->output() < 0)
      return nodeError(n, *nodes.Get(n), "writes a value nothing reads");
  }
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors.Get(i)->output() >= 0 &&
        (!defined[i] || tensors.Get(i)->data_size() ||
         tensors.Get(i)->input() >= 0))
      return "output tensor " + std::to_string(i) +
             " is not computed by a node";
  return "";
}

} // namespace etch::xnnpack
