// et-run --dump-intermediates DIR: every value a method computes, as .npy
// files named by instruction and producer node, with an index
// (DIR/index.json) of what each holds.
#pragma once

#include "runtime/executor/Method.h"

#include <string>
#include <vector>

namespace etch::tools {

class IntermediateDump {
public:
  /// Creates \p dir (if needed) and writes the method's inputs there; false
  /// with \p error on failure.
  bool begin(const std::string &dir, const runtime::Method &method,
             std::string &error);
  /// What Method::execute calls after each instruction.
  runtime::Method::InstructionObserver observer() {
    return {&IntermediateDump::after, this};
  }
  /// Writes the index; false with \p error when a file could not be written
  /// (the first such failure), after removing every file the dump wrote.
  bool finish(std::string &error);

private:
  static void after(void *self, const runtime::Method &method,
                    size_t instruction);
  void write(const runtime::TensorView &tensor, const std::string &file,
             std::string entry);

  std::string dir_, index_, error_;
  std::vector<std::string> written_;
  size_t entries_ = 0;
};

} // namespace etch::tools
