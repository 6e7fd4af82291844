//===- ReplayMain.cpp - Run a fuzz target on files, without libFuzzer -----===//
//
// Builds every fuzz target as a plain program in builds without libFuzzer
// (gcc): `etch-fuzz-X file...` runs each file once and prints what the
// loaders said, so found inputs stay regression tests everywhere.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char **argv) {
  etch::fuzz::setVerbose(true);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s input...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i], std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "%s: cannot open file\n", argv[i]);
      return 2;
    }
    std::string bytes((std::istreambuf_iterator<char>(file)),
                      std::istreambuf_iterator<char>());
    std::fprintf(stderr, "== %s\n", argv[i]);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  return 0;
}
