// Convenience API: open a program file (and its external weights), load a
// method, run it.
#pragma once

#include "runtime/executor/Method.h"
#include "runtime/module/MappedFile.h"
#include "runtime/program/Program.h"
#include "runtime/program/WeightsFile.h"

#include <memory>

namespace etch::runtime {

class Module {
public:
  /// Maps \p path read-only (weights stay in the page cache, not copied)
  /// and verifies it. A program compiled with external weights maps
  /// \p options.weightsPath, or when that is null the file it was compiled
  /// against beside the program; a weights file is mapped once however
  /// many programs use it (WeightsMapping). Every method the module loads
  /// gets \p options (threads, profiling, memory limit).
  static Result<std::unique_ptr<Module>> open(const char *path,
                                              const LoadOptions &options = {});
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const Program &program() const { return *program_; }
  /// With \p shared, the method's state buffers (KV caches) are the ones
  /// of the same names that other methods loaded with it use (prefill and
  /// decode of one sequence); without, its own.
  Result<std::unique_ptr<Method>>
  loadMethod(const char *name = "forward", SharedState *shared = nullptr) const;
  size_t fileSize() const;
  /// The external weights the program uses; null when it has none.
  const WeightsFile *weights() const { return weights_.get(); }

private:
  Module() = default;
  MappedFile *file_ = nullptr;
  LoadOptions options_;
  WeightsMapping weights_;
  std::unique_ptr<Program> program_;
};

} // namespace etch::runtime
