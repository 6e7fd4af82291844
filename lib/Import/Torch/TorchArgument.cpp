#include "TorchArgument.h"

#include <limits>

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace etch::torch_import {

namespace {
using Kind = TorchArgument::Kind;

std::optional<std::string> tensorName(const Value &value) {
  const Object *object = value.getAsObject();
  if (!object)
    return std::nullopt;
  if (auto name = object->getString("name"))
    return name->str();
  return std::nullopt;
}

/// A JSON number, or the strings torch writes for non-finite floats.
std::optional<double> jsonNumber(const Value &value) {
  if (std::optional<double> number = value.getAsNumber())
    return number;
  std::optional<llvm::StringRef> text = value.getAsString();
  if (!text)
    return std::nullopt;
  if (*text == "Infinity" || *text == "inf")
    return std::numeric_limits<double>::infinity();
  if (*text == "-Infinity" || *text == "-inf")
    return -std::numeric_limits<double>::infinity();
  if (*text == "NaN" || *text == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

/// A SymIntArgument ({as_name} or {as_int}) or a plain int.
bool symInt(const Value &value,
            const llvm::StringMap<std::optional<int64_t>> &symbols,
            std::optional<int64_t> &out, std::string &symbolName,
            std::string &error) {
  symbolName.clear();
  if (auto integer = value.getAsInteger()) {
    out = *integer;
    return true;
  }
  const Object *object = value.getAsObject();
  if (!object) {
    error = "malformed symbolic int";
    return false;
  }
  if (auto integer = object->getInteger("as_int")) {
    out = *integer;
    return true;
  }
  if (auto name = object->getString("as_name")) {
    auto it = symbols.find(*name);
    if (it == symbols.end()) {
      error = "symbolic int '" + name->str() + "' is not defined";
      return false;
    }
    out = it->second;
    symbolName = name->str();
    return true;
  }
  error = "malformed symbolic int";
  return false;
}
} // namespace

std::optional<TorchArgument>
decodeArgument(const Value &value,
               const llvm::StringMap<std::optional<int64_t>> &symbols,
               std::string &error) {
  const Object *object = value.getAsObject();
  if (!object || object->empty()) {
    error = "argument is not a one-key object";
    return std::nullopt;
  }
  // The union is an object with one key; torch ignores unknown extra fields
  // in other objects, so take the first key that holds a known kind.
  TorchArgument arg;
  for (const auto &[key, payload] : *object) {
    llvm::StringRef k = key;
    arg.unionKey = k.str();
    const Array *list = payload.getAsArray();
    if (k == "as_none") {
      arg.kind = Kind::None;
    } else if (k == "as_tensor" || k == "as_optional_tensor") {
      const Value *tensor = &payload;
      if (k == "as_optional_tensor") {
        const Object *optional = payload.getAsObject();
        if (optional && optional->get("as_none")) {
          arg.kind = Kind::None;
          return arg;
        }
        tensor = optional ? optional->get("as_tensor") : nullptr;
      }
      std::optional<std::string> name =
          tensor ? tensorName(*tensor) : std::nullopt;
      if (!name) {
        error = "malformed " + arg.unionKey;
        return std::nullopt;
      }
      arg.kind = Kind::Tensor;
      arg.tensors.push_back(*name);
    } else if ((k == "as_tensors" || k == "as_optional_tensors") && list) {
      arg.kind = k == "as_tensors" ? Kind::Tensors : Kind::OptionalTensors;
      for (const Value &item : *list) {
        const Object *entry = item.getAsObject();
        if (entry && entry->get("as_none")) {
          arg.tensors.push_back("");
          continue;
        }
        const Value *tensor =
            entry && entry->get("as_tensor") ? entry->get("as_tensor") : &item;
        std::optional<std::string> name = tensorName(*tensor);
        if (!name) {
          error = "malformed " + arg.unionKey;
          return std::nullopt;
        }
        arg.tensors.push_back(*name);
      }
    } else if (k == "as_int" || k == "as_sym_int" || k == "as_scalar_type" ||
               k == "as_memory_format" || k == "as_layout") {
      arg.kind = k == "as_scalar_type"     ? Kind::ScalarType
                 : k == "as_memory_format" ? Kind::MemoryFormat
                 : k == "as_layout"        ? Kind::Layout
                                           : Kind::Int;
      std::optional<int64_t> integer;
      std::string symbolName;
      if (!symInt(payload, symbols, integer, symbolName, error))
        return std::nullopt;
      arg.ints.push_back(integer);
      arg.symbolNames.push_back(symbolName);
    } else if ((k == "as_ints" || k == "as_sym_ints") && list) {
      arg.kind = Kind::Ints;
      for (const Value &item : *list) {
        std::optional<int64_t> integer;
        std::string symbolName;
        if (!symInt(item, symbols, integer, symbolName, error))
          return std::nullopt;
        arg.ints.push_back(integer);
        arg.symbolNames.push_back(symbolName);
      }
    } else if (k == "as_float" || k == "as_sym_float") {
      std::optional<double> real = jsonNumber(payload);
      if (!real)
        if (const Object *sym = payload.getAsObject())
          if (const Value *inner = sym->get("as_float"))
            real = jsonNumber(*inner);
      if (!real) {
        error = "malformed " + arg.unionKey;
        return std::nullopt;
      }
      arg.kind = Kind::Float;
      arg.floats.push_back(*real);
    } else if ((k == "as_floats" || k == "as_sym_floats") && list) {
      arg.kind = Kind::Floats;
      for (const Value &item : *list) {
        std::optional<double> real = jsonNumber(item);
        if (!real && item.getAsObject())
          if (const Value *inner = item.getAsObject()->get("as_float"))
            real = jsonNumber(*inner);
        if (!real) {
          error = "malformed " + arg.unionKey;
          return std::nullopt;
        }
        arg.floats.push_back(*real);
      }
    } else if (k == "as_bool" || k == "as_sym_bool") {
      std::optional<bool> flag = payload.getAsBoolean();
      if (!flag && payload.getAsObject())
        flag = payload.getAsObject()->getBoolean("as_bool");
      // A symbolic bool (a comparison of sizes): known, or an error.
      std::optional<llvm::StringRef> symbol =
          payload.getAsObject() ? payload.getAsObject()->getString("as_name")
                                : std::nullopt;
      if (!flag && symbol) {
        auto it = symbols.find(*symbol);
        if (it == symbols.end() || !it->second) {
          error = "symbolic bool '" + symbol->str() +
                  (it == symbols.end() ? "' is not defined"
                                       : "' is known only at run time");
          return std::nullopt;
        }
        flag = *it->second != 0;
      }
      if (!flag) {
        error = "malformed " + arg.unionKey;
        return std::nullopt;
      }
      arg.kind = Kind::Bool;
      arg.bools.push_back(*flag);
    } else if ((k == "as_bools" || k == "as_sym_bools") && list) {
      arg.kind = Kind::Bools;
      for (const Value &item : *list) {
        std::optional<bool> flag = item.getAsBoolean();
        if (!flag) {
          error = "malformed " + arg.unionKey;
          return std::nullopt;
        }
        arg.bools.push_back(*flag);
      }
    } else if (k == "as_string" || k == "as_strings") {
      arg.kind = k == "as_string" ? Kind::String : Kind::Strings;
      if (auto text = payload.getAsString())
        arg.strings.push_back(text->str());
      else if (list)
        for (const Value &item : *list)
          arg.strings.push_back(item.getAsString().value_or("").str());
    } else if (k == "as_device") {
      arg.kind = Kind::Device;
    } else {
      arg.kind = Kind::Other;
    }
    return arg;
  }
  return arg;
}

} // namespace etch::torch_import
