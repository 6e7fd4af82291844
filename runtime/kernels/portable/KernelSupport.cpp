#include "runtime/kernels/portable/KernelSupport.h"

#include "runtime/core/BroadcastShape.h"
#include "runtime/core/Half.h"
#include "runtime/core/ReductionShape.h"

#include <cstdio>

namespace etch::runtime::portable {

Error checkArity(const KernelCall &call, size_t minInputs, size_t maxInputs,
                 size_t outputs) {
  if (call.inputs.size() < minInputs || call.inputs.size() > maxInputs)
    return kernelError(call, Error::InvalidProgram,
                       "takes %zu to %zu inputs, the program gives %zu",
                       minInputs, maxInputs, call.inputs.size());
  for (size_t i = 0; i < minInputs; ++i)
    if (!call.inputs[i])
      return kernelError(call, Error::InvalidProgram,
                         "required input #%zu is absent", i);
  if (call.outputs.size() != outputs)
    return kernelError(call, Error::InvalidProgram,
                       "has %zu outputs, the program gives %zu", outputs,
                       call.outputs.size());
  return Error::Ok;
}

Error checkType(const KernelCall &call, const TensorView *tensor,
                const char *what, ScalarType type) {
  if (!tensor)
    return kernelError(call, Error::InvalidProgram, "%s is absent", what);
  if (tensor->scalarType() != type)
    return kernelError(call, Error::InvalidType, "%s is %s, expected %s", what,
                       scalarTypeName(tensor->scalarType()),
                       scalarTypeName(type));
  return Error::Ok;
}

Error checkNumericType(const KernelCall &call, ScalarType type) {
  if (type == ScalarType::Float32 || type == ScalarType::Float64 ||
      type == ScalarType::Int64 || type == ScalarType::Int32)
    return Error::Ok;
  return kernelError(call, Error::NotSupported,
                     "supports float32, float64, int64 and int32, not %s",
                     scalarTypeName(type));
}

Error checkFloatType(const KernelCall &call, const TensorView &tensor,
                     const char *what) {
  ScalarType type = tensor.scalarType();
  if (type == ScalarType::Float32 || type == ScalarType::Float64)
    return Error::Ok;
  return kernelError(call, Error::InvalidType,
                     "%s is %s, expected float32 or float64", what,
                     scalarTypeName(type));
}

Error checkShape(const KernelCall &call, const TensorView *tensor,
                 const char *what, const int64_t *sizes, int rank) {
  if (call.resizeOutputs && tensor)
    for (TensorView *output : call.outputs)
      if (output == tensor) {
        if (output->resize(sizes, rank))
          return Error::Ok;
        return kernelError(call, Error::InvalidShape,
                           "%s does not fit the memory planned for it (a "
                           "size beyond the program's bounds?)",
                           what);
      }
  bool same = tensor && tensor->rank() == rank;
  for (int d = 0; same && d < rank; ++d)
    same = tensor->size(d) == sizes[d];
  if (same)
    return Error::Ok;
  char expected[96] = "";
  size_t used = 0;
  for (int d = 0; d < rank && used < sizeof(expected); ++d)
    used += std::snprintf(expected + used, sizeof(expected) - used, "%s%lld",
                          d ? "x" : "", static_cast<long long>(sizes[d]));
  return kernelError(call, Error::InvalidShape,
                     "%s has the wrong shape (expected %s)", what, expected);
}

Error checkSameShape(const KernelCall &call, const TensorView *a,
                     const TensorView *b, const char *what) {
  if (a->scalarType() != b->scalarType())
    return kernelError(call, Error::InvalidType, "%s: element types differ",
                       what);
  return checkShape(call, b, what, a->sizes(), a->rank());
}

Error checkBroadcastOutput(const KernelCall &call, size_t first) {
  int64_t rank = 0;
  int64_t shape[kMaxRank];
  for (size_t i = first; i < call.inputs.size(); ++i) {
    const TensorView *input = call.inputs[i];
    if (!input)
      continue;
    rank = broadcastShape(shape, rank, input->sizes(), input->rank(), shape);
    if (rank < 0)
      return kernelError(call, Error::InvalidShape,
                         "input #%zu does not broadcast with the others", i);
  }
  return checkShape(call, call.outputs[0], "output", shape,
                    static_cast<int>(rank));
}

bool isSizeTensor(const TensorView *tensor) {
  return tensor && tensor->scalarType() == ScalarType::Int64 &&
         tensor->rank() == 0;
}

bool resolveSizeList(const KernelCall &call, Span<const int64_t> size,
                     size_t firstInput, int64_t *resolved) {
  size_t next = firstInput;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] != kSizeFromInput) {
      resolved[i] = size[i];
      continue;
    }
    if (next >= call.inputs.size() || !isSizeTensor(call.inputs[next]))
      return false;
    resolved[i] = call.inputs[next++]->data<int64_t>()[0];
  }
  return next == call.inputs.size();
}

int64_t normalizeDim(int64_t dim, int64_t rank) {
  return normalizedDim(dim, rank);
}

bool broadcastStrides(const TensorView &in, const TensorView &out,
                      int64_t *strides) {
  int offset = out.rank() - in.rank();
  if (offset < 0)
    return false;
  for (int d = 0; d < out.rank(); ++d) {
    if (d < offset) {
      strides[d] = 0;
      continue;
    }
    int64_t size = in.size(d - offset);
    if (size == out.size(d))
      strides[d] = size == 1 ? 0 : in.stride(d - offset);
    else if (size == 1)
      strides[d] = 0;
    else
      return false;
  }
  return true;
}

/// Reads element \p i of a numeric tensor as double (exact for int32 and
/// for int64 values below 2^53, which covers indices and masks).
double loadAsDouble(const TensorView &t, int64_t i) {
  switch (t.scalarType()) {
  case ScalarType::Float32:
    return t.data<float>()[i];
  case ScalarType::Float64:
    return t.data<double>()[i];
  case ScalarType::Float16:
    return halfToFloat(t.data<uint16_t>()[i]);
  case ScalarType::BFloat16:
    return bfloat16ToFloat(t.data<uint16_t>()[i]);
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
  case ScalarType::UInt16:
    return t.data<uint16_t>()[i];
  case ScalarType::UInt32:
    return t.data<uint32_t>()[i];
  case ScalarType::UInt64:
    return static_cast<double>(t.data<uint64_t>()[i]);
  default:
    return 0;
  }
}

void storeFromDouble(TensorView &t, int64_t i, double value) {
  switch (t.scalarType()) {
  case ScalarType::Float32:
    t.data<float>()[i] = static_cast<float>(value);
    break;
  case ScalarType::Float64:
    t.data<double>()[i] = value;
    break;
  case ScalarType::Float16:
    t.data<uint16_t>()[i] = floatToHalf(static_cast<float>(value));
    break;
  case ScalarType::BFloat16:
    t.data<uint16_t>()[i] = floatToBFloat16(static_cast<float>(value));
    break;
  case ScalarType::Int64:
    t.data<int64_t>()[i] = saturatingCast<int64_t>(value);
    break;
  case ScalarType::Int32:
    t.data<int32_t>()[i] = saturatingCast<int32_t>(value);
    break;
  case ScalarType::Int16:
    t.data<int16_t>()[i] = saturatingCast<int16_t>(value);
    break;
  case ScalarType::Int8:
    t.data<int8_t>()[i] = saturatingCast<int8_t>(value);
    break;
  case ScalarType::UInt8:
    t.data<uint8_t>()[i] = saturatingCast<uint8_t>(value);
    break;
  case ScalarType::UInt16:
    t.data<uint16_t>()[i] = saturatingCast<uint16_t>(value);
    break;
  case ScalarType::UInt32:
    t.data<uint32_t>()[i] = saturatingCast<uint32_t>(value);
    break;
  case ScalarType::UInt64:
    t.data<uint64_t>()[i] = saturatingCast<uint64_t>(value);
    break;
  case ScalarType::Bool:
    t.data<uint8_t>()[i] = value != 0;
    break;
  default:
    break;
  }
}

bool isConvertible(ScalarType type) {
  switch (type) {
  case ScalarType::Float32:
  case ScalarType::Float64:
  case ScalarType::Float16:
  case ScalarType::BFloat16:
  case ScalarType::Int64:
  case ScalarType::Int32:
  case ScalarType::Int16:
  case ScalarType::Int8:
  case ScalarType::UInt8:
  case ScalarType::UInt16:
  case ScalarType::UInt32:
  case ScalarType::UInt64:
  case ScalarType::Bool:
    return true;
  default:
    return false;
  }
}

ConvShape convShape(const KernelCall &call) {
  const TensorView &in = *call.inputs[0], &weight = *call.inputs[1];
  const TensorView &out = *call.outputs[0];
  Span<const int64_t> stride = call.intsAttr("stride");
  Span<const int64_t> padding = call.intsAttr("padding");
  Span<const int64_t> dilation = call.intsAttr("dilation");
  // The last two entries are H and W; a 3-D call has D in front.
  int r = in.rank(), a = static_cast<int>(stride.size()) - 2;
  ConvShape s{in.size(0),
              in.size(1),
              in.size(r - 2),
              in.size(r - 1),
              out.size(1),
              out.size(r - 2),
              out.size(r - 1),
              weight.size(r - 2),
              weight.size(r - 1),
              stride[a],
              stride[a + 1],
              padding[a],
              padding[a + 1],
              dilation[a],
              dilation[a + 1],
              call.intAttr("groups", 1),
              call.boolAttr("transposed", false)};
  if (r == 5) {
    s.d = in.size(2);
    s.od = out.size(2);
    s.kd = weight.size(2);
    s.sd = stride[0];
    s.pd = padding[0];
    s.dd = dilation[0];
  }
  return s;
}

} // namespace etch::runtime::portable
