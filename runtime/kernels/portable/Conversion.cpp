// Comparisons (-> bool), where, dtype conversion, constant padding.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>
#include <cstring>

namespace etch::runtime::portable {
namespace {

/// Reads element \p i of a numeric tensor as double (exact for int32 and
/// for int64 values below 2^53, which covers indices and masks).
double load(const TensorView &t, int64_t i) {
  switch (t.scalarType()) {
  case ScalarType::Float32:
    return t.data<float>()[i];
  case ScalarType::Float64:
    return t.data<double>()[i];
  case ScalarType::Int64:
    return static_cast<double>(t.data<int64_t>()[i]);
  case ScalarType::Int32:
    return t.data<int32_t>()[i];
  case ScalarType::Int16:
    return t.data<int16_t>()[i];
  case ScalarType::Int8:
    return t.data<int8_t>()[i];
  case ScalarType::UInt8:
  case ScalarType::Bool:
    return t.data<uint8_t>()[i];
  default:
    return 0;
  }
}

void store(TensorView &t, int64_t i, double value) {
  switch (t.scalarType()) {
  case ScalarType::Float32:
    t.data<float>()[i] = static_cast<float>(value);
    break;
  case ScalarType::Float64:
    t.data<double>()[i] = value;
    break;
  case ScalarType::Int64:
    t.data<int64_t>()[i] = static_cast<int64_t>(std::trunc(value));
    break;
  case ScalarType::Int32:
    t.data<int32_t>()[i] = static_cast<int32_t>(std::trunc(value));
    break;
  case ScalarType::Int16:
    t.data<int16_t>()[i] = static_cast<int16_t>(std::trunc(value));
    break;
  case ScalarType::Int8:
    t.data<int8_t>()[i] = static_cast<int8_t>(std::trunc(value));
    break;
  case ScalarType::UInt8:
    t.data<uint8_t>()[i] = static_cast<uint8_t>(std::trunc(value));
    break;
  case ScalarType::Bool:
    t.data<uint8_t>()[i] = value != 0;
    break;
  default:
    break;
  }
}

bool isSupported(ScalarType type) {
  return type != ScalarType::Float16 && type != ScalarType::BFloat16;
}

/// Walks the output in row-major order with per-input broadcast offsets.
template <typename Fn>
void broadcastWalk(const TensorView &out, const TensorView *const *inputs,
                   int count, Fn fn) {
  int64_t strides[3][kMaxRank], offsets[3] = {0, 0, 0}, index[kMaxRank] = {};
  for (int k = 0; k < count; ++k)
    broadcastStrides(*inputs[k], out, strides[k]);
  for (int64_t i = 0; i < out.numel(); ++i) {
    fn(i, offsets);
    for (int d = out.rank() - 1; d >= 0; --d) {
      for (int k = 0; k < count; ++k)
        offsets[k] += strides[k][d];
      if (++index[d] < out.size(d))
        break;
      for (int k = 0; k < count; ++k)
        offsets[k] -= strides[k][d] * out.size(d);
      index[d] = 0;
    }
  }
}

Error validateBroadcastInputs(const KernelCall &call, size_t first) {
  int64_t strides[kMaxRank];
  for (size_t i = first; i < call.inputs.size(); ++i)
    if (!broadcastStrides(*call.inputs[i], *call.outputs[0], strides))
      return kernelError(call, Error::InvalidShape,
                         "input #%zu does not broadcast to the output", i);
  return Error::Ok;
}

enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };

void compare(const KernelCall &call, Compare kind) {
  const TensorView *inputs[] = {call.inputs[0], call.inputs[1]};
  TensorView &out = *call.outputs[0];
  broadcastWalk(out, inputs, 2, [&](int64_t i, const int64_t *offsets) {
    double a = load(*inputs[0], offsets[0]), b = load(*inputs[1], offsets[1]);
    bool result = kind == Compare::Eq   ? a == b
                  : kind == Compare::Ne ? a != b
                  : kind == Compare::Lt ? a < b
                  : kind == Compare::Le ? a <= b
                  : kind == Compare::Gt ? a > b
                                        : a >= b;
    out.data<uint8_t>()[i] = result;
  });
}

} // namespace

Error validateCompare(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Bool));
  if (call.inputs[0]->scalarType() != call.inputs[1]->scalarType() ||
      !isSupported(call.inputs[0]->scalarType()))
    return kernelError(call, Error::InvalidType,
                       "operands must share a supported element type");
  return validateBroadcastInputs(call, 0);
}
void runEq(const KernelCall &call) { compare(call, Compare::Eq); }
void runNe(const KernelCall &call) { compare(call, Compare::Ne); }
void runLt(const KernelCall &call) { compare(call, Compare::Lt); }
void runLe(const KernelCall &call) { compare(call, Compare::Le); }
void runGt(const KernelCall &call) { compare(call, Compare::Gt); }
void runGe(const KernelCall &call) { compare(call, Compare::Ge); }

Error validateWhere(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 3, 3, 1));
  ET_CHECK_OK(checkType(call, call.inputs[0], "condition", ScalarType::Bool));
  ScalarType type = call.outputs[0]->scalarType();
  ET_CHECK_OK(checkType(call, call.inputs[1], "self", type));
  ET_CHECK_OK(checkType(call, call.inputs[2], "other", type));
  return validateBroadcastInputs(call, 0);
}

void runWhere(const KernelCall &call) {
  const TensorView *inputs[] = {call.inputs[0], call.inputs[1], call.inputs[2]};
  TensorView &out = *call.outputs[0];
  size_t element = elementSize(out.scalarType());
  char *dst = static_cast<char *>(out.data());
  const uint8_t *condition = inputs[0]->data<uint8_t>();
  const char *self = static_cast<const char *>(inputs[1]->data());
  const char *other = static_cast<const char *>(inputs[2]->data());
  broadcastWalk(out, inputs, 3, [&](int64_t i, const int64_t *offsets) {
    const char *source = condition[offsets[0]] ? self + offsets[1] * element
                                               : other + offsets[2] * element;
    std::memcpy(dst + i * element, source, element);
  });
}

Error validateToCopy(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0], &out = *call.outputs[0];
  if (!isSupported(in.scalarType()) || !isSupported(out.scalarType()))
    return kernelError(call, Error::NotSupported, "converts %s to %s",
                       scalarTypeName(in.scalarType()),
                       scalarTypeName(out.scalarType()));
  return checkShape(call, &out, "output", in.sizes(), in.rank());
}

void runToCopy(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  if (in.scalarType() == out.scalarType()) {
    std::memcpy(out.data(), in.data(), in.nbytes());
    return;
  }
  // Integer to integer without a detour through double (exact for int64).
  if (out.scalarType() == ScalarType::Int64 &&
      in.scalarType() == ScalarType::Int32) {
    for (int64_t i = 0; i < in.numel(); ++i)
      out.data<int64_t>()[i] = in.data<int32_t>()[i];
    return;
  }
  for (int64_t i = 0; i < in.numel(); ++i)
    store(out, i, load(in, i));
}

Error validateConstantPadNd(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0], &out = *call.outputs[0];
  ET_CHECK_OK(checkType(call, &out, "output", in.scalarType()));
  if (!isSupported(in.scalarType()))
    return kernelError(call, Error::NotSupported, "pads %s",
                       scalarTypeName(in.scalarType()));
  Span<const int64_t> pad = call.intsAttr("pad");
  if (pad.size() % 2 || pad.size() / 2 > static_cast<size_t>(in.rank()))
    return kernelError(call, Error::InvalidProgram, "bad pad list");
  int64_t expected[kMaxRank];
  for (int d = 0; d < in.rank(); ++d)
    expected[d] = in.size(d);
  for (size_t i = 0; i < pad.size() / 2; ++i)
    expected[in.rank() - 1 - i] += pad[2 * i] + pad[2 * i + 1];
  return checkShape(call, &out, "output", expected, in.rank());
}

void runConstantPadNd(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  Span<const int64_t> pad = call.intsAttr("pad");
  double value = call.doubleAttr("value", 0.0);
  int rank = in.rank();
  int64_t before[kMaxRank] = {};
  for (size_t i = 0; i < pad.size() / 2; ++i)
    before[rank - 1 - i] = pad[2 * i];
  size_t element = elementSize(in.scalarType());
  int64_t index[kMaxRank] = {};
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t source = 0;
    bool inside = true;
    for (int d = 0; d < rank; ++d) {
      int64_t coordinate = index[d] - before[d];
      inside &= coordinate >= 0 && coordinate < in.size(d);
      source += coordinate * in.stride(d);
    }
    if (inside)
      std::memcpy(static_cast<char *>(out.data()) + i * element,
                  static_cast<const char *>(in.data()) + source * element,
                  element);
    else
      store(out, i, value);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < out.size(d))
        break;
      index[d] = 0;
    }
  }
}

} // namespace etch::runtime::portable
