// Text et-run writes in more than one place: JSON strings and shapes.
#pragma once

#include "runtime/core/Tensor.h"
#include "runtime/llm/QuotedText.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace etch::tools {

using llm::jsonQuoted;

/// Whether the instruction named \p name (Method::instructionName) is a
/// delegate call: kernel calls are named by their Edge op.
inline bool isDelegateCall(const char *name) {
  return std::strncmp(name, "edge.", 5) != 0;
}

/// "[1, 3, 32, 32]" (also a JSON list).
inline std::string shapeText(const runtime::TensorView &tensor) {
  std::string text = "[";
  for (int d = 0; d < tensor.rank(); ++d)
    text += (d ? ", " : "") + std::to_string(tensor.size(d));
  return text + "]";
}

} // namespace etch::tools
