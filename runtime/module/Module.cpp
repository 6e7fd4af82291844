#include "runtime/module/Module.h"

#include "runtime/platform/Platform.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace etch::runtime {
namespace {

/// Where a program's weights are by default: the file it was compiled
/// against (its name), beside the program. False when the path is too long.
bool besideProgram(const char *programPath, const char *weightsName, char *path,
                   size_t capacity) {
  if (const char *slash = std::strrchr(weightsName, '/'))
    weightsName = slash + 1;
  const char *slash = std::strrchr(programPath, '/');
  int folder = slash ? static_cast<int>(slash - programPath + 1) : 0;
  int written =
      std::snprintf(path, capacity, "%.*s%s", folder, programPath, weightsName);
  return written >= 0 && static_cast<size_t>(written) < capacity;
}

/// Module::open's weights resolver: the file named in the options, else
/// the one the program was compiled against, beside it; mapped into the
/// module.
struct WeightsLookup {
  const char *programPath;
  const char *weightsPath;
  WeightsMapping *mapping;
  bool failed = false; // resolve said why

  static Result<const WeightsFile *> resolve(void *context,
                                             const char *compiledAgainst) {
    auto &lookup = *static_cast<WeightsLookup *>(context);
    const char *path = lookup.weightsPath;
    char beside[4096];
    if (!path) {
      if (!*compiledAgainst ||
          !besideProgram(lookup.programPath, compiledAgainst, beside,
                         sizeof(beside)) ||
          ::access(beside, R_OK) != 0) {
        ET_LOG(Error,
               "the program keeps its weights in '%s' (et-compile "
               "--external-weights), which is not beside it; name the file "
               "(et-run --weights)",
               compiledAgainst);
        lookup.failed = true;
        return Error::AccessFailed;
      }
      path = beside;
    }
    Result<const WeightsFile *> weights = lookup.mapping->reopen(path);
    lookup.failed = !weights.ok();
    return weights;
  }
};

} // namespace

Result<std::unique_ptr<Module>> Module::open(const char *path,
                                             const LoadOptions &options) {
  Result<MappedFile *> file = mapFile(path, "file");
  if (!file.ok())
    return file.error();
  std::unique_ptr<Module> module(new Module());
  module->file_ = *file;
  module->options_ = options;
  module->options_.weightsPath = nullptr; // only open reads it
  WeightsLookup lookup{path, options.weightsPath, &module->weights_};
  Result<Program> program =
      Program::load(fileData(module->file_), runtime::fileSize(module->file_),
                    {WeightsLookup::resolve, &lookup});
  if (!program.ok()) {
    if (!lookup.failed) // a weights file that would not open said why
      ET_LOG(Error, "%s: not a valid etch program", path);
    return program.error();
  }
  module->program_ = std::make_unique<Program>(std::move(*program));
  return module;
}

Module::~Module() {
  program_.reset();
  releaseFile(file_);
}

size_t Module::fileSize() const { return runtime::fileSize(file_); }

Result<std::unique_ptr<Method>> Module::loadMethod(const char *name,
                                                   SharedState *shared) const {
  return Method::load(*program_, name, shared, options_);
}

} // namespace etch::runtime
