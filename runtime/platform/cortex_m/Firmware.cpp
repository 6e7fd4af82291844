// The example program on a microcontroller: loads the program from the
// image (no file system), runs its method on the bundled input with arenas
// from a static pool (the platform allocation hook: no heap for them), and
// prints the output's rel-L2 against torch's expected output over
// semihosting. Exit status 0 when it is within 1e-4.
#include "runtime/executor/Method.h"
#include "runtime/platform/Platform.h"
#include "runtime/program/Program.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

// FirmwareData.cpp (scripts/cortex-m.sh writes it).
extern const uint8_t kProgram[];
extern const size_t kProgramSize;
extern const float kInput[], kExpected[];
extern const size_t kInputCount, kExpectedCount;

using namespace etch::runtime;

namespace {

#ifndef ETCH_ARENA_POOL_BYTES
#define ETCH_ARENA_POOL_BYTES (256 * 1024)
#endif
alignas(64) uint8_t arenaPool[ETCH_ARENA_POOL_BYTES];
size_t poolUsed = 0;

void *allocateArena(size_t size, size_t alignment) {
  size_t start = (poolUsed + alignment - 1) / alignment * alignment;
  if (start > sizeof(arenaPool) || size > sizeof(arenaPool) - start)
    return nullptr;
  poolUsed = start + size;
  return arenaPool + start;
}
void keepArena(void *) {} // the pool lives as long as the firmware
void logLine(LogLevel, const char *, int, const char *message) {
  std::printf("etch: %s\n", message);
}
uint64_t noClock() { return 0; }
void stop() { std::exit(2); }

int fail(const char *what, Error error) {
  std::printf("%s (%s)\n", what, errorName(error));
  return 1;
}

} // namespace

int main() {
  setPlatformHooks({logLine, noClock, stop, allocateArena, keepArena});
  Result<Program> program = Program::load(kProgram, kProgramSize);
  if (!program.ok())
    return fail("cannot load the program", program.error());
  Result<std::unique_ptr<Method>> method = Method::load(*program, "forward");
  if (!method.ok())
    return fail("cannot load method 'forward'", method.error());
  Method &forward = **method;
  const TensorView &input = forward.input(0);
  if (forward.inputCount() != 1 || input.scalarType() != ScalarType::Float32 ||
      static_cast<size_t>(input.numel()) != kInputCount)
    return fail("the bundled input does not fit input 0", Error::InvalidShape);
  Error status =
      forward.setInput(0, ScalarType::Float32, input.sizes(), input.rank(),
                       kInput, kInputCount * sizeof(float));
  if (status == Error::Ok)
    status = forward.execute();
  if (status != Error::Ok)
    return fail("execute failed", status);
  const TensorView &output = forward.output(0);
  if (output.scalarType() != ScalarType::Float32 ||
      static_cast<size_t>(output.numel()) != kExpectedCount)
    return fail("output 0 is not the expected output's shape",
                Error::InvalidShape);
  double error = 0, norm = 0;
  for (size_t i = 0; i < kExpectedCount; ++i) {
    double difference = output.data<float>()[i] - kExpected[i];
    error += difference * difference;
    norm += double(kExpected[i]) * kExpected[i];
  }
  double relL2 = std::sqrt(error / (norm > 0 ? norm : 1));
  std::printf("rel-L2 %.3g\n", relL2);
  // newlib's printf has no %zu.
  std::printf("program %lu bytes, arenas %lu bytes (of a %lu-byte pool)\n",
              static_cast<unsigned long>(kProgramSize),
              static_cast<unsigned long>(forward.arenaBytes()),
              static_cast<unsigned long>(sizeof(arenaPool)));
  return relL2 <= 1e-4 ? 0 : 1;
}
