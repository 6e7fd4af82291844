//===- TorchArgument.h - Decoded torch.export node arguments ----*- C++ -*-===//
#ifndef ETCH_LIB_IMPORT_TORCH_TORCHARGUMENT_H
#define ETCH_LIB_IMPORT_TORCH_TORCHARGUMENT_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace etch::torch_import {

/// One `Argument` union of the torch.export schema, decoded. Symbolic ints
/// are resolved through the known symbol values; unknown ones are
/// std::nullopt entries.
struct TorchArgument {
  enum class Kind {
    None,
    Tensor,
    Tensors,
    OptionalTensors,
    Int,
    Ints,
    Float,
    Floats,
    Bool,
    Bools,
    String,
    Strings,
    ScalarType,
    MemoryFormat,
    Layout,
    Device,
    Other
  };
  Kind kind = Kind::Other;
  std::string unionKey;                     // e.g. "as_tensor", for messages
  std::vector<std::string> tensors;         // Tensor(s); "" for None entries
  std::vector<std::optional<int64_t>> ints; // Int(s), ScalarType, symbolic
  /// Per entry of `ints`: the SymInt's name when it named one ("" for
  /// literals), so unknown sizes can be found as values.
  std::vector<std::string> symbolNames;
  std::vector<double> floats;
  std::vector<bool> bools;
  std::vector<std::string> strings;

  bool isTensorLike() const {
    return kind == Kind::Tensor || kind == Kind::Tensors ||
           kind == Kind::OptionalTensors;
  }
  bool isScalar() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  /// A Python scalar's value as ATen's Scalar (bool as 0/1); std::nullopt for
  /// other kinds and for symbolic ints.
  std::optional<double> scalarValue() const {
    if (kind == Kind::Float)
      return floats.front();
    if (kind == Kind::Bool)
      return bools.front() ? 1.0 : 0.0;
    if (kind == Kind::Int && ints.front())
      return static_cast<double>(*ints.front());
    return std::nullopt;
  }
};

/// Decodes \p value (an Argument object). \p symbols maps SymInt names to
/// their value when known. Returns std::nullopt with \p error on malformed
/// input.
std::optional<TorchArgument>
decodeArgument(const llvm::json::Value &value,
               const llvm::StringMap<std::optional<int64_t>> &symbols,
               std::string &error);

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_TORCHARGUMENT_H
