//===- ThreadCountReload.cpp - Methods loaded with other thread counts ----===//
//
//   etch-thread-count-reload program.etp
//
// Loads the method with 2 threads (LoadOptions), loads it again from a
// second module with 1 thread, then runs
// the first and the second on the same random input: both must succeed and
// agree. (A delegate that shared one thread pool per process used to destroy
// the first pool when the second load asked for another size.)
//
//===----------------------------------------------------------------------===//
#include "runtime/module/Module.h"

#include <cstdio>
#include <cstring>
#include <random>

using namespace etch::runtime;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: etch-thread-count-reload program.etp\n");
    return 2;
  }
  registerAllBackends();
  LoadOptions two, one;
  two.threads = 2;
  one.threads = 1;
  Result<std::unique_ptr<Module>> twoThreads = Module::open(argv[1], two);
  Result<std::unique_ptr<Module>> oneThread = Module::open(argv[1], one);
  if (!twoThreads.ok() || !oneThread.ok())
    return 1;
  Result<std::unique_ptr<Method>> first = (*twoThreads)->loadMethod("forward");
  Result<std::unique_ptr<Method>> second = (*oneThread)->loadMethod("forward");
  if (!first.ok() || !second.ok())
    return 1;
  std::mt19937 generator(0);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (size_t i = 0; i < (*first)->inputCount(); ++i) {
    TensorView &a = (*first)->input(i), &b = (*second)->input(i);
    if (a.scalarType() == ScalarType::Float32)
      for (int64_t e = 0; e < a.numel(); ++e)
        a.data<float>()[e] = uniform(generator);
    else
      std::memset(a.data(), 0, a.nbytes());
    std::memcpy(b.data(), a.data(), a.nbytes());
  }
  for (Method *method : {first->get(), second->get()})
    if (method->execute() != Error::Ok)
      return 1;
  for (size_t i = 0; i < (*first)->outputCount(); ++i) {
    const TensorView &a = (*first)->output(i), &b = (*second)->output(i);
    if (a.nbytes() != b.nbytes() ||
        std::memcmp(a.data(), b.data(), a.nbytes()) != 0) {
      std::printf("output %zu differs between the two loads\n", i);
      return 1;
    }
  }
  std::printf("both loads ran and agree\n");
  return 0;
}
