// The values a chat template computes with, as Jinja (on Python) has them:
// undefined, None, booleans, integers, floats, strings, lists, dicts (in
// insertion order) and callables. Lists and dicts are shared, as Python
// objects are, so `namespace()` attributes and `list.append` can change them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace etch::llm::jinja {

class Value;
using List = std::vector<Value>;
using Dict = std::vector<std::pair<std::string, Value>>;
using Arguments = std::vector<Value>;
using KeywordArguments = std::vector<std::pair<std::string, Value>>;
using Function =
    std::function<Value(const Arguments &, const KeywordArguments &)>;

/// What a template reports when it cannot render: raise_exception(), an
/// unknown filter, a type error. Caught by ChatTemplate::render.
struct TemplateError {
  std::string message;
};
[[noreturn]] void fail(const std::string &message);

class Value {
public:
  enum class Kind {
    Undefined,
    None,
    Bool,
    Int,
    Float,
    String,
    List,
    Dict,
    Function
  };

  Value() = default; // undefined
  static Value none();
  Value(bool value);
  Value(int64_t value);
  Value(int value) : Value(static_cast<int64_t>(value)) {}
  Value(double value);
  Value(std::string value);
  Value(const char *value) : Value(std::string(value)) {}
  static Value list(List items = {});
  static Value dict(Dict items = {});
  static Value function(Function function);

  Kind kind() const { return kind_; }
  bool is(Kind kind) const { return kind_ == kind; }
  bool isNumber() const { return kind_ == Kind::Int || kind_ == Kind::Float; }
  /// Python truthiness (undefined is false).
  bool truthy() const;

  bool boolean() const { return bool_; }
  int64_t integer() const { return int_; }
  double number() const {
    return kind_ == Kind::Int ? static_cast<double>(int_) : float_;
  }
  const std::string &string() const { return *string_; }
  List &items() const { return *list_; }
  Dict &entries() const { return *dict_; }
  const Function &callable() const { return *function_; }

  /// The dict entry \p key, or null.
  Value *find(const std::string &key) const;

  /// str(value) as a template prints it ("" for undefined).
  std::string str() const;
  /// repr(value), as Python prints list and dict elements.
  std::string repr() const;
  /// json.dumps(value, ensure_ascii=False, indent=indent) (indent < 0: none).
  std::string json(int indent = -1) const;

  /// Python ==.
  bool operator==(const Value &other) const;
  bool operator!=(const Value &other) const { return !(*this == other); }

  /// The type name Python would give, for messages.
  const char *typeName() const;

private:
  void appendJson(std::string &out, int indent, int depth) const;

  Kind kind_ = Kind::Undefined;
  bool bool_ = false;
  int64_t int_ = 0;
  double float_ = 0;
  std::shared_ptr<const std::string> string_;
  std::shared_ptr<List> list_;
  std::shared_ptr<Dict> dict_;
  std::shared_ptr<Function> function_;
};

/// Python's str(float): the shortest repr that reads back the same.
std::string formatFloat(double value);

} // namespace etch::llm::jinja
