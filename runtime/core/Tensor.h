// A non-owning view of a contiguous (row-major) tensor.
#pragma once

#include "runtime/core/ScalarType.h"

#include <cstddef>
#include <cstdint>

namespace etch::runtime {

inline constexpr int kMaxRank = 8;

/// Affine quantization of an integer tensor: real = (q - zeroPoint) * scale,
/// per tensor (axis < 0: one entry) or per index along \p axis. Quantizing
/// clamps to [qmin, qmax]. Points into the loaded program.
struct QuantParams {
  const double *scales = nullptr;
  const int64_t *zeroPoints = nullptr;
  int axis = -1;
  int64_t qmin = 0;
  int64_t qmax = 0;
};

class TensorView {
public:
  TensorView() = default;

  ScalarType scalarType() const { return type_; }
  int rank() const { return rank_; }
  int64_t size(int dim) const { return sizes_[dim]; }
  const int64_t *sizes() const { return sizes_; }
  /// Row-major stride (in elements) of dimension \p dim.
  int64_t stride(int dim) const { return strides_[dim]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const {
    return static_cast<size_t>(numel_) * elementSize(type_);
  }

  void *data() const { return data_; }
  template <typename T> T *data() const { return static_cast<T *>(data_); }
  void setData(void *data) { data_ = data; }

  /// Quantization parameters of a quantized tensor, else null.
  const QuantParams *quant() const { return quant_; }
  void setQuant(const QuantParams *quant) { quant_ = quant; }

  /// Sets type and shape; false if the rank exceeds kMaxRank, a size is
  /// negative or the element count overflows. The shape's bytes become the
  /// capacity.
  bool reset(ScalarType type, const int64_t *sizes, int rank);

  /// Bytes the storage holds: a resized shape must fit (the memory plan is
  /// made for each tensor's upper bounds).
  size_t capacity() const { return capacity_; }
  /// Changes the shape within the capacity (dynamic shapes); false, with
  /// the shape unchanged, when it does not fit or the rank differs.
  bool resize(const int64_t *sizes, int rank);

private:
  ScalarType type_ = ScalarType::Float32;
  int rank_ = 0;
  int64_t sizes_[kMaxRank] = {};
  int64_t strides_[kMaxRank] = {};
  int64_t numel_ = 1;
  size_t capacity_ = 0;
  void *data_ = nullptr;
  const QuantParams *quant_ = nullptr;
};

} // namespace etch::runtime
