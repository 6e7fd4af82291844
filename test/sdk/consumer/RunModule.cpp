// The C++ runtime from an installed SDK: runs method "forward" of PROGRAM
// on INPUT.raw (input 0's bytes) and writes output 0's bytes to OUTPUT.raw.
//   run-module PROGRAM INPUT.raw OUTPUT.raw
#include "runtime/backend/Backend.h"
#include "runtime/module/Module.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

using namespace etch::runtime;

static int fail(const char *what, Error error) {
  std::fprintf(stderr, "run-module: %s: %s\n", what, errorName(error));
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: run-module PROGRAM INPUT.raw OUTPUT.raw\n");
    return 2;
  }
  registerAllBackends();
  Result<std::unique_ptr<Module>> module = Module::open(argv[1]);
  if (!module.ok())
    return fail(argv[1], module.error());
  Result<std::unique_ptr<Method>> method = (*module)->loadMethod("forward");
  if (!method.ok())
    return fail("forward", method.error());
  Method &forward = **method;

  std::ifstream input(argv[2], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(input)), {});
  const TensorView &expected = forward.input(0);
  if (Error error =
          forward.setInput(0, expected.scalarType(), expected.sizes(),
                           expected.rank(), bytes.data(), bytes.size());
      error != Error::Ok)
    return fail("input 0", error);
  if (Error error = forward.execute(); error != Error::Ok)
    return fail("execute", error);

  const TensorView &output = forward.output(0);
  std::ofstream(argv[3], std::ios::binary)
      .write(static_cast<const char *>(output.data()),
             static_cast<std::streamsize>(output.nbytes()));
  std::printf("run-module: %zu inputs, %zu outputs, output 0 holds %zu bytes\n",
              forward.inputCount(), forward.outputCount(), output.nbytes());
  return 0;
}
