// Result<T>: a value or an Error, for code built without exceptions.
#pragma once

#include "runtime/core/Error.h"

#include <new>
#include <type_traits>
#include <utility>

namespace etch::runtime {

template <typename T> class Result {
public:
  /*implicit*/ Result(T value) : hasValue_(true) {
    new (&storage_) T(std::move(value));
  }
  /*implicit*/ Result(Error error) : error_(error), hasValue_(false) {
    // An Ok error carries no value: treat it as an internal bug, not success.
    if (error_ == Error::Ok)
      error_ = Error::Internal;
  }
  Result(Result &&other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : error_(other.error_), hasValue_(other.hasValue_) {
    if (hasValue_)
      new (&storage_) T(std::move(*other.ptr()));
  }
  Result(const Result &) = delete;
  Result &operator=(const Result &) = delete;
  Result &operator=(Result &&) = delete;
  ~Result() {
    if (hasValue_)
      ptr()->~T();
  }

  bool ok() const { return hasValue_; }
  Error error() const { return hasValue_ ? Error::Ok : error_; }

  T &get() { return *ptr(); }
  const T &get() const { return *ptr(); }
  T &operator*() { return *ptr(); }
  const T &operator*() const { return *ptr(); }
  T *operator->() { return ptr(); }
  const T *operator->() const { return ptr(); }

private:
  T *ptr() { return std::launder(reinterpret_cast<T *>(&storage_)); }
  const T *ptr() const {
    return std::launder(reinterpret_cast<const T *>(&storage_));
  }

  std::aligned_storage_t<sizeof(T), alignof(T)> storage_;
  Error error_ = Error::Ok;
  bool hasValue_;
};

} // namespace etch::runtime

/// Evaluates \p expr (an Error); returns it from the enclosing function when
/// it is not Ok.
#define ET_CHECK_OK(expr)                                                      \
  do {                                                                         \
    ::etch::runtime::Error etErrorTmp_ = (expr);                               \
    if (etErrorTmp_ != ::etch::runtime::Error::Ok)                             \
      return etErrorTmp_;                                                      \
  } while (0)
