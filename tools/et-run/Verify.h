// et-run --verify: runs the test cases et-compile --bundle stored in a
// program and compares each output with the case's expected one.
#pragma once

#include "runtime/module/Module.h"

#include <string>

namespace etch::tools {

struct VerifyTolerance {
  double rtol = 1e-4,
         atol = 1e-5; // |actual - expected| <= atol + rtol*|expected|
};

/// Runs every bundled case of \p module, printing one line per case and a
/// summary; 0 when all pass, 1 when any fails or the program has none.
/// \p runtimeError: the runtime's last logged error (": cause" or "").
int verifyBundledCases(runtime::Module &module, const std::string &path,
                       VerifyTolerance tolerance,
                       std::string (*runtimeError)());

} // namespace etch::tools
