//===- Activation.h - Elementwise functions as targets name them -*- C++
//-*-===//
//
// The Edge ops that are one function applied to each element (relu, clamp,
// gelu, exp, ...), classified once: each target's rules map an
// ActivationForm's kind to its own enum (a oneDNN eltwise algorithm, a
// Vulkan shader's activation) and refuse the kinds it lacks.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TARGET_ACTIVATION_H
#define ETCH_TARGET_ACTIVATION_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace etch {

/// True for relu, hardtanh and clamp, with their range in \p low, \p high.
bool isClampLike(mlir::Operation *op, float &low, float &high);

/// An elementwise function of one tensor and its parameters.
struct ActivationForm {
  enum class Kind {
    Relu,      // a clamp to [0, inf)
    Clamp,     // to [alpha, beta], infinite bounds as +-FLT_MAX
    LeakyRelu, // negative slope alpha
    Elu,       // alpha, with scale and input_scale 1
    GeluErf,
    GeluTanh,
    Hardswish,
    Hardsigmoid,
    Sigmoid,
    Tanh,
    Silu,
    Abs,
    Sqrt,
    Rsqrt,
    Exp,
    Log,
    Neg,
    Erf,
    Reciprocal,
    Floor,
    Ceil,
    Round, // half to even
    Sin,
    Cos,
    Trunc,
    Sign,
    Expm1,
    Log1p,
  };
  Kind kind;
  float alpha = 0, beta = 0;
};

/// \p op's form, when it is an elementwise function of one tensor (an elu
/// with scale or input_scale other than 1 is not: no target has it).
std::optional<ActivationForm> activationForm(mlir::Operation *op);

} // namespace etch

#endif // ETCH_TARGET_ACTIVATION_H
