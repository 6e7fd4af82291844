// Convenience API: open a program file, load a method, run it.
#pragma once

#include "runtime/executor/Method.h"
#include "runtime/program/Program.h"

#include <memory>

namespace etch::runtime {

class Module {
public:
  /// Maps \p path read-only (weights stay in the page cache, not copied)
  /// and verifies it.
  static Result<std::unique_ptr<Module>> open(const char *path);
  ~Module();

  const Program &program() const { return *program_; }
  Result<std::unique_ptr<Method>>
  loadMethod(const char *name = "forward") const;
  size_t fileSize() const { return size_; }

private:
  Module() = default;
  void *mapping_ = nullptr;
  size_t size_ = 0;
  std::unique_ptr<Program> program_;
};

} // namespace etch::runtime
