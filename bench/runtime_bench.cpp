//===- runtime_bench.cpp - Runtime load time and per-call overhead --------===//
//
//   etch-runtime-bench overhead tiny.etp OPS   # ns of framework time per call
//   etch-runtime-bench load model.etp [...]    # load+init ms, median of 30
//   etch-runtime-bench run model.etp [...]     # execute ms, median of 30
//   etch-runtime-bench isa                     # the CPU's ISA, and etch's
//
// Options before the mode: --threads N (backend thread hint), --input
// x.npy (the input of every `run` program; otherwise 0.5 everywhere).
//
// Figures are medians of repeated runs in one process; compare side by side
// in one run (these machines are shared and noisy).
//
//===----------------------------------------------------------------------===//
#include "runtime/backend/Backend.h"
#include "runtime/kernels/KernelCall.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/module/Module.h"
#include "runtime/platform/Platform.h"
#include "tools/et-run/Npy.h"

#include <string>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace etch::runtime;

namespace {

LoadOptions loadOptions; // --threads

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::unique_ptr<Method> loadOrDie(const char *path,
                                  std::unique_ptr<Module> &module) {
  Result<std::unique_ptr<Module>> opened = Module::open(path, loadOptions);
  if (!opened.ok()) {
    std::fprintf(stderr, "cannot load %s\n", path);
    std::exit(1);
  }
  module = std::move(*opened);
  Result<std::unique_ptr<Method>> method = module->loadMethod("forward");
  if (!method.ok()) {
    std::fprintf(stderr, "cannot load method of %s\n", path);
    std::exit(1);
  }
  return std::move(*method);
}

/// Time of one relu kernel call on one float, measured directly (no
/// executor): the "kernel time" subtracted from the per-instruction cost.
double reluKernelNanos() {
  float in = 0.5f, out = 0;
  int64_t size = 1;
  TensorView a, b;
  a.reset(ScalarType::Float32, &size, 1);
  b.reset(ScalarType::Float32, &size, 1);
  a.setData(&in);
  b.setData(&out);
  TensorView *inputs[] = {&a}, *outputs[] = {&b};
  KernelCall call;
  call.inputs = Span<TensorView *>(inputs, 1);
  call.outputs = Span<TensorView *>(outputs, 1);
  const KernelEntry *relu = findKernel("edge.relu");
  std::vector<double> samples;
  for (int round = 0; round < 31; ++round) {
    uint64_t start = nowNanoseconds();
    for (int i = 0; i < 100000; ++i) {
      relu->run(call);
      asm volatile("" ::: "memory");
    }
    samples.push_back((nowNanoseconds() - start) / 1e5);
  }
  return median(samples);
}

} // namespace

int main(int argc, char **argv) {
  std::string inputPath;
  int rounds = 30;
  while (argc > 2 && std::strncmp(argv[1], "--", 2) == 0) {
    if (std::strcmp(argv[1], "--threads") == 0)
      loadOptions.threads = static_cast<size_t>(std::atoi(argv[2]));
    else if (std::strcmp(argv[1], "--input") == 0)
      inputPath = argv[2];
    else if (std::strcmp(argv[1], "--runs") == 0)
      rounds = std::max(1, std::atoi(argv[2]));
    argv += 2;
    argc -= 2;
  }
  if (argc == 2 && std::strcmp(argv[1], "isa") == 0) {
    // What the CPU has, then what etch runs under ETCH_CPU_ISA.
    auto has = [](bool present) { return present ? "yes" : "no"; };
    std::printf(
        "AVX2+FMA %s, AVX-512 %s, AVX-512 VNNI %s, AVX-VNNI %s; etch "
        "runs %s\n",
        has(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")),
        has(__builtin_cpu_supports("avx512f")),
        has(__builtin_cpu_supports("avx512vnni")),
        has(__builtin_cpu_supports("avxvnni")),
        etch::runtime::optimized::widestIsa());
    return 0;
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: etch-runtime-bench [--threads N] [--input x.npy] "
                 "[--runs N] overhead|load|run FILE... | isa\n");
    return 2;
  }
  registerAllBackends();
  std::string mode = argv[1];
  if (mode == "overhead") {
    std::unique_ptr<Module> module;
    std::unique_ptr<Method> method = loadOrDie(argv[2], module);
    size_t ops = method->instructionCount();
    std::vector<double> samples;
    for (int round = 0; round < 31; ++round) {
      uint64_t start = nowNanoseconds();
      for (int i = 0; i < 100; ++i)
        method->execute();
      samples.push_back((nowNanoseconds() - start) / 100.0 / ops);
    }
    double perCall = median(samples), kernel = reluKernelNanos();
    std::printf(
        "overhead: %zu-op program, %.1f ns per instruction, kernel alone "
        "%.1f ns, framework overhead %.1f ns per kernel call\n",
        ops, perCall, kernel, perCall - kernel);
    return 0;
  }
  for (int file = 2; file < argc; ++file) {
    std::vector<double> samples;
    std::unique_ptr<Module> module;
    std::unique_ptr<Method> method;
    if (mode == "run") {
      method = loadOrDie(argv[file], module);
      for (size_t i = 0; i < method->inputCount(); ++i) {
        TensorView &input = method->input(i);
        etch::tools::NpyArray array;
        std::string error;
        if (!inputPath.empty() &&
            etch::tools::readNpy(inputPath, array, error)) {
          if (method->setInput(i, array.type, array.shape.data(),
                               static_cast<int>(array.shape.size()),
                               array.data.data(),
                               array.data.size()) != Error::Ok)
            return 1;
        } else if (input.scalarType() == ScalarType::Float32) {
          std::fill(input.data<float>(), input.data<float>() + input.numel(),
                    0.5f);
        }
      }
      for (int warm = 0; warm < 5; ++warm)
        method->execute();
    }
    for (int round = 0; round < rounds; ++round) {
      uint64_t start = nowNanoseconds();
      if (mode == "load") {
        method = loadOrDie(argv[file], module);
      } else {
        method->execute();
      }
      samples.push_back((nowNanoseconds() - start) / 1e6);
      if (mode == "load") {
        method.reset();
        module.reset();
      }
    }
    std::printf("%s %s: median %.3f ms over %d runs\n", mode.c_str(),
                argv[file], median(samples), rounds);
  }
  return 0;
}
