// A non-owning view of a contiguous array (std::span is C++20).
#pragma once

#include <cstddef>

namespace etch::runtime {

template <typename T> class Span {
public:
  constexpr Span() = default;
  constexpr Span(T *data, size_t size) : data_(data), size_(size) {}
  template <size_t N> constexpr Span(T (&array)[N]) : data_(array), size_(N) {}

  constexpr T *data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T &operator[](size_t i) const { return data_[i]; }
  constexpr T *begin() const { return data_; }
  constexpr T *end() const { return data_ + size_; }

  /// The elements [offset, offset + count); callers check bounds first.
  constexpr Span subspan(size_t offset, size_t count) const {
    return Span(data_ + offset, count);
  }

private:
  T *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace etch::runtime
