// One kernel loop built for AVX-512, AVX2+FMA and the baseline, picked once
// at run time by cpuHasIsa. GCC's target_clones picks by the hardware
// alone, so under ETCH_CPU_ISA (capped runs, and the tests that force each
// path) the narrower builds would never run; these clones obey the cap.
//
//   __attribute__((always_inline)) inline void rowBody(...) { loops }
//   IsaClones<rowBody>::call(args...);
//
// The body is inlined into each clone and compiled for its ISA, so loops
// the compiler vectorizes take that ISA's vector width.
#pragma once

#include "runtime/kernels/optimized/CpuFeatures.h"

namespace etch::runtime::optimized {

template <auto Body> struct IsaClones;

template <typename R, typename... Args, R (*Body)(Args...)>
struct IsaClones<Body> {
  using Fn = R (*)(Args...);

  __attribute__((target("avx512f"))) static R avx512(Args... args) {
    return Body(args...);
  }
  __attribute__((target("avx2,fma"))) static R avx2(Args... args) {
    return Body(args...);
  }
  static R scalar(Args... args) { return Body(args...); }

  /// The widest clone this CPU runs under ETCH_CPU_ISA.
  static Fn chosen() {
    static const Fn fn = cpuHasIsa("avx512") ? avx512
                         : cpuHasIsa("avx2") ? avx2
                                             : scalar;
    return fn;
  }

  static R call(Args... args) { return chosen()(args...); }
};

} // namespace etch::runtime::optimized
