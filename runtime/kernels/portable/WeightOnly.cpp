// dequantize_per_channel_group, weight_only_linear, weight_only_embedding:
// the reference arithmetic of groupwise / per-channel weight-only
// quantization. Weights are dequantized as torch does ((q - zp) * scale in
// float) and products summed in double.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/WeightPacking.h"

#include <cstring>

namespace etch::runtime::portable {
namespace {

namespace packing = weight_packing;

bool isIntegerType(ScalarType type) {
  switch (type) {
  case ScalarType::Int8:
  case ScalarType::UInt8:
  case ScalarType::Int16:
  case ScalarType::Int32:
  case ScalarType::Int64:
    return true;
  default:
    return false;
  }
}

/// Checks scales (float32) and zero points (int8 for packed weights, any
/// integer type otherwise, when given) of shape [rows, columns / group].
Error checkGroupParameters(const KernelCall &call, const TensorView &scales,
                           const TensorView *zeroPoints, int64_t rows,
                           int64_t columns, int64_t group, bool packed) {
  if (group <= 0 || columns % group != 0)
    return kernelError(call, Error::InvalidProgram,
                       "group_size %lld does not divide the %lld columns",
                       static_cast<long long>(group),
                       static_cast<long long>(columns));
  int64_t shape[2] = {rows, columns / group};
  ET_CHECK_OK(checkType(call, &scales, "scales", ScalarType::Float32));
  if (scales.rank() != 2 || scales.size(0) != rows ||
      scales.size(1) != shape[1])
    return kernelError(call, Error::InvalidShape,
                       "scales must be [%lld, %lld]",
                       static_cast<long long>(rows),
                       static_cast<long long>(shape[1]));
  if (zeroPoints) {
    if (packed)
      ET_CHECK_OK(checkType(call, zeroPoints, "zero_points", ScalarType::Int8));
    else if (!isIntegerType(zeroPoints->scalarType()))
      return kernelError(call, Error::InvalidType,
                         "zero_points must be integers");
    if (zeroPoints->rank() != 2 || zeroPoints->size(0) != rows ||
        zeroPoints->size(1) != shape[1])
      return kernelError(call, Error::InvalidShape,
                         "zero_points must have the scales' shape");
  }
  return Error::Ok;
}

/// A packed weight-only table (WeightPacking.h) and its parameters: the
/// columns K it holds.
struct PackedWeight {
  int bits;
  int64_t rows, columns, group;
  const uint8_t *data;
  const float *scales;
  const int8_t *zeroPoints; // null: symmetric

  const uint8_t *row(int64_t n) const {
    return data + n * packing::rowBytes(bits, columns);
  }
  float at(int64_t n, int64_t k) const {
    int64_t g = n * (columns / group) + k / group;
    int zero = zeroPoints ? zeroPoints[g] : 0;
    return static_cast<float>(packing::quantizedAt(bits, row(n), k) - zero) *
           scales[g];
  }
};

Error checkPackedWeight(const KernelCall &call, const TensorView &weight,
                        const TensorView &scales, const TensorView *zeroPoints) {
  int64_t bits = call.intAttr("bits", 0), group = call.intAttr("group_size", 0);
  if (bits != 4 && bits != 8)
    return kernelError(call, Error::InvalidProgram, "bits must be 4 or 8");
  ET_CHECK_OK(checkType(call, &weight, "weight",
                        bits == 4 ? ScalarType::UInt8 : ScalarType::Int8));
  if (weight.rank() != 2)
    return kernelError(call, Error::InvalidShape, "weight must be 2-D");
  int64_t columns = bits == 4 ? weight.size(1) * 2 : weight.size(1);
  if (bits == 4 && (columns % packing::kInt4Block || group % packing::kInt4Block))
    return kernelError(call, Error::InvalidProgram,
                       "4-bit columns and group_size must be multiples of %lld",
                       static_cast<long long>(packing::kInt4Block));
  return checkGroupParameters(call, scales, zeroPoints, weight.size(0),
                              columns, group, /*packed=*/true);
}

PackedWeight packedWeight(const KernelCall &call, const TensorView &weight,
                          const TensorView &scales,
                          const TensorView *zeroPoints) {
  int bits = static_cast<int>(call.intAttr("bits", 8));
  return {bits,
          weight.size(0),
          bits == 4 ? weight.size(1) * 2 : weight.size(1),
          call.intAttr("group_size", 1),
          weight.data<uint8_t>(),
          scales.data<float>(),
          zeroPoints ? zeroPoints->data<int8_t>() : nullptr};
}

} // namespace

Error validateDequantizePerChannelGroup(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 3, 1));
  const TensorView &input = *call.inputs[0];
  if (input.rank() != 2 || !isIntegerType(input.scalarType()))
    return kernelError(call, Error::InvalidType,
                       "input must be a 2-D integer tensor");
  ET_CHECK_OK(checkGroupParameters(call, *call.inputs[1], call.input(2),
                                   input.size(0), input.size(1),
                                   call.intAttr("group_size", 0),
                                   /*packed=*/false));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Float32));
  return checkShape(call, call.outputs[0], "output", input.sizes(), 2);
}

void runDequantizePerChannelGroup(const KernelCall &call) {
  const TensorView &input = *call.inputs[0], &scales = *call.inputs[1];
  const TensorView *zeroPoints = call.input(2);
  float *out = call.outputs[0]->data<float>();
  int64_t columns = input.size(1), group = call.intAttr("group_size", 1);
  for (int64_t i = 0; i < input.numel(); ++i) {
    int64_t g = (i / columns) * (columns / group) + (i % columns) / group;
    double zero = zeroPoints ? loadAsDouble(*zeroPoints, g) : 0;
    out[i] = static_cast<float>(loadAsDouble(input, i) - zero) *
             scales.data<float>()[g];
  }
}

Error validateWeightOnlyLinear(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 3, 5, 1));
  const TensorView &input = *call.inputs[0], &weight = *call.inputs[1];
  const TensorView *bias = call.input(4);
  ET_CHECK_OK(checkPackedWeight(call, weight, *call.inputs[2], call.input(3)));
  ET_CHECK_OK(checkType(call, &input, "input", ScalarType::Float32));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Float32));
  PackedWeight w = packedWeight(call, weight, *call.inputs[2], call.input(3));
  if (input.rank() < 1 || input.size(input.rank() - 1) != w.columns)
    return kernelError(call, Error::InvalidShape,
                       "input must end in the weight's %lld columns",
                       static_cast<long long>(w.columns));
  if (bias) {
    ET_CHECK_OK(checkType(call, bias, "bias", ScalarType::Float32));
    if (bias->rank() != 1 || bias->size(0) != w.rows)
      return kernelError(call, Error::InvalidShape, "bias must be [%lld]",
                         static_cast<long long>(w.rows));
  }
  int64_t expected[kMaxRank];
  for (int d = 0; d < input.rank(); ++d)
    expected[d] = input.size(d);
  expected[input.rank() - 1] = w.rows;
  return checkShape(call, call.outputs[0], "output", expected, input.rank());
}

void runWeightOnlyLinear(const KernelCall &call) {
  const TensorView &input = *call.inputs[0];
  const TensorView *bias = call.input(4);
  PackedWeight w =
      packedWeight(call, *call.inputs[1], *call.inputs[2], call.input(3));
  const float *x = input.data<float>();
  float *out = call.outputs[0]->data<float>();
  int64_t count = w.columns ? input.numel() / w.columns : 0;
  for (int64_t m = 0; m < count; ++m)
    for (int64_t n = 0; n < w.rows; ++n) {
      double sum = bias ? bias->data<float>()[n] : 0.0;
      for (int64_t k = 0; k < w.columns; ++k)
        sum += static_cast<double>(x[m * w.columns + k]) * w.at(n, k);
      out[m * w.rows + n] = static_cast<float>(sum);
    }
}

Error validateWeightOnlyEmbedding(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 3, 4, 1));
  const TensorView &weight = *call.inputs[0], &indices = *call.inputs[2];
  ET_CHECK_OK(checkPackedWeight(call, weight, *call.inputs[1], call.input(3)));
  if (indices.scalarType() != ScalarType::Int64 &&
      indices.scalarType() != ScalarType::Int32)
    return kernelError(call, Error::InvalidType,
                       "indices must be int32 or int64");
  if (indices.rank() >= kMaxRank)
    return kernelError(call, Error::InvalidShape, "indices have too many dims");
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Float32));
  PackedWeight w = packedWeight(call, weight, *call.inputs[1], call.input(3));
  int64_t expected[kMaxRank];
  for (int d = 0; d < indices.rank(); ++d)
    expected[d] = indices.size(d);
  expected[indices.rank()] = w.columns;
  return checkShape(call, call.outputs[0], "output", expected,
                    indices.rank() + 1);
}

// Indices are data: rows outside the table are zeros.
void runWeightOnlyEmbedding(const KernelCall &call) {
  const TensorView &indices = *call.inputs[2];
  PackedWeight w =
      packedWeight(call, *call.inputs[0], *call.inputs[1], call.input(3));
  float *out = call.outputs[0]->data<float>();
  for (int64_t i = 0; i < indices.numel(); ++i) {
    int64_t index = indices.scalarType() == ScalarType::Int64
                        ? indices.data<int64_t>()[i]
                        : indices.data<int32_t>()[i];
    if (index < 0)
      index += w.rows;
    float *row = out + i * w.columns;
    if (index < 0 || index >= w.rows) {
      std::memset(row, 0, w.columns * sizeof(float));
      continue;
    }
    for (int64_t k = 0; k < w.columns; ++k)
      row[k] = w.at(index, k);
  }
}

} // namespace etch::runtime::portable
