// What an app links for the runtime core (bench/core-size.sh): a program
// file opened, a method loaded, an input set, the method run and an output
// read. The kernel table is a stub here, so no kernel is linked and the
// linked size is the core's alone; built once with the calls
// (ETCH_CORE_CALLS) and once without, the difference is the core.
#include "runtime/kernels/KernelCall.h"
#include "runtime/module/Module.h"

#include <cstdio>

namespace etch::runtime {
const KernelEntry *findKernel(const char *) { return nullptr; }
void prepareKernels(size_t) {}
bool selectiveKernels() { return false; }
} // namespace etch::runtime

int main(int argc, char **argv) {
#ifdef ETCH_CORE_CALLS
  using namespace etch::runtime;
  if (argc < 2)
    return 2;
  Result<std::unique_ptr<Module>> module = Module::open(argv[1]);
  if (!module.ok())
    return 1;
  Result<std::unique_ptr<Method>> method = (*module)->loadMethod();
  if (!method.ok())
    return 1;
  TensorView &input = (*method)->input(0);
  if ((*method)->setInput(0, input.scalarType(), input.sizes(), input.rank(),
                          input.data(), input.nbytes()) != Error::Ok ||
      (*method)->execute() != Error::Ok)
    return 1;
  std::printf("%zu outputs\n", (*method)->outputCount());
#else
  std::printf("%d\n", argc);
#endif
  return 0;
}
