//===- FuzzProgram.cpp - Fuzz the program loader and executor -------------===//
//
// Input: a program file (.etp). Loads and verifies it, loads every method
// (kernels validate, delegates initialise), sets every input to zeros and
// executes once.
//
//===----------------------------------------------------------------------===//
#include "FuzzRuntime.h"

#include "runtime/backend/Backend.h"
#include "runtime/executor/Method.h"
#include "runtime/platform/Platform.h"
#include "runtime/program/Program.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace etch::runtime;
namespace schema = etch::schema;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialised = [] {
    etch::fuzz::quietRuntimeLog();
    registerAllBackends();
    return true;
  }();
  (void)initialised;
  // Programs are mmapped in real use: page-aligned.
  etch::fuzz::AlignedBytes copy = etch::fuzz::alignedCopy(data, size);
  Result<Program> program = Program::load(copy.get(), size);
  if (!program.ok())
    return 0;
  for (const schema::Method *entry : *program->flatbuffer().methods()) {
    Result<std::unique_ptr<Method>> method =
        Method::load(*program, entry->name()->c_str(), nullptr,
                     etch::fuzz::fuzzLoadOptions());
    if (!method.ok())
      continue;
    for (size_t i = 0; i < (*method)->inputCount(); ++i) {
      TensorView &input = (*method)->input(i);
      std::memset(input.data(), 0, input.nbytes());
    }
    Error status = (*method)->execute();
    if (etch::fuzz::verbose())
      std::fprintf(stderr, "method '%s' executed: %s\n", entry->name()->c_str(),
                   errorName(status));
  }
  return 0;
}
