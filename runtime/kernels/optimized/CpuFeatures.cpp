#include "runtime/kernels/optimized/CpuFeatures.h"

#include <cstdlib>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

// Widest first.
const char *const kIsas[] = {"avx512", "avx2", "scalar"};

int rankOf(const char *isa) {
  for (int i = 0; i < 3; ++i)
    if (std::strcmp(kIsas[i], isa) == 0)
      return i;
  return -1;
}

bool hardwareHas(const char *isa) {
  if (std::strcmp(isa, "avx512") == 0)
    return __builtin_cpu_supports("avx512f");
  if (std::strcmp(isa, "avx2") == 0)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
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

bool cpuHasIsa(const char *isa) {
  int rank = rankOf(isa);
  return rank >= cap() && hardwareHas(isa);
}

} // namespace etch::runtime::optimized
