// Text et-run writes in more than one place: JSON strings and shapes.
#pragma once

#include "runtime/core/Tensor.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace etch::tools {

/// \p text as a JSON string literal.
inline std::string jsonQuoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", byte);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

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
