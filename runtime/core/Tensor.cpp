#include "runtime/core/Tensor.h"

namespace etch::runtime {

size_t elementSize(ScalarType type) {
  switch (type) {
  case ScalarType::Float32:
  case ScalarType::Int32:
  case ScalarType::UInt32:
    return 4;
  case ScalarType::Float16:
  case ScalarType::BFloat16:
  case ScalarType::Int16:
  case ScalarType::UInt16:
    return 2;
  case ScalarType::Float64:
  case ScalarType::Int64:
  case ScalarType::UInt64:
    return 8;
  case ScalarType::Int8:
  case ScalarType::UInt8:
  case ScalarType::Bool:
    return 1;
  }
  return 1;
}

const char *scalarTypeName(ScalarType type) {
  switch (type) {
  case ScalarType::Float32:
    return "float32";
  case ScalarType::Float16:
    return "float16";
  case ScalarType::Float64:
    return "float64";
  case ScalarType::BFloat16:
    return "bfloat16";
  case ScalarType::Int8:
    return "int8";
  case ScalarType::UInt8:
    return "uint8";
  case ScalarType::Int16:
    return "int16";
  case ScalarType::Int32:
    return "int32";
  case ScalarType::Int64:
    return "int64";
  case ScalarType::Bool:
    return "bool";
  case ScalarType::UInt16:
    return "uint16";
  case ScalarType::UInt32:
    return "uint32";
  case ScalarType::UInt64:
    return "uint64";
  }
  return "unknown";
}

bool TensorView::reset(ScalarType type, const int64_t *sizes, int rank) {
  if (rank < 0 || rank > kMaxRank)
    return false;
  type_ = type;
  rank_ = rank;
  numel_ = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (sizes[d] < 0)
      return false;
    sizes_[d] = sizes[d];
    strides_[d] = numel_;
    if (__builtin_mul_overflow(numel_, sizes[d], &numel_))
      return false;
  }
  // nbytes() must be representable too.
  if (static_cast<uint64_t>(numel_) > SIZE_MAX / 8)
    return false;
  capacity_ = nbytes();
  return true;
}

bool TensorView::resize(const int64_t *sizes, int rank) {
  if (rank != rank_)
    return false;
  int64_t numel = 1;
  for (int d = 0; d < rank; ++d)
    if (sizes[d] < 0 || __builtin_mul_overflow(numel, sizes[d], &numel))
      return false;
  if (static_cast<uint64_t>(numel) > capacity_ / elementSize(type_))
    return false;
  numel_ = numel;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    sizes_[d] = sizes[d];
    strides_[d] = stride;
    stride *= sizes[d];
  }
  return true;
}

} // namespace etch::runtime
