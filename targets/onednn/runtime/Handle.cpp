//===- Handle.cpp - Shared helpers of the oneDNN backend ------------------===//
#include "Handle.h"

namespace etch::onednn::backend {

Error fail(const char *what) { return runtime::invalidBlob("onednn", what); }

dnnl_alg_kind_t eltwiseAlgorithm(Eltwise eltwise) {
  switch (eltwise) {
  case Eltwise::Relu:
    return dnnl_eltwise_relu;
  case Eltwise::Clip:
    return dnnl_eltwise_clip;
  case Eltwise::Hardswish:
    return dnnl_eltwise_hardswish;
  case Eltwise::Logistic:
    return dnnl_eltwise_logistic;
  case Eltwise::Tanh:
    return dnnl_eltwise_tanh;
  case Eltwise::GeluErf:
    return dnnl_eltwise_gelu_erf;
  case Eltwise::GeluTanh:
    return dnnl_eltwise_gelu_tanh;
  case Eltwise::Swish:
    return dnnl_eltwise_swish;
  case Eltwise::Elu:
    return dnnl_eltwise_elu;
  case Eltwise::Abs:
    return dnnl_eltwise_abs;
  case Eltwise::Sqrt:
    return dnnl_eltwise_sqrt;
  case Eltwise::Exp:
    return dnnl_eltwise_exp;
  case Eltwise::Log:
    return dnnl_eltwise_log;
  case Eltwise::Linear:
    return dnnl_eltwise_linear;
  case Eltwise::Round:
    return dnnl_eltwise_round;
  }
  return dnnl_alg_kind_undef;
}

dnnl_alg_kind_t binaryAlgorithm(Binary binary) {
  switch (binary) {
  case Binary::Add:
    return dnnl_binary_add;
  case Binary::Sub:
    return dnnl_binary_sub;
  case Binary::Mul:
    return dnnl_binary_mul;
  case Binary::Div:
    return dnnl_binary_div;
  case Binary::Max:
    return dnnl_binary_max;
  case Binary::Min:
    return dnnl_binary_min;
  }
  return dnnl_alg_kind_undef;
}

int64_t numel(const Dims &dims) {
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= dim;
  return count;
}

dnnl_data_type_t dnnlType(DataType type) {
  return type == DataType::S8   ? dnnl_s8
         : type == DataType::U8 ? dnnl_u8
                                : dnnl_f32;
}

size_t elementBytes(DataType type) { return type == DataType::F32 ? 4 : 1; }

runtime::ScalarType scalarType(DataType type) {
  return type == DataType::S8   ? runtime::ScalarType::Int8
         : type == DataType::U8 ? runtime::ScalarType::UInt8
                                : runtime::ScalarType::Float32;
}

bool describe(const Dims &dims, Layout layout, dnnl_memory_desc_t &md,
              dnnl_data_type_t type) {
  static constexpr dnnl_format_tag_t kPlain[] = {
      dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde, dnnl_abcdef};
  if (dims.empty() || dims.size() > static_cast<size_t>(kMaxRank) ||
      (layout == Layout::ChannelsLast && dims.size() != 4))
    return false;
  dnnl_format_tag_t tag =
      layout == Layout::ChannelsLast ? dnnl_acdb : kPlain[dims.size() - 1];
  return dnnl_memory_desc_init_by_tag(&md, static_cast<int>(dims.size()),
                                      dims.data(), type, tag) == dnnl_success;
}

bool sameBytesEitherWay(const Dims &dims) {
  return dims.size() != 4 || (dims[2] == 1 && dims[3] == 1);
}

} // namespace etch::onednn::backend
