//===- ReplayMain.cpp - Run a fuzz target on files, without libFuzzer -----===//
//
// Builds every fuzz target as a plain program in builds without libFuzzer
// (gcc): `etch-fuzz-X file...` runs each file once and prints what the
// loaders said, so found inputs stay regression tests everywhere.
// `-timeout=N` fails an input that runs longer than N seconds, as
// libFuzzer's flag of that name does.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char **argv) {
  etch::fuzz::setVerbose(true);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s input...\n", argv[0]);
    return 2;
  }
  double timeoutSeconds = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "-timeout=", 9) == 0) {
      timeoutSeconds = std::atof(argv[i] + 9);
      continue;
    }
    if (argv[i][0] == '-') {
      std::fprintf(stderr, "%s: unknown flag (only -timeout=N)\n", argv[i]);
      return 2;
    }
    std::ifstream file(argv[i], std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "%s: cannot open file\n", argv[i]);
      return 2;
    }
    std::string bytes((std::istreambuf_iterator<char>(file)),
                      std::istreambuf_iterator<char>());
    std::fprintf(stderr, "== %s\n", argv[i]);
    auto start = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
    std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    if (timeoutSeconds > 0 && took.count() > timeoutSeconds) {
      std::fprintf(stderr, "%s: took %.1f s, over the %g s timeout\n", argv[i],
                   took.count(), timeoutSeconds);
      return 1;
    }
  }
  return 0;
}
