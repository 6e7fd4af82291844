#include "NodeDefinitions.h"

#include "targets/xnnpack/schema/BlobFormat.h"

#include "runtime/platform/Platform.h"

namespace etch::xnnpack {
namespace {

/// What a node's xnn_define_* call reads.
struct NodeArgs {
  xnn_subgraph_t subgraph;
  const Node &node;
  const std::vector<uint32_t> &in; // the inputs' value ids
  uint32_t out;
  float lo, hi; // the output range a clamp fused into the node
  const std::vector<Dims> &dims;
};

using DefineFn = xnn_status (*)(const NodeArgs &);

struct NodeDefinition {
  NodeKind kind;
  size_t inputs;
  DefineFn define;
};

// The calls' shapes, each filled by one XNNPACK function.
template <xnn_status (*F)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t)>
xnn_status unary(const NodeArgs &a) {
  return F(a.subgraph, a.in[0], a.out, 0);
}
template <xnn_status (*F)(xnn_subgraph_t, float, float, uint32_t, uint32_t,
                          uint32_t)>
xnn_status rangedUnary(const NodeArgs &a) {
  return F(a.subgraph, a.lo, a.hi, a.in[0], a.out, 0);
}
template <xnn_status (*F)(xnn_subgraph_t, float, uint32_t, uint32_t, uint32_t)>
xnn_status scalarUnary(const NodeArgs &a) {
  return F(a.subgraph, a.node.params_as_ScalarParams()->value(), a.in[0], a.out,
           0);
}
template <xnn_status (*F)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t,
                          uint32_t)>
xnn_status binary(const NodeArgs &a) {
  return F(a.subgraph, a.in[0], a.in[1], a.out, 0);
}
template <xnn_status (*F)(xnn_subgraph_t, float, float, uint32_t, uint32_t,
                          uint32_t, uint32_t)>
xnn_status rangedBinary(const NodeArgs &a) {
  return F(a.subgraph, a.lo, a.hi, a.in[0], a.in[1], a.out, 0);
}

xnn_status convolution(const NodeArgs &a) {
  const auto *params = a.node.params_as_ConvolutionParams();
  const Window2d &w = *params->window();
  return xnn_define_convolution_2d(
      a.subgraph, w.pad_top(), w.pad_right(), w.pad_bottom(), w.pad_left(),
      w.kernel_height(), w.kernel_width(), w.stride_height(), w.stride_width(),
      w.dilation_height(), w.dilation_width(), params->groups(),
      params->group_input_channels(), params->group_output_channels(), a.lo,
      a.hi, a.in[0], a.in[1], a.in[2], a.out, 0);
}

xnn_status depthwiseConvolution(const NodeArgs &a) {
  const auto *params = a.node.params_as_DepthwiseConvolutionParams();
  const Window2d &w = *params->window();
  return xnn_define_depthwise_convolution_2d(
      a.subgraph, w.pad_top(), w.pad_right(), w.pad_bottom(), w.pad_left(),
      w.kernel_height(), w.kernel_width(), w.stride_height(), w.stride_width(),
      w.dilation_height(), w.dilation_width(), params->depth_multiplier(),
      params->input_channels(), a.lo, a.hi, a.in[0], a.in[1], a.in[2], a.out,
      0);
}

xnn_status fullyConnected(const NodeArgs &a) {
  return xnn_define_fully_connected(a.subgraph, a.lo, a.hi, a.in[0], a.in[1],
                                    a.in[2], a.out, 0);
}

xnn_status maxPooling(const NodeArgs &a) {
  const Window2d &w = *a.node.params_as_PoolingParams()->window();
  return xnn_define_max_pooling_2d(
      a.subgraph, w.pad_top(), w.pad_right(), w.pad_bottom(), w.pad_left(),
      w.kernel_height(), w.kernel_width(), w.stride_height(), w.stride_width(),
      w.dilation_height(), w.dilation_width(), a.lo, a.hi, a.in[0], a.out, 0);
}

xnn_status averagePooling(const NodeArgs &a) {
  const Window2d &w = *a.node.params_as_PoolingParams()->window();
  return xnn_define_average_pooling_2d(
      a.subgraph, w.pad_top(), w.pad_right(), w.pad_bottom(), w.pad_left(),
      w.kernel_height(), w.kernel_width(), w.stride_height(), w.stride_width(),
      a.lo, a.hi, a.in[0], a.out, 0);
}

xnn_status constantPad(const NodeArgs &a) {
  const auto *params = a.node.params_as_PadParams();
  size_t rank = params->pre()->size();
  if (rank > XNN_MAX_TENSOR_DIMS || params->post()->size() != rank)
    return xnn_status_invalid_parameter;
  std::vector<size_t> pre(params->pre()->begin(), params->pre()->end());
  std::vector<size_t> post(params->post()->begin(), params->post()->end());
  return xnn_define_static_constant_pad(a.subgraph, pre.data(), post.data(),
                                        params->value(), a.in[0], a.out, 0);
}

/// The output's dims: the node's shape with its dynamic dim resolved.
xnn_status staticReshape(const NodeArgs &a) {
  uint32_t output = a.node.outputs()->Get(0);
  if (output >= a.dims.size() || a.dims[output].size() > XNN_MAX_TENSOR_DIMS)
    return xnn_status_invalid_parameter;
  std::vector<size_t> shape(a.dims[output].begin(), a.dims[output].end());
  return xnn_define_static_reshape(a.subgraph, shape.size(), shape.data(),
                                   a.in[0], a.out, 0);
}

// Concatenate has no entry: concatenations are copies between runtimes
// (XnnpackBackend's createCopies), never a node.
constexpr NodeDefinition kNodeDefinitions[] = {
    {NodeKind::Convolution2d, 3, convolution},
    {NodeKind::DepthwiseConvolution2d, 3, depthwiseConvolution},
    {NodeKind::FullyConnected, 3, fullyConnected},
    {NodeKind::Add, 2, rangedBinary<xnn_define_add2>},
    {NodeKind::Subtract, 2, rangedBinary<xnn_define_subtract>},
    {NodeKind::Multiply, 2, rangedBinary<xnn_define_multiply2>},
    {NodeKind::Divide, 2, rangedBinary<xnn_define_divide>},
    {NodeKind::Maximum, 2, binary<xnn_define_maximum2>},
    {NodeKind::Minimum, 2, binary<xnn_define_minimum2>},
    {NodeKind::Clamp, 1, rangedUnary<xnn_define_clamp>},
    {NodeKind::GlobalAveragePooling2d, 1,
     rangedUnary<xnn_define_global_average_pooling_2d>},
    {NodeKind::Hardswish, 1, unary<xnn_define_hardswish>},
    {NodeKind::Sigmoid, 1, unary<xnn_define_sigmoid>},
    {NodeKind::Convert, 1, unary<xnn_define_convert>},
    {NodeKind::Softmax, 1, unary<xnn_define_softmax>},
    {NodeKind::Abs, 1, unary<xnn_define_abs>},
    {NodeKind::Negate, 1, unary<xnn_define_negate>},
    {NodeKind::SquareRoot, 1, unary<xnn_define_square_root>},
    {NodeKind::Floor, 1, unary<xnn_define_floor>},
    {NodeKind::Ceiling, 1, unary<xnn_define_ceiling>},
    {NodeKind::BankersRounding, 1, unary<xnn_define_bankers_rounding>},
    {NodeKind::LeakyRelu, 1, scalarUnary<xnn_define_leaky_relu>},
    {NodeKind::Elu, 1, scalarUnary<xnn_define_elu>},
    {NodeKind::MaxPooling2d, 1, maxPooling},
    {NodeKind::AveragePooling2d, 1, averagePooling},
    {NodeKind::ConstantPad, 1, constantPad},
    {NodeKind::StaticReshape, 1, staticReshape},
};

} // namespace

runtime::Error defineNode(xnn_subgraph_t subgraph, const Node &node,
                          const std::vector<uint32_t> &ids,
                          const std::vector<Dims> &dims) {
  if (!hasItsParams(node) || !node.inputs() || !node.outputs() ||
      node.outputs()->size() != 1 || node.inputs()->size() == 0)
    return fail("node has the wrong parameters, inputs or outputs");
  auto id = [&](uint32_t index, bool optional) -> uint32_t {
    if (optional && index == kAbsentTensor)
      return XNN_INVALID_VALUE_ID;
    return index < ids.size() ? ids[index] : XNN_INVALID_VALUE_ID - 1;
  };
  std::vector<uint32_t> in;
  for (uint32_t index : *node.inputs())
    in.push_back(
        id(index, in.size() == 2)); // the third input (bias) is optional
  for (uint32_t value : in)
    if (value == XNN_INVALID_VALUE_ID - 1)
      return fail("node input index out of range");
  uint32_t out = id(node.outputs()->Get(0), false);
  if (out == XNN_INVALID_VALUE_ID - 1)
    return fail("node output index out of range");
  xnn_status status = xnn_status_invalid_parameter;
  for (const NodeDefinition &definition : kNodeDefinitions)
    if (definition.kind == node.kind() && definition.inputs == in.size())
      status = definition.define(NodeArgs{
          subgraph, node, in, out, node.output_min(), node.output_max(), dims});
  if (status != xnn_status_success) {
    ET_LOG(Error, "xnnpack: cannot define node %s (status %d)",
           EnumNameNodeKind(node.kind()), static_cast<int>(status));
    return runtime::Error::DelegateInvalidBlob;
  }
  return runtime::Error::Ok;
}

} // namespace etch::xnnpack
