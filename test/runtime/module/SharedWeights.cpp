//===- SharedWeights.cpp - Programs loaded together share their weights ---===//
//
//   etch-shared-weights weights.etw program.etp...
//
// Opens every program with the one weights file, all alive at once, and
// runs each on zeros: prints whether they share one verified mapping of the
// file (the same WeightsFile) and each program's status.
//
//===----------------------------------------------------------------------===//
#include "runtime/module/Module.h"

#include <cstdio>
#include <cstring>
#include <vector>

using namespace etch::runtime;

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: etch-shared-weights weights.etw program.etp...\n");
    return 2;
  }
  registerAllBackends();
  std::vector<std::unique_ptr<Module>> modules;
  for (int i = 2; i < argc; ++i) {
    LoadOptions options;
    options.weightsPath = argv[1];
    Result<std::unique_ptr<Module>> module = Module::open(argv[i], options);
    if (!module.ok()) {
      std::printf("%s: cannot load (%s)\n", argv[i], errorName(module.error()));
      return 1;
    }
    modules.push_back(std::move(*module));
  }
  bool shared = true;
  for (const std::unique_ptr<Module> &module : modules)
    shared = shared && module->weights() &&
             module->weights() == modules.front()->weights();
  std::printf("weights shared: %s (%zu entries, %zu bytes)\n",
              shared ? "yes" : "no", modules.front()->weights()->entryCount(),
              modules.front()->weights()->fileSize());
  for (size_t i = 0; i < modules.size(); ++i) {
    Result<std::unique_ptr<Method>> method = modules[i]->loadMethod("forward");
    if (!method.ok())
      return 1;
    for (size_t input = 0; input < (*method)->inputCount(); ++input)
      std::memset((*method)->input(input).data(), 0,
                  (*method)->input(input).nbytes());
    std::printf("%s: %s\n", argv[i + 2], errorName((*method)->execute()));
  }
  return shared ? 0 : 1;
}
