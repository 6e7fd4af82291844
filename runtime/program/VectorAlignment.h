// flatbuffers 2.0.8's verifier checks a vector's length field but not that
// its 8-byte elements are 8-byte aligned; reading them misaligned is
// undefined behaviour (and a fault on strict-alignment CPUs). Every loader of
// a flatbuffer with 8-byte vectors checks them with this after verifying.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>

namespace etch::runtime {

/// Builders do not align empty vectors (nothing is read from them).
template <typename T>
bool hasAlignedElements(const flatbuffers::Vector<T> *vector) {
  return !vector || vector->size() == 0 ||
         reinterpret_cast<uintptr_t>(vector->data()) % alignof(T) == 0;
}

} // namespace etch::runtime
