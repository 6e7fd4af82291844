#include "runtime/kernels/optimized/CpuFeatures.h"

#include <cstdlib>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

// Widest first.
const char *const kIsas[] = {"avx512vnni", "avx512", "avx2", "scalar"};
constexpr int kIsaCount = sizeof(kIsas) / sizeof(kIsas[0]);

int rankOf(const char *isa) {
  for (int i = 0; i < kIsaCount; ++i)
    if (std::strcmp(kIsas[i], isa) == 0)
      return i;
  return -1;
}

bool hardwareHas(const char *isa) {
  // Each rung includes the ones below it: the AVX-512 paths call AVX2+FMA
  // kernels too (the one-row GEMV), as every such CPU has them.
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (std::strcmp(isa, "avx512vnni") == 0)
    return avx2 && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vnni");
  if (std::strcmp(isa, "avx512") == 0)
    return avx2 && __builtin_cpu_supports("avx512f");
  if (std::strcmp(isa, "avx2") == 0)
    return avx2;
  return std::strcmp(isa, "scalar") == 0;
}

int cap() {
  static const int widest = [] {
    const char *limit = std::getenv("ETCH_CPU_ISA");
    int rank = limit ? rankOf(limit) : -1;
    return rank < 0 ? 0 : rank;
  }();
  return widest;
}

} // namespace

bool cpuHasIsa(const char *isa) { return isaAllowed(isa) && hardwareHas(isa); }

bool isaAllowed(const char *isa) {
  int rank = rankOf(isa);
  return rank >= 0 && rank >= cap();
}

const char *widestIsa() {
  for (const char *isa : kIsas)
    if (cpuHasIsa(isa))
      return isa;
  return "scalar";
}

} // namespace etch::runtime::optimized
