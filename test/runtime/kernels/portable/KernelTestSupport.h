// Test harness for portable kernels: owned tensors, attribute lists, a call
// that validates then runs, and comparison against double references.
#pragma once

#include "runtime/kernels/KernelCall.h"
#include "runtime/kernels/portable/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace etch::runtime::testing {

/// A tensor with its own storage.
struct OwnedTensor {
  TensorView view;
  std::vector<uint8_t> storage;

  OwnedTensor(ScalarType type, std::vector<int64_t> sizes) {
    view.reset(type, sizes.data(), static_cast<int>(sizes.size()));
    storage.assign(view.nbytes() + 1, 0);
    view.setData(storage.data());
  }
  float *f() { return view.data<float>(); }
  int64_t *i64() { return view.data<int64_t>(); }
  int64_t numel() const { return view.numel(); }
};

inline std::mt19937 &rng() {
  static std::mt19937 generator(1234);
  return generator;
}

inline OwnedTensor randomFloat(std::vector<int64_t> sizes, float low = -1,
                               float high = 1) {
  OwnedTensor t(ScalarType::Float32, std::move(sizes));
  std::uniform_real_distribution<float> dist(low, high);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.f()[i] = dist(rng());
  return t;
}

inline int64_t randomInt(int64_t low, int64_t high) {
  return std::uniform_int_distribution<int64_t>(low, high)(rng());
}

/// Attributes with stable storage for list values.
class Attributes {
public:
  Attributes &i(const char *name, int64_t value) {
    AttributeValue v;
    v.kind = AttributeValue::Kind::Int;
    v.intValue = value;
    return add(name, v);
  }
  Attributes &d(const char *name, double value) {
    AttributeValue v;
    v.kind = AttributeValue::Kind::Double;
    v.doubleValue = value;
    return add(name, v);
  }
  Attributes &b(const char *name, bool value) {
    AttributeValue v;
    v.kind = AttributeValue::Kind::Bool;
    v.boolValue = value;
    return add(name, v);
  }
  Attributes &ints(const char *name, std::vector<int64_t> values) {
    lists.push_back(std::move(values));
    AttributeValue v;
    v.kind = AttributeValue::Kind::IntList;
    v.ints = Span<const int64_t>(lists.back().data(), lists.back().size());
    return add(name, v);
  }
  Attributes &s(const char *name, const char *value) {
    AttributeValue v;
    v.kind = AttributeValue::Kind::String;
    v.string = value;
    return add(name, v);
  }
  Span<const NamedAttribute> span() const {
    return Span<const NamedAttribute>(entries.data(), entries.size());
  }

private:
  Attributes &add(const char *name, AttributeValue value) {
    entries.push_back({name, value});
    return *this;
  }
  std::vector<NamedAttribute> entries;
  std::deque<std::vector<int64_t>> lists;
};

/// Validates and runs \p entry (kernel `op`); returns validate's error.
inline Error runEntry(const KernelEntry *entry, const char *op,
                      std::vector<TensorView *> inputs,
                      std::vector<TensorView *> outputs,
                      const Attributes &attributes) {
  EXPECT_NE(entry, nullptr) << op;
  if (!entry)
    return Error::OperatorMissing;
  KernelCall call;
  call.inputs = Span<TensorView *>(inputs.data(), inputs.size());
  call.outputs = Span<TensorView *>(outputs.data(), outputs.size());
  call.attributes = attributes.span();
  call.opName = op;
  Error error = entry->validate(call);
  if (error == Error::Ok)
    entry->run(call);
  return error;
}

/// Validates and runs the portable kernel `op`; returns validate's error.
inline Error runKernel(const char *op, std::vector<TensorView *> inputs,
                       std::vector<TensorView *> outputs,
                       const Attributes &attributes = Attributes()) {
  return runEntry(portable::findPortableKernel(op), op, std::move(inputs),
                  std::move(outputs), attributes);
}

/// The same through the registry the executor uses (optimized kernels
/// where there are some).
inline Error runRegisteredKernel(const char *op,
                                 std::vector<TensorView *> inputs,
                                 std::vector<TensorView *> outputs,
                                 const Attributes &attributes = Attributes()) {
  return runEntry(findKernel(op), op, std::move(inputs), std::move(outputs),
                  attributes);
}

/// A quantized tensor with its own parameters.
struct QuantTensor {
  OwnedTensor tensor;
  std::vector<double> scales;
  std::vector<int64_t> zeroPoints;
  QuantParams params;

  QuantTensor(ScalarType storage, std::vector<int64_t> sizes,
              std::vector<double> scaleList, std::vector<int64_t> zeroList,
              int axis, int64_t qmin, int64_t qmax)
      : tensor(storage, std::move(sizes)), scales(std::move(scaleList)),
        zeroPoints(std::move(zeroList)) {
    params = {scales.data(), zeroPoints.data(), axis, qmin, qmax};
    tensor.view.setQuant(&params);
  }
  int64_t channelOf(int64_t i) const {
    if (params.axis < 0)
      return 0;
    return (i / tensor.view.stride(params.axis)) %
           tensor.view.size(params.axis);
  }
};

/// Element \p i of an integer tensor.
inline double loadInt(const TensorView &t, int64_t i) {
  switch (t.scalarType()) {
  case ScalarType::Int8: return t.data<int8_t>()[i];
  case ScalarType::UInt8: return t.data<uint8_t>()[i];
  case ScalarType::Int16: return t.data<int16_t>()[i];
  default: return t.data<int32_t>()[i];
  }
}

/// Every element within atol + rtol * |expected|.
inline void expectClose(const OwnedTensor &actual,
                        const std::vector<double> &expected, double rtol = 1e-5,
                        double atol = 1e-5) {
  ASSERT_EQ(static_cast<size_t>(actual.numel()), expected.size());
  const float *data = actual.view.data<float>();
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(data[i], expected[i], atol + rtol * std::fabs(expected[i]))
        << "element " << i;
}

} // namespace etch::runtime::testing
