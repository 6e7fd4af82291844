#include "runtime/core/Tensor.h"

namespace etch::runtime {

size_t elementSize(ScalarType type) {
  switch (type) {
#define ETCH_SCALAR_TYPE_SIZE(name, code, size, text, cName)                   \
  case ScalarType::name:                                                       \
    return size;
    ETCH_FOR_EACH_SCALAR_TYPE(ETCH_SCALAR_TYPE_SIZE)
#undef ETCH_SCALAR_TYPE_SIZE
  }
  return 1;
}

const char *scalarTypeName(ScalarType type) {
  switch (type) {
#define ETCH_SCALAR_TYPE_NAME(name, code, size, text, cName)                   \
  case ScalarType::name:                                                       \
    return text;
    ETCH_FOR_EACH_SCALAR_TYPE(ETCH_SCALAR_TYPE_NAME)
#undef ETCH_SCALAR_TYPE_NAME
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
