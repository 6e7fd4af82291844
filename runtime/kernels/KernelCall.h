// What a kernel sees: its tensors and named attributes, resolved from the
// program at load time. Kernels validate a call once (at load) and then run
// it any number of times without checks or allocation.
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Result.h"
#include "runtime/core/Span.h"
#include "runtime/core/Tensor.h"

#include <cstdint>
#include <cstring>

namespace etch::runtime {

/// In a size-list attribute (view, expand, full), an entry given at run time
/// by the call's next size input (a 0-d int64 tensor): sizes of dynamic
/// shapes. The compiler writes MLIR's dynamic-dimension marker, the same
/// value.
inline constexpr int64_t kSizeFromInput = INT64_MIN;

/// An op attribute (non-tensor kernel argument).
struct AttributeValue {
  enum class Kind : uint8_t {
    None,
    Int,
    Double,
    Bool,
    IntList,
    DoubleList,
    BoolList,
    String
  };
  Kind kind = Kind::None;
  int64_t intValue = 0;
  double doubleValue = 0;
  bool boolValue = false;
  Span<const int64_t> ints;
  Span<const double> doubles;
  Span<const uint8_t> bools;
  const char *string = nullptr;
};

struct NamedAttribute {
  const char *name;
  AttributeValue value;
};

struct KernelCall {
  Span<TensorView *> inputs; // null entries: absent optional tensors
  Span<TensorView *> outputs;
  Span<const NamedAttribute> attributes;
  const char *opName = "";
  uint32_t instruction = 0; // for messages
  /// Set while the method propagates new input shapes: validate then sets
  /// each output's shape from the inputs (within its capacity) instead of
  /// checking it, so validate is also the kernel's shape function.
  bool resizeOutputs = false;

  const AttributeValue *find(const char *name) const {
    for (const NamedAttribute &attribute : attributes)
      if (std::strcmp(attribute.name, name) == 0)
        return &attribute.value;
    return nullptr;
  }
  int64_t intAttr(const char *name, int64_t fallback) const {
    const AttributeValue *value = find(name);
    return value && value->kind == AttributeValue::Kind::Int ? value->intValue
                                                             : fallback;
  }
  double doubleAttr(const char *name, double fallback) const {
    const AttributeValue *value = find(name);
    if (!value)
      return fallback;
    if (value->kind == AttributeValue::Kind::Double)
      return value->doubleValue;
    if (value->kind == AttributeValue::Kind::Int)
      return static_cast<double>(value->intValue);
    return fallback;
  }
  bool boolAttr(const char *name, bool fallback) const {
    const AttributeValue *value = find(name);
    return value && value->kind == AttributeValue::Kind::Bool ? value->boolValue
                                                              : fallback;
  }
  Span<const int64_t> intsAttr(const char *name) const {
    const AttributeValue *value = find(name);
    return value && value->kind == AttributeValue::Kind::IntList
               ? value->ints
               : Span<const int64_t>();
  }
  const char *stringAttr(const char *name, const char *fallback) const {
    const AttributeValue *value = find(name);
    return value && value->kind == AttributeValue::Kind::String ? value->string
                                                                : fallback;
  }
  TensorView *input(size_t index) const {
    return index < inputs.size() ? inputs[index] : nullptr;
  }
};

using KernelValidateFn = Error (*)(const KernelCall &call);
using KernelRunFn = void (*)(const KernelCall &call);

struct KernelEntry {
  const char *name;          // the Edge op name, e.g. "edge.convolution"
  KernelValidateFn validate; // at load: shapes, types, attributes
  KernelRunFn run;           // at execute: trusted, no allocation
  // run() sets its outputs' shapes from the values it reads (nonzero),
  // within the planned upper bound: the calls after it take the new shapes.
  bool shapeFromData = false;
};

/// The kernel registered for \p name, or null: the portable kernel's
/// validation with the optimized run function where one exists
/// (runtime/kernels/Registry.cpp).
const KernelEntry *findKernel(const char *name);
/// Every registered kernel (for tools and tests).
Span<const KernelEntry> registeredKernels();
/// Whether this build keeps only some kernels (ETCH_SELECT_OPERATORS).
bool selectiveKernels();

/// Starts what the kernels need before they run (the optimized kernels'
/// threads, kernelThreadCount(\p threads) of them); loading a method calls
/// it with its LoadOptions::threads, so execute never does.
void prepareKernels(size_t threads);

/// Logs "instruction N (op): message" and returns \p error; used by
/// validate functions so every load failure says where and why.
Error kernelError(const KernelCall &call, Error error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

} // namespace etch::runtime
