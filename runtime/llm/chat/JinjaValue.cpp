#include "runtime/llm/chat/JinjaValue.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace etch::llm::jinja {

void fail(const std::string &message) { throw TemplateError{message}; }

Value Value::none() {
  Value value;
  value.kind_ = Kind::None;
  return value;
}
Value::Value(bool value) : kind_(Kind::Bool), bool_(value) {}
Value::Value(int64_t value) : kind_(Kind::Int), int_(value) {}
Value::Value(double value) : kind_(Kind::Float), float_(value) {}
Value::Value(std::string value)
    : kind_(Kind::String),
      string_(std::make_shared<const std::string>(std::move(value))) {}

Value Value::list(List items) {
  Value value;
  value.kind_ = Kind::List;
  value.list_ = std::make_shared<List>(std::move(items));
  return value;
}

Value Value::dict(Dict items) {
  Value value;
  value.kind_ = Kind::Dict;
  value.dict_ = std::make_shared<Dict>(std::move(items));
  return value;
}

Value Value::function(Function function) {
  Value value;
  value.kind_ = Kind::Function;
  value.function_ = std::make_shared<Function>(std::move(function));
  return value;
}

bool Value::truthy() const {
  switch (kind_) {
  case Kind::Undefined:
  case Kind::None:
    return false;
  case Kind::Bool:
    return bool_;
  case Kind::Int:
    return int_ != 0;
  case Kind::Float:
    return float_ != 0;
  case Kind::String:
    return !string_->empty();
  case Kind::List:
    return !list_->empty();
  case Kind::Dict:
    return !dict_->empty();
  case Kind::Function:
    return true;
  }
  return false;
}

Value *Value::find(const std::string &key) const {
  if (kind_ != Kind::Dict)
    return nullptr;
  for (auto &[name, value] : *dict_)
    if (name == key)
      return &value;
  return nullptr;
}

const char *Value::typeName() const {
  static const char *const kNames[] = {"Undefined", "NoneType", "bool",
                                       "int",       "float",    "str",
                                       "list",      "dict",     "function"};
  return kNames[static_cast<int>(kind_)];
}

std::string formatFloat(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  if (value == 0)
    return std::signbit(value) ? "-0.0" : "0.0";
  // The fewest significant digits that read back as the same double.
  char buffer[40];
  for (int precision = 0; precision <= 16; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*e", precision, std::fabs(value));
    if (std::strtod(buffer, nullptr) == std::fabs(value))
      break;
  }
  std::string text = buffer, digits;
  size_t e = text.find('e');
  for (size_t i = 0; i < e; ++i)
    if (text[i] != '.')
      digits += text[i];
  int exponent = std::atoi(text.c_str() + e + 1);
  int point = exponent + 1; // digits are 0.DIGITS x 10^point
  std::string out = value < 0 ? "-" : "";
  // Python's repr: positional from 1e-4 up to 1e16, else scientific.
  if (point > 16 || point <= -4) {
    out += digits.substr(0, 1);
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "e%c%02d", exponent < 0 ? '-' : '+',
                  std::abs(exponent));
    return out + suffix;
  }
  if (point <= 0)
    return out + "0." + std::string(-point, '0') + digits;
  if (static_cast<size_t>(point) >= digits.size())
    return out + digits + std::string(point - digits.size(), '0') + ".0";
  return out + digits.substr(0, point) + "." + digits.substr(point);
}

namespace {

/// Python's repr of a str: single quotes unless the text has one and no
/// double quote.
std::string quoteRepr(const std::string &text) {
  bool single = text.find('\'') == std::string::npos ||
                text.find('"') != std::string::npos;
  return quotedText(text, single ? '\'' : '"', QuoteStyle::Python);
}

} // namespace

std::string Value::str() const {
  switch (kind_) {
  case Kind::Undefined:
    return "";
  case Kind::String:
    return *string_;
  default:
    return repr();
  }
}

std::string Value::repr() const {
  switch (kind_) {
  case Kind::Undefined:
    return "";
  case Kind::None:
    return "None";
  case Kind::Bool:
    return bool_ ? "True" : "False";
  case Kind::Int:
    return std::to_string(int_);
  case Kind::Float:
    return formatFloat(float_);
  case Kind::String:
    return quoteRepr(*string_);
  case Kind::List: {
    std::string out = "[";
    for (size_t i = 0; i < list_->size(); ++i)
      out += (i ? ", " : "") + (*list_)[i].repr();
    return out + "]";
  }
  case Kind::Dict: {
    std::string out = "{";
    for (size_t i = 0; i < dict_->size(); ++i)
      out += (i ? ", " : "") + quoteRepr((*dict_)[i].first) + ": " +
             (*dict_)[i].second.repr();
    return out + "}";
  }
  case Kind::Function:
    return "<function>";
  }
  return "";
}

void Value::appendJson(std::string &out, int indent, int depth) const {
  auto newline = [&](int level) {
    if (indent < 0)
      return;
    out += '\n';
    out.append(static_cast<size_t>(indent) * level, ' ');
  };
  const char *comma = indent < 0 ? ", " : ",";
  switch (kind_) {
  case Kind::Undefined:
  case Kind::None:
    out += "null";
    return;
  case Kind::Bool:
    out += bool_ ? "true" : "false";
    return;
  case Kind::Int:
    out += std::to_string(int_);
    return;
  case Kind::Float:
    out += std::isnan(float_)   ? "NaN"
           : std::isinf(float_) ? (float_ > 0 ? "Infinity" : "-Infinity")
                                : formatFloat(float_);
    return;
  case Kind::String:
    out += jsonQuoted(*string_);
    return;
  case Kind::List:
    if (list_->empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t i = 0; i < list_->size(); ++i) {
      if (i)
        out += comma;
      newline(depth + 1);
      (*list_)[i].appendJson(out, indent, depth + 1);
    }
    newline(depth);
    out += ']';
    return;
  case Kind::Dict:
    if (dict_->empty()) {
      out += "{}";
      return;
    }
    out += '{';
    for (size_t i = 0; i < dict_->size(); ++i) {
      if (i)
        out += comma;
      newline(depth + 1);
      out += jsonQuoted((*dict_)[i].first);
      out += ": ";
      (*dict_)[i].second.appendJson(out, indent, depth + 1);
    }
    newline(depth);
    out += '}';
    return;
  case Kind::Function:
    fail("Object of type function is not JSON serializable");
  }
}

std::string Value::json(int indent) const {
  std::string out;
  appendJson(out, indent, 0);
  return out;
}

bool Value::operator==(const Value &other) const {
  if (isNumber() && other.isNumber())
    return kind_ == Kind::Int && other.kind_ == Kind::Int
               ? int_ == other.int_
               : number() == other.number();
  if ((kind_ == Kind::Bool || other.kind_ == Kind::Bool) &&
      (isNumber() || other.isNumber())) {
    // Python: True == 1.
    double left = kind_ == Kind::Bool ? bool_ : number();
    double right = other.kind_ == Kind::Bool ? other.bool_ : other.number();
    return left == right;
  }
  if (kind_ != other.kind_)
    return false;
  switch (kind_) {
  case Kind::Undefined:
  case Kind::None:
    return true;
  case Kind::Bool:
    return bool_ == other.bool_;
  case Kind::String:
    return *string_ == *other.string_;
  case Kind::List:
    return *list_ == *other.list_;
  case Kind::Dict:
    if (dict_->size() != other.dict_->size())
      return false;
    for (const auto &[key, value] : *dict_) {
      Value *theirs = other.find(key);
      if (!theirs || *theirs != value)
        return false;
    }
    return true;
  default:
    return false;
  }
}

} // namespace etch::llm::jinja
