// Broadcasting arithmetic and activations.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>

namespace etch::runtime::portable {
namespace {

// M_PI and M_SQRT1_2 are POSIX, not C++: newlib (bare metal) lacks them.
constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrtHalf = 0.70710678118654752440;

enum class BinaryKind {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Maximum,
  Minimum,
  Remainder,
  Fmod,
  ShiftLeft,
  ShiftRight
};

/// Integer arithmetic wraps (as torch's kernels do) and never traps: signed
/// overflow is undefined behaviour in C++, and INT_MIN / -1 is a SIGFPE.
template <typename T> T integerBinary(BinaryKind kind, T a, T b, T alpha,
                                      int rounding) {
  using U = std::make_unsigned_t<T>;
  switch (kind) {
  case BinaryKind::Add:
    return static_cast<T>(U(a) + U(alpha) * U(b));
  case BinaryKind::Sub:
    return static_cast<T>(U(a) - U(alpha) * U(b));
  case BinaryKind::Mul:
    return static_cast<T>(U(a) * U(b));
  case BinaryKind::Pow: {
    if constexpr (std::is_signed_v<T>)
      if (b < 0) // integer pow with a negative exponent: 1, -1 or 0 as torch
        return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    U result = 1, base = U(a);
    for (T e = b; e > 0; e >>= 1, base *= base)
      if (e & 1)
        result *= base;
    return static_cast<T>(result);
  }
  case BinaryKind::Maximum:
    return a > b ? a : b;
  case BinaryKind::Minimum:
    return a < b ? a : b;
  case BinaryKind::Div: {
    if (b == 0)
      return 0; // integer division by zero: defined as 0, never a trap
    if constexpr (std::is_unsigned_v<T>) {
      return a / b;
    } else {
      if (b == -1) // the one quotient that overflows: wraps
        return static_cast<T>(U(0) - U(a));
      T q = a / b;
      // C++ truncates; floor mode rounds toward -inf; true division of
      // integers is floor-free truncation as ONNX defines it.
      if (rounding == 2 && (a % b != 0) && ((a < 0) != (b < 0)))
        --q;
      return q;
    }
  }
  case BinaryKind::ShiftLeft:
  case BinaryKind::ShiftRight: {
    constexpr T bits = static_cast<T>(sizeof(T) * 8);
    bool outOfRange = b >= bits;
    if constexpr (std::is_signed_v<T>) {
      outOfRange = outOfRange || b < 0;
      if (outOfRange && kind == BinaryKind::ShiftRight && a < 0)
        return T(-1); // every bit shifted out of a negative value
    }
    if (outOfRange)
      return 0;
    if (kind == BinaryKind::ShiftLeft)
      return static_cast<T>(U(a) << b);
    return static_cast<T>(a >> b); // arithmetic for signed (C++20, GCC)
  }
  case BinaryKind::Remainder:
  case BinaryKind::Fmod: {
    if (b == 0)
      return 0;
    if constexpr (std::is_unsigned_v<T>) {
      return a % b;
    } else {
      if (b == -1)
        return 0;
      T r = a % b; // C++ %: the sign of a (fmod)
      if (kind == BinaryKind::Remainder && r != 0 && ((r < 0) != (b < 0)))
        r += b; // the sign of b
      return r;
    }
  }
  }
  return a;
}

template <typename T>
T applyBinary(BinaryKind kind, T a, T b, T alpha, int rounding) {
  if constexpr (std::is_integral_v<T>) {
    return integerBinary(kind, a, b, alpha, rounding);
  } else {
    switch (kind) {
    case BinaryKind::Add:
      return a + alpha * b;
    case BinaryKind::Sub:
      return a - alpha * b;
    case BinaryKind::Mul:
      return a * b;
    case BinaryKind::Pow:
      return static_cast<T>(std::pow(a, b));
    case BinaryKind::Maximum:
      return a > b || std::isnan(a) ? a : b; // NaN propagates, as torch
    case BinaryKind::Minimum:
      return a < b || std::isnan(a) ? a : b;
    case BinaryKind::Div: {
      T q = a / b;
      return rounding == 1 ? std::trunc(q) : rounding == 2 ? std::floor(q) : q;
    }
    case BinaryKind::Remainder: {
      T r = std::fmod(a, b);
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r; // sign of b
    }
    case BinaryKind::Fmod:
      return std::fmod(a, b);
    case BinaryKind::ShiftLeft: // integers only (validateShift)
    case BinaryKind::ShiftRight:
      return a;
    }
    return a;
  }
}

template <typename T>
void runBinaryTyped(const KernelCall &call, BinaryKind kind) {
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  T alpha;
  if constexpr (std::is_integral_v<T>)
    alpha = saturatingCast<T>(call.doubleAttr("alpha", 1.0));
  else
    alpha = static_cast<T>(call.doubleAttr("alpha", 1.0));
  const char *mode = call.stringAttr("rounding_mode", "");
  int rounding = mode[0] == 't' ? 1 : mode[0] == 'f' ? 2 : 0;
  const T *pa = a.data<T>();
  const T *pb = b.data<T>();
  T *po = out.data<T>();
  int64_t n = out.numel();
  if (a.numel() == n && b.numel() == n) {
    for (int64_t i = 0; i < n; ++i)
      po[i] = applyBinary(kind, pa[i], pb[i], alpha, rounding);
    return;
  }
  if (a.numel() == n && b.numel() == 1) {
    T scalar = pb[0];
    for (int64_t i = 0; i < n; ++i)
      po[i] = applyBinary(kind, pa[i], scalar, alpha, rounding);
    return;
  }
  int64_t sa[kMaxRank], sb[kMaxRank], index[kMaxRank] = {};
  broadcastStrides(a, out, sa);
  broadcastStrides(b, out, sb);
  int rank = out.rank();
  int64_t offsetA = 0, offsetB = 0;
  for (int64_t i = 0; i < n; ++i) {
    po[i] = applyBinary(kind, pa[offsetA], pb[offsetB], alpha, rounding);
    for (int d = rank - 1; d >= 0; --d) {
      offsetA += sa[d];
      offsetB += sb[d];
      if (++index[d] < out.size(d))
        break;
      offsetA -= sa[d] * out.size(d);
      offsetB -= sb[d] * out.size(d);
      index[d] = 0;
    }
  }
}

Error validateBinary(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  const TensorView &out = *call.outputs[0];
  ScalarType type = out.scalarType();
  if (type == ScalarType::Bool || !isConvertible(type))
    return kernelError(call, Error::NotSupported,
                       "supports floating-point and integer types, not %s",
                       scalarTypeName(type));
  ET_CHECK_OK(checkType(call, &a, "self", type));
  ET_CHECK_OK(checkType(call, &b, "other", type));
  return checkBroadcastOutput(call, 0);
}

/// float16 and bfloat16 compute in float32, rounding each result back.
void runBinaryWidened(const KernelCall &call, BinaryKind kind) {
  const TensorView *inputs[] = {call.inputs[0], call.inputs[1]};
  TensorView &out = *call.outputs[0];
  auto alpha = static_cast<float>(call.doubleAttr("alpha", 1.0));
  broadcastWalk(out, inputs, 2, [&](int64_t i, const int64_t *offsets) {
    auto a = static_cast<float>(loadAsDouble(*inputs[0], offsets[0]));
    auto b = static_cast<float>(loadAsDouble(*inputs[1], offsets[1]));
    storeFromDouble(out, i, applyBinary(kind, a, b, alpha, 0));
  });
}

void runBinary(const KernelCall &call, BinaryKind kind) {
  switch (call.outputs[0]->scalarType()) {
  case ScalarType::Float32:
    return runBinaryTyped<float>(call, kind);
  case ScalarType::Float64:
    return runBinaryTyped<double>(call, kind);
  case ScalarType::Int64:
    return runBinaryTyped<int64_t>(call, kind);
  case ScalarType::Int32:
    return runBinaryTyped<int32_t>(call, kind);
  case ScalarType::Int16:
    return runBinaryTyped<int16_t>(call, kind);
  case ScalarType::Int8:
    return runBinaryTyped<int8_t>(call, kind);
  case ScalarType::UInt8:
    return runBinaryTyped<uint8_t>(call, kind);
  case ScalarType::UInt16:
    return runBinaryTyped<uint16_t>(call, kind);
  case ScalarType::UInt32:
    return runBinaryTyped<uint32_t>(call, kind);
  case ScalarType::UInt64:
    return runBinaryTyped<uint64_t>(call, kind);
  default:
    return runBinaryWidened(call, kind);
  }
}

/// Unary float ops over float32 or float64 (ONNX models compute in double
/// too): validate shape/type equality, run a per-element lambda.
Error validateUnaryFloat(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  if (call.inputs[0]->scalarType() != ScalarType::Float64)
    ET_CHECK_OK(checkType(call, call.inputs[0], "self", ScalarType::Float32));
  return checkSameShape(call, call.inputs[0], call.outputs[0], "output");
}

/// Runs \p fn in the input's own precision; \p fn takes float or double.
template <typename Fn> void mapFloat(const KernelCall &call, Fn fn) {
  auto apply = [&](auto *in, auto *out) {
    for (int64_t i = 0, n = call.outputs[0]->numel(); i < n; ++i)
      out[i] = fn(in[i]);
  };
  if (call.inputs[0]->scalarType() == ScalarType::Float64)
    return apply(call.inputs[0]->data<double>(),
                 call.outputs[0]->data<double>());
  apply(call.inputs[0]->data<float>(), call.outputs[0]->data<float>());
}

template <typename T> T hardsigmoid(T x) {
  return std::min(std::max(x + T(3), T(0)), T(6)) / T(6);
}

} // namespace

#define ETCH_BINARY_KERNEL(Name, Kind)                                         \
  Error validate##Name(const KernelCall &call) {                               \
    return validateBinary(call);                                               \
  }                                                                            \
  void run##Name(const KernelCall &call) { runBinary(call, BinaryKind::Kind); }
ETCH_BINARY_KERNEL(Add, Add)
ETCH_BINARY_KERNEL(Sub, Sub)
ETCH_BINARY_KERNEL(Mul, Mul)
ETCH_BINARY_KERNEL(Div, Div)
ETCH_BINARY_KERNEL(Maximum, Maximum)
ETCH_BINARY_KERNEL(Minimum, Minimum)
ETCH_BINARY_KERNEL(Remainder, Remainder)
ETCH_BINARY_KERNEL(Fmod, Fmod)

Error validatePow(const KernelCall &call) { return validateBinary(call); }

static Error validateShift(const KernelCall &call) {
  ET_CHECK_OK(validateBinary(call));
  ScalarType type = call.outputs[0]->scalarType();
  if (type == ScalarType::Float32 || type == ScalarType::Float64 ||
      type == ScalarType::Float16 || type == ScalarType::BFloat16)
    return kernelError(call, Error::NotSupported, "shifts integers, not %s",
                       scalarTypeName(type));
  return Error::Ok;
}
Error validateBitwiseLeftShift(const KernelCall &call) {
  return validateShift(call);
}
void runBitwiseLeftShift(const KernelCall &call) {
  runBinary(call, BinaryKind::ShiftLeft);
}
Error validateBitwiseRightShift(const KernelCall &call) {
  return validateShift(call);
}
void runBitwiseRightShift(const KernelCall &call) {
  runBinary(call, BinaryKind::ShiftRight);
}
void runPow(const KernelCall &call) { runBinary(call, BinaryKind::Pow); }
#undef ETCH_BINARY_KERNEL

Error validateUnary(const KernelCall &call) { return validateUnaryFloat(call); }

#define ETCH_MATH_KERNEL(Name, expression)                                     \
  void run##Name(const KernelCall &call) {                                     \
    mapFloat(call, [](auto x) {                                                \
      using T = decltype(x);                                                   \
      return static_cast<T>(expression);                                       \
    });                                                                        \
  }
ETCH_MATH_KERNEL(Relu, x > T(0) ? x : T(0))
ETCH_MATH_KERNEL(Sigmoid, T(1) / (T(1) + std::exp(-x)))
ETCH_MATH_KERNEL(Tanh, std::tanh(x))
ETCH_MATH_KERNEL(Silu, x / (T(1) + std::exp(-x)))
ETCH_MATH_KERNEL(Hardswish, x *hardsigmoid(x))
ETCH_MATH_KERNEL(Hardsigmoid, hardsigmoid(x))
ETCH_MATH_KERNEL(Exp, std::exp(x))
ETCH_MATH_KERNEL(Log, std::log(x))
ETCH_MATH_KERNEL(Sqrt, std::sqrt(x))
ETCH_MATH_KERNEL(Rsqrt, T(1) / std::sqrt(x))
ETCH_MATH_KERNEL(Erf, std::erf(x))
ETCH_MATH_KERNEL(Sin, std::sin(x))
ETCH_MATH_KERNEL(Cos, std::cos(x))
ETCH_MATH_KERNEL(Reciprocal, T(1) / x)
ETCH_MATH_KERNEL(Floor, std::floor(x))
ETCH_MATH_KERNEL(Ceil, std::ceil(x))
ETCH_MATH_KERNEL(Round, std::nearbyint(x)) // ties to even, as ATen
ETCH_MATH_KERNEL(Tan, std::tan(x))
ETCH_MATH_KERNEL(Asin, std::asin(x))
ETCH_MATH_KERNEL(Acos, std::acos(x))
ETCH_MATH_KERNEL(Atan, std::atan(x))
ETCH_MATH_KERNEL(Sinh, std::sinh(x))
ETCH_MATH_KERNEL(Cosh, std::cosh(x))
ETCH_MATH_KERNEL(Asinh, std::asinh(x))
ETCH_MATH_KERNEL(Acosh, std::acosh(x))
ETCH_MATH_KERNEL(Atanh, std::atanh(x))
ETCH_MATH_KERNEL(Expm1, std::expm1(x))
ETCH_MATH_KERNEL(Log1p, std::log1p(x))
ETCH_MATH_KERNEL(Log2, std::log2(x))
ETCH_MATH_KERNEL(Log10, std::log10(x))
ETCH_MATH_KERNEL(Trunc, std::trunc(x))
#undef ETCH_MATH_KERNEL

/// abs, neg, sign over float32, float64, int64 or int32 (integers wrap:
/// -INT_MIN is INT_MIN, as torch).
Error validateUnaryNumeric(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  ScalarType type = call.inputs[0]->scalarType();
  if (type != ScalarType::Float32 && type != ScalarType::Float64 &&
      type != ScalarType::Int64 && type != ScalarType::Int32)
    return kernelError(call, Error::NotSupported,
                       "supports float32, float64, int64 and int32, not %s",
                       scalarTypeName(type));
  return checkSameShape(call, call.inputs[0], call.outputs[0], "output");
}

template <typename Fn> void mapNumeric(const KernelCall &call, Fn fn) {
  auto apply = [&](auto *in, auto *out) {
    for (int64_t i = 0, n = call.outputs[0]->numel(); i < n; ++i)
      out[i] = fn(in[i]);
  };
  switch (call.inputs[0]->scalarType()) {
  case ScalarType::Float32:
    return apply(call.inputs[0]->data<float>(), call.outputs[0]->data<float>());
  case ScalarType::Float64:
    return apply(call.inputs[0]->data<double>(),
                 call.outputs[0]->data<double>());
  case ScalarType::Int64:
    return apply(call.inputs[0]->data<int64_t>(),
                 call.outputs[0]->data<int64_t>());
  default:
    return apply(call.inputs[0]->data<int32_t>(),
                 call.outputs[0]->data<int32_t>());
  }
}

template <typename T> T wrappingNeg(T x) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(std::make_unsigned_t<T>(0) -
                          std::make_unsigned_t<T>(x));
  else
    return -x;
}

void runNeg(const KernelCall &call) {
  mapNumeric(call, [](auto x) { return wrappingNeg(x); });
}
void runAbs(const KernelCall &call) {
  mapNumeric(call, [](auto x) { return x < 0 ? wrappingNeg(x) : x; });
}
void runSign(const KernelCall &call) {
  mapNumeric(call, [](auto x) {
    using T = decltype(x);
    return x > T(0) ? T(1) : x < T(0) ? T(-1) : x; // NaN stays NaN
  });
}

void runGelu(const KernelCall &call) {
  if (call.stringAttr("approximate", "none")[0] == 't') {
    mapFloat(call, [](auto x) {
      using T = decltype(x);
      const T k = std::sqrt(T(2) / T(kPi));
      return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
    });
  } else {
    mapFloat(call, [](auto x) {
      using T = decltype(x);
      return T(0.5) * x * (T(1) + std::erf(x * T(kSqrtHalf)));
    });
  }
}

void runHardtanh(const KernelCall &call) {
  double low = call.doubleAttr("min_val", -1.0);
  double high = call.doubleAttr("max_val", 1.0);
  mapFloat(call, [=](auto x) {
    using T = decltype(x);
    return std::min(std::max(x, T(low)), T(high));
  });
}

void runLeakyRelu(const KernelCall &call) {
  double slope = call.doubleAttr("negative_slope", 0.01);
  mapFloat(call, [=](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : T(slope) * x;
  });
}

void runElu(const KernelCall &call) {
  double alpha = call.doubleAttr("alpha", 1.0);
  double scale = call.doubleAttr("scale", 1.0);
  double inputScale = call.doubleAttr("input_scale", 1.0);
  mapFloat(call, [=](auto x) {
    using T = decltype(x);
    return T(scale) * (x > T(0) ? x : T(alpha) * std::expm1(x * T(inputScale)));
  });
}

Error validateClamp(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  ScalarType type = call.inputs[0]->scalarType();
  if (type == ScalarType::Bool || !isConvertible(type))
    return kernelError(call, Error::NotSupported,
                       "supports floating-point and integer types, not %s",
                       scalarTypeName(type));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", type));
  return checkSameShape(call, call.inputs[0], call.outputs[0], "output");
}

void runClamp(const KernelCall &call) {
  bool hasLow = call.find("min") != nullptr,
       hasHigh = call.find("max") != nullptr;
  double low = call.doubleAttr("min", 0), high = call.doubleAttr("max", 0);
  const TensorView &in = *call.inputs[0];
  int64_t n = in.numel();
  if (in.scalarType() == ScalarType::Float32) {
    const float *src = in.data<float>();
    float *dst = call.outputs[0]->data<float>();
    for (int64_t i = 0; i < n; ++i) {
      float x = src[i];
      if (hasLow && x < low)
        x = static_cast<float>(low);
      if (hasHigh && x > high)
        x = static_cast<float>(high);
      dst[i] = x;
    }
    return;
  }
  if (in.scalarType() == ScalarType::Int64) {
    const int64_t *src = in.data<int64_t>();
    int64_t *dst = call.outputs[0]->data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t x = src[i];
      if (hasLow && x < low)
        x = saturatingCast<int64_t>(std::ceil(low));
      if (hasHigh && x > high)
        x = saturatingCast<int64_t>(std::floor(high));
      dst[i] = x;
    }
    return;
  }
  // Every other type through double (exact for all but int64); integer
  // bounds round inward.
  bool integral = in.scalarType() != ScalarType::Float64 &&
                  in.scalarType() != ScalarType::Float16 &&
                  in.scalarType() != ScalarType::BFloat16;
  if (integral) {
    low = std::ceil(low);
    high = std::floor(high);
  }
  TensorView &out = *call.outputs[0];
  for (int64_t i = 0; i < n; ++i) {
    double x = loadAsDouble(in, i);
    if (hasLow && x < low)
      x = low;
    if (hasHigh && x > high)
      x = high;
    storeFromDouble(out, i, x);
  }
}

} // namespace etch::runtime::portable
