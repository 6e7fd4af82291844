// What an embedder decides when it loads a program: passed by value from
// Module to Method to every delegate's init, so two programs in one process
// can load with different settings and nothing is read back from globals.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etch::runtime {

struct LoadOptions {
  /// Threads the CPU kernels and delegates run on. 0: a delegate's own
  /// `num_threads` compile spec, else every core. The optimized kernels'
  /// pool is one per process: the method loaded last sizes it
  /// (ETCH_KERNEL_THREADS overrides).
  size_t threads = 0;
  /// Delegates time their own steps for Backend::profile (et-run --profile
  /// and --trace). Off by default: timing costs.
  bool profileDelegates = false;
  /// The most bytes one method may ask for at load: its arenas plus what
  /// its delegates keep for intermediate values; loading fails cleanly
  /// above it. Embedders on small devices and the fuzzers lower it.
  uint64_t memoryLimit = uint64_t(1) << 48;
  /// Module only: the program's external weights file (et-compile
  /// --external-weights); null: the file it was compiled against, beside
  /// the program.
  const char *weightsPath = nullptr;
};

} // namespace etch::runtime
