// Helpers shared by the portable kernels' validate and run functions.
#pragma once

#include "runtime/core/WindowExtent.h"
#include "runtime/kernels/KernelCall.h"

#include <cstdint>

namespace etch::runtime::portable {

/// Checks input/output counts (maxInputs counts optional trailing inputs).
Error checkArity(const KernelCall &call, size_t minInputs, size_t maxInputs,
                 size_t outputs);
/// Checks that \p tensor is present and of \p type.
Error checkType(const KernelCall &call, const TensorView *tensor,
                const char *what, ScalarType type);
/// Checks that \p tensor has exactly the sizes \p sizes.
Error checkShape(const KernelCall &call, const TensorView *tensor,
                 const char *what, const int64_t *sizes, int rank);
/// Checks that two tensors have the same type and sizes.
Error checkSameShape(const KernelCall &call, const TensorView *a,
                     const TensorView *b, const char *what);
/// Normalizes a possibly negative dim; -1 when out of range.
int64_t normalizeDim(int64_t dim, int64_t rank);

/// NumPy broadcasting of \p in to \p out: fills per-dim strides (0 where
/// broadcast) aligned to out's rank. False when not broadcastable.
bool broadcastStrides(const TensorView &in, const TensorView &out,
                      int64_t *strides);

using runtime::poolingPaddingFits;
using runtime::transposedWindowExtent;
using runtime::windowExtent;

} // namespace etch::runtime::portable
