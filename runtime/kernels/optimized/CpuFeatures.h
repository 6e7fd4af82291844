// Which vector instruction sets the optimized kernels may use on this CPU,
// read once at run time (the same binary runs on AMD EPYC and Intel Xeon).
#pragma once

namespace etch::runtime::optimized {

/// True when this CPU has \p isa ("avx512vnni": AVX-512F, BW and VNNI's
/// int8 dot products; "avx512": AVX-512F; "avx2": AVX2 + FMA; "scalar":
/// always) and ETCH_CPU_ISA does not cap the choice below it
/// (ETCH_CPU_ISA=avx512|avx2|scalar, for tests and benchmarks).
bool cpuHasIsa(const char *isa);

/// Whether ETCH_CPU_ISA lets etch and the libraries it drives use \p isa,
/// whatever this CPU has (unset: every ISA). The XNNPACK and oneDNN
/// delegates apply the same cap to their libraries' kernel choice.
bool isaAllowed(const char *isa);

/// The widest ISA of this CPU under the cap, as cpuHasIsa names it.
const char *widestIsa();

} // namespace etch::runtime::optimized
