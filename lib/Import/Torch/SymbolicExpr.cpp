#include "SymbolicExpr.h"

#include <algorithm>
#include <cctype>

namespace etch::torch_import {
namespace {

class Parser {
public:
  Parser(llvm::StringRef text, std::string &error)
      : text(text), error(error) {}

  std::unique_ptr<SymbolicExpr> expression(int depth = 0) {
    skipSpaces();
    if (depth > 64)
      return fail("expression nested too deeply");
    auto expr = std::make_unique<SymbolicExpr>();
    if (position < text.size() &&
        (text[position] == '-' || std::isdigit(text[position]))) {
      expr->op = "Integer";
      if (!integer(expr->value))
        return fail("bad integer");
      return expr;
    }
    size_t start = position;
    while (position < text.size() &&
           (std::isalnum(text[position]) || text[position] == '_'))
      ++position;
    expr->op = text.slice(start, position).str();
    skipSpaces();
    if (expr->op.empty() || !consume('('))
      return fail("expected a function name and '('");
    if (expr->op == "Symbol") {
      skipSpaces();
      char quote = position < text.size() ? text[position] : 0;
      if (quote != '\'' && quote != '"')
        return fail("expected a quoted symbol name");
      size_t end = text.find(quote, position + 1);
      if (end == llvm::StringRef::npos)
        return fail("unterminated symbol name");
      expr->name = text.slice(position + 1, end).str();
      position = end + 1;
      // positive=True, integer=True, ...: assumptions, not values.
      int nesting = 1;
      while (position < text.size() && nesting > 0) {
        nesting += text[position] == '(';
        nesting -= text[position] == ')';
        ++position;
      }
      return nesting == 0 ? std::move(expr) : fail("unterminated Symbol");
    }
    if (expr->op == "Integer") {
      skipSpaces();
      if (!integer(expr->value))
        return fail("bad Integer");
      skipSpaces();
      return consume(')') ? std::move(expr) : fail("expected ')'");
    }
    skipSpaces();
    if (consume(')'))
      return expr;
    while (true) {
      std::unique_ptr<SymbolicExpr> operand = expression(depth + 1);
      if (!operand)
        return nullptr;
      expr->operands.push_back(std::move(operand));
      skipSpaces();
      if (consume(')'))
        return expr;
      if (!consume(','))
        return fail("expected ',' or ')'");
    }
  }

  bool atEnd() {
    skipSpaces();
    return position == text.size();
  }

private:
  std::unique_ptr<SymbolicExpr> fail(const std::string &what) {
    if (error.empty())
      error = what + " at character " + std::to_string(position);
    return nullptr;
  }
  void skipSpaces() {
    while (position < text.size() && std::isspace(text[position]))
      ++position;
  }
  bool consume(char c) {
    if (position < text.size() && text[position] == c) {
      ++position;
      return true;
    }
    return false;
  }
  bool integer(int64_t &out) {
    size_t start = position;
    if (position < text.size() && text[position] == '-')
      ++position;
    while (position < text.size() && std::isdigit(text[position]))
      ++position;
    return !text.slice(start, position).getAsInteger(10, out);
  }

  llvm::StringRef text;
  std::string &error;
  size_t position = 0;
};

/// Floor division and modulo as Python (and sympy's FloorDiv/Mod) define
/// them; std::nullopt for a zero divisor or overflow.
std::optional<int64_t> floorDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1))
    return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

/// sympy's str() form, as older exports write it: "s0", "2*s0 + 1",
/// "(s0//2)", "Max(1, s0)".
class InfixParser {
public:
  InfixParser(llvm::StringRef text, std::string &error)
      : text(text), error(error) {}

  std::unique_ptr<SymbolicExpr> sum(int depth = 0) {
    if (depth > 64)
      return fail("expression nested too deeply");
    std::unique_ptr<SymbolicExpr> lhs = product(depth);
    while (lhs) {
      skipSpaces();
      bool minus = peek('-');
      if (!minus && !peek('+'))
        break;
      ++position;
      std::unique_ptr<SymbolicExpr> rhs = product(depth);
      if (!rhs)
        return nullptr;
      if (minus)
        rhs = node("Mul", integer(-1), std::move(rhs));
      lhs = node("Add", std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  bool atEnd() {
    skipSpaces();
    return position == text.size();
  }

private:
  std::unique_ptr<SymbolicExpr> product(int depth) {
    std::unique_ptr<SymbolicExpr> lhs = factor(depth);
    while (lhs) {
      skipSpaces();
      std::string op;
      if (text.substr(position).starts_with("//"))
        op = "FloorDiv";
      else if (peek('*'))
        op = "Mul";
      else if (peek('%'))
        op = "Mod";
      else
        break;
      position += op == "FloorDiv" ? 2 : 1;
      std::unique_ptr<SymbolicExpr> rhs = factor(depth);
      if (!rhs)
        return nullptr;
      lhs = node(op, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  std::unique_ptr<SymbolicExpr> factor(int depth) {
    skipSpaces();
    if (peek('-')) {
      ++position;
      std::unique_ptr<SymbolicExpr> operand = factor(depth + 1);
      return operand ? node("Mul", integer(-1), std::move(operand)) : nullptr;
    }
    if (peek('(')) {
      ++position;
      std::unique_ptr<SymbolicExpr> inner = sum(depth + 1);
      skipSpaces();
      if (!inner || !peek(')'))
        return inner ? fail("expected ')'") : nullptr;
      ++position;
      return inner;
    }
    size_t start = position;
    if (position < text.size() && std::isdigit(text[position])) {
      while (position < text.size() && std::isdigit(text[position]))
        ++position;
      int64_t value;
      if (text.slice(start, position).getAsInteger(10, value))
        return fail("bad integer");
      return integer(value);
    }
    while (position < text.size() &&
           (std::isalnum(text[position]) || text[position] == '_'))
      ++position;
    if (start == position)
      return fail("expected a number, a symbol or '('");
    auto expr = std::make_unique<SymbolicExpr>();
    llvm::StringRef word = text.slice(start, position);
    skipSpaces();
    if (!peek('(')) {
      expr->op = "Symbol";
      expr->name = word.str();
      return expr;
    }
    expr->op = word.str(); // Max(...), Min(...)
    ++position;
    while (true) {
      std::unique_ptr<SymbolicExpr> operand = sum(depth + 1);
      if (!operand)
        return nullptr;
      expr->operands.push_back(std::move(operand));
      skipSpaces();
      if (peek(')')) {
        ++position;
        return expr;
      }
      if (!peek(','))
        return fail("expected ',' or ')'");
      ++position;
    }
  }

  static std::unique_ptr<SymbolicExpr> integer(int64_t value) {
    auto expr = std::make_unique<SymbolicExpr>();
    expr->op = "Integer";
    expr->value = value;
    return expr;
  }
  static std::unique_ptr<SymbolicExpr> node(const std::string &op,
                                            std::unique_ptr<SymbolicExpr> a,
                                            std::unique_ptr<SymbolicExpr> b) {
    auto expr = std::make_unique<SymbolicExpr>();
    expr->op = op;
    expr->operands.push_back(std::move(a));
    expr->operands.push_back(std::move(b));
    return expr;
  }
  bool peek(char c) const {
    return position < text.size() && text[position] == c;
  }
  void skipSpaces() {
    while (position < text.size() && std::isspace(text[position]))
      ++position;
  }
  std::unique_ptr<SymbolicExpr> fail(const std::string &what) {
    if (error.empty())
      error = what + " at character " + std::to_string(position);
    return nullptr;
  }

  llvm::StringRef text;
  std::string &error;
  size_t position = 0;
};

/// srepr text starts with a constructor: "Symbol(", "Mul(", "Integer(".
bool isSrepr(llvm::StringRef text) {
  text = text.ltrim();
  size_t name = 0;
  while (name < text.size() && std::isalpha(text[name]))
    ++name;
  return name > 0 && std::isupper(text[0]) && name < text.size() &&
         text[name] == '(' && text.substr(0, name) != "Max" &&
         text.substr(0, name) != "Min";
}

} // namespace

SymbolicExpr::~SymbolicExpr() = default;

std::unique_ptr<SymbolicExpr> SymbolicExpr::parse(llvm::StringRef text,
                                                  std::string &error) {
  std::unique_ptr<SymbolicExpr> expr;
  bool atEnd;
  if (isSrepr(text)) {
    Parser parser(text, error);
    expr = parser.expression();
    atEnd = parser.atEnd();
  } else {
    InfixParser parser(text, error);
    expr = parser.sum();
    atEnd = parser.atEnd();
  }
  if (expr && !atEnd) {
    error = "unexpected text after the expression";
    return nullptr;
  }
  return expr;
}

std::optional<int64_t>
SymbolicExpr::evaluate(const llvm::StringMap<int64_t> &symbols) const {
  if (op == "Symbol") {
    auto it = symbols.find(name);
    return it == symbols.end() ? std::nullopt
                               : std::optional<int64_t>(it->second);
  }
  if (op == "Integer")
    return value;
  std::vector<int64_t> values;
  for (const auto &operand : operands) {
    std::optional<int64_t> v = operand->evaluate(symbols);
    if (!v)
      return std::nullopt;
    values.push_back(*v);
  }
  auto binary = [&]() { return values.size() == 2; };
  if ((op == "Add" || op == "Mul") && !values.empty()) {
    int64_t result = op == "Add" ? 0 : 1;
    for (int64_t v : values)
      if (op == "Add" ? __builtin_add_overflow(result, v, &result)
                      : __builtin_mul_overflow(result, v, &result))
        return std::nullopt;
    return result;
  }
  if ((op == "FloorDiv" || op == "IntTrueDiv" || op == "CleanDiv") &&
      binary())
    return floorDiv(values[0], values[1]);
  if (op == "CeilDiv" && binary() && values[1] != 0) {
    std::optional<int64_t> q = floorDiv(values[0] + values[1] - 1, values[1]);
    return q;
  }
  if ((op == "Mod" || op == "PythonMod") && binary()) {
    std::optional<int64_t> q = floorDiv(values[0], values[1]);
    return q ? std::optional<int64_t>(values[0] - *q * values[1])
             : std::nullopt;
  }
  if ((op == "Max" || op == "Min") && !values.empty())
    return op == "Max" ? *std::max_element(values.begin(), values.end())
                       : *std::min_element(values.begin(), values.end());
  if (op == "Pow" && binary() && values[1] >= 0 && values[1] < 64) {
    int64_t result = 1;
    for (int64_t i = 0; i < values[1]; ++i)
      if (__builtin_mul_overflow(result, values[0], &result))
        return std::nullopt;
    return result;
  }
  if ((op == "Abs") && values.size() == 1 && values[0] != INT64_MIN)
    return values[0] < 0 ? -values[0] : values[0];
  return std::nullopt; // an expression etch does not evaluate
}

void SymbolicExpr::collectSymbols(std::vector<std::string> &names) const {
  if (op == "Symbol" &&
      std::find(names.begin(), names.end(), name) == names.end())
    names.push_back(name);
  for (const auto &operand : operands)
    operand->collectSymbols(names);
}

std::optional<std::string> SymbolicExpr::asSymbol() const {
  return op == "Symbol" ? std::optional<std::string>(name) : std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>>
boundsOf(const SymbolicExpr &expr, const llvm::StringMap<SymbolRange> &ranges,
         std::string &error) {
  std::vector<std::string> names;
  expr.collectSymbols(names);
  if (names.size() > 12) {
    error = "a size depends on more than 12 symbols";
    return std::nullopt;
  }
  for (const std::string &name : names)
    if (!ranges.count(name)) {
      error = "symbol '" + name + "' has no range";
      return std::nullopt;
    }
  std::optional<std::pair<int64_t, int64_t>> bounds;
  for (uint32_t corner = 0; corner < (1u << names.size()); ++corner) {
    llvm::StringMap<int64_t> values;
    for (size_t i = 0; i < names.size(); ++i) {
      const SymbolRange &range = ranges.find(names[i])->second;
      values[names[i]] = corner & (1u << i) ? range.max : range.min;
    }
    std::optional<int64_t> value = expr.evaluate(values);
    if (!value) {
      error = "a size expression etch cannot evaluate";
      return std::nullopt;
    }
    bounds = bounds ? std::make_pair(std::min(bounds->first, *value),
                                     std::max(bounds->second, *value))
                    : std::make_pair(*value, *value);
  }
  return bounds;
}

} // namespace etch::torch_import
