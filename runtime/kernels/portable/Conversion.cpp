// Comparisons (-> bool), where, dtype conversion, constant padding.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>
#include <cstring>

namespace etch::runtime::portable {
namespace {

Error validateBroadcastInputs(const KernelCall &call, size_t first) {
  return checkBroadcastOutput(call, first);
}

enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };

void compare(const KernelCall &call, Compare kind) {
  const TensorView *inputs[] = {call.inputs[0], call.inputs[1]};
  TensorView &out = *call.outputs[0];
  broadcastWalk(out, inputs, 2, [&](int64_t i, const int64_t *offsets) {
    double a = loadAsDouble(*inputs[0], offsets[0]), b = loadAsDouble(*inputs[1], offsets[1]);
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
      !isConvertible(call.inputs[0]->scalarType()))
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

namespace {
enum class Logic { And, Or, Xor };

void logical(const KernelCall &call, Logic kind) {
  const TensorView *inputs[] = {call.inputs[0], call.inputs[1]};
  TensorView &out = *call.outputs[0];
  broadcastWalk(out, inputs, 2, [&](int64_t i, const int64_t *offsets) {
    bool a = loadAsDouble(*inputs[0], offsets[0]) != 0;
    bool b = loadAsDouble(*inputs[1], offsets[1]) != 0;
    out.data<uint8_t>()[i] = kind == Logic::And  ? a && b
                             : kind == Logic::Or ? a || b
                                                 : a != b;
  });
}
} // namespace

Error validateLogicalBinary(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Bool));
  if (!isConvertible(call.inputs[0]->scalarType()) ||
      !isConvertible(call.inputs[1]->scalarType()))
    return kernelError(call, Error::NotSupported,
                       "operands must have supported element types");
  return validateBroadcastInputs(call, 0);
}
void runLogicalAnd(const KernelCall &call) { logical(call, Logic::And); }
void runLogicalOr(const KernelCall &call) { logical(call, Logic::Or); }
void runLogicalXor(const KernelCall &call) { logical(call, Logic::Xor); }

Error validateLogicalNot(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0], &out = *call.outputs[0];
  ET_CHECK_OK(checkType(call, &out, "output", ScalarType::Bool));
  if (!isConvertible(in.scalarType()))
    return kernelError(call, Error::NotSupported, "does not take %s",
                       scalarTypeName(in.scalarType()));
  return checkShape(call, &out, "output", in.sizes(), in.rank());
}

void runLogicalNot(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  uint8_t *dst = call.outputs[0]->data<uint8_t>();
  for (int64_t i = 0; i < in.numel(); ++i)
    dst[i] = loadAsDouble(in, i) == 0;
}

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
  if (!isConvertible(in.scalarType()) || !isConvertible(out.scalarType()))
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
    storeFromDouble(out, i, loadAsDouble(in, i));
}

Error validateConstantPadNd(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0], &out = *call.outputs[0];
  ET_CHECK_OK(checkType(call, &out, "output", in.scalarType()));
  if (!isConvertible(in.scalarType()))
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
      storeFromDouble(out, i, value);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < out.size(d))
        break;
      index[d] = 0;
    }
  }
}

} // namespace etch::runtime::portable
