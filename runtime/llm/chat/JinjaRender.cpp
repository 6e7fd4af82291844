// Runs parsed chat templates: scopes as Jinja has them (a for loop's body
// is one; `set` inside it stays there, which is why templates use
// namespace()), the loop variable, Python's operators and truthiness.
#include "runtime/llm/chat/JinjaRender.h"

#include "runtime/llm/chat/JinjaBuiltins.h"

#include <cmath>
#include <optional>

namespace etch::llm::jinja {

namespace {

class Renderer {
public:
  explicit Renderer(Dict variables) { scopes_.push_back(std::move(variables)); }

  /// What a statement asks of the loop around it.
  enum class Flow { Next, Break, Continue };

  Flow run(const std::vector<Node> &nodes, std::string &out) {
    for (const Node &node : nodes)
      if (Flow flow = runNode(node, out); flow != Flow::Next)
        return flow;
    return Flow::Next;
  }

private:
  [[noreturn]] void failAt(int line, const std::string &message) {
    fail("chat template line " + std::to_string(line) + ": " + message);
  }
  /// Python's integer arithmetic in int64: floor division and modulo, and
  /// an error where Python's unbounded integers would leave int64 (the
  /// template comes from a file: never undefined behaviour). nullopt for
  /// the operators that give floats (/, negative **).
  std::optional<Value> integerArithmetic(int line, const std::string &op,
                                         int64_t x, int64_t y) {
    int64_t result = 0;
    bool overflow = false;
    if (op == "+") {
      overflow = __builtin_add_overflow(x, y, &result);
    } else if (op == "-") {
      overflow = __builtin_sub_overflow(x, y, &result);
    } else if (op == "*") {
      overflow = __builtin_mul_overflow(x, y, &result);
    } else if (op == "//" || op == "%") {
      if (y == -1) { // x / -1 overflows for INT64_MIN; x % -1 is 0
        overflow = op == "//" && __builtin_sub_overflow(int64_t(0), x, &result);
        if (op == "%")
          result = 0;
      } else {
        int64_t q = x / y, r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) {
          --q;
          r += y;
        }
        result = op == "//" ? q : r;
      }
    } else if (op == "**" && y >= 0) {
      // By squaring: a huge exponent of 1 or -1 takes 63 steps, not y.
      result = 1;
      for (int64_t base = x, e = y; e > 0 && !overflow; e >>= 1) {
        if (e & 1)
          overflow = __builtin_mul_overflow(result, base, &result);
        if (e > 1 && !overflow)
          overflow = __builtin_mul_overflow(base, base, &base);
      }
    } else {
      return std::nullopt;
    }
    if (overflow)
      failAt(line, "integer overflow in " + std::to_string(x) + " " + op + " " +
                       std::to_string(y));
    return Value(result);
  }

  Flow runNode(const Node &node, std::string &out) {
    switch (node.kind) {
    case Node::Kind::Text:
      out += node.text;
      return Flow::Next;
    case Node::Kind::Output: {
      Value value = eval(*node.expr);
      if (value.is(Value::Kind::Function))
        failAt(node.line, "a function was printed (a call's parentheses are "
                          "missing?)");
      out += value.str();
      return Flow::Next;
    }
    case Node::Kind::If:
      for (const auto &[condition, body] : node.branches)
        if (!condition || eval(*condition).truthy())
          return run(body, out);
      return Flow::Next;
    case Node::Kind::For:
      runFor(node, out);
      return Flow::Next;
    case Node::Kind::Set:
      runSet(node);
      return Flow::Next;
    case Node::Kind::Block:
      return run(node.body, out);
    case Node::Kind::Break:
      return Flow::Break;
    case Node::Kind::Continue:
      return Flow::Continue;
    }
    return Flow::Next;
  }

  void runSet(const Node &node) {
    Value value = eval(*node.expr);
    if (node.targets.size() == 1) {
      assign(scopes_.back(), node.targets[0], value);
      return;
    }
    Value target = lookup(node.targets[0]);
    if (!target.is(Value::Kind::Dict))
      failAt(node.line, "cannot set '" + node.targets[1] + "' on '" +
                            node.targets[0] + "' (not a namespace)");
    assign(target.entries(), node.targets[1], value);
  }

  static void assign(Dict &scope, const std::string &name, Value value) {
    for (auto &[key, existing] : scope)
      if (key == name) {
        existing = std::move(value);
        return;
      }
    scope.emplace_back(name, std::move(value));
  }

  void runFor(const Node &node, std::string &out) {
    List items;
    scopes_.emplace_back();
    for (const Value &element : iterate(eval(*node.expr))) {
      bind(node, element);
      if (!node.filter || eval(*node.filter).truthy())
        items.push_back(element);
    }
    int64_t count = static_cast<int64_t>(items.size());
    for (int64_t i = 0; i < count; ++i) {
      // Templates come from files: bound the work one may ask for.
      if (++iterations_ > kMaxIterations || out.size() > kMaxOutput)
        failAt(node.line, "the template renders too much (over a million "
                          "loop steps or 64 MiB)");
      bind(node, items[i]);
      assign(
          scopes_.back(), "loop",
          Value::dict({{"index", Value(i + 1)},
                       {"index0", Value(i)},
                       {"revindex", Value(count - i)},
                       {"revindex0", Value(count - i - 1)},
                       {"first", Value(i == 0)},
                       {"last", Value(i == count - 1)},
                       {"length", Value(count)},
                       {"previtem", i > 0 ? items[i - 1] : Value()},
                       {"nextitem", i + 1 < count ? items[i + 1] : Value()}}));
      if (run(node.body, out) == Flow::Break)
        break;
    }
    scopes_.pop_back();
    if (count == 0)
      run(node.elseBody, out);
  }

  /// The loop variables for one element (unpacked for `for a, b in ...`).
  void bind(const Node &node, const Value &element) {
    if (node.targets.size() == 1) {
      assign(scopes_.back(), node.targets[0], element);
      return;
    }
    List parts = iterate(element);
    if (parts.size() != node.targets.size())
      failAt(node.line, "cannot unpack " + std::to_string(parts.size()) +
                            " values into " +
                            std::to_string(node.targets.size()) + " names");
    for (size_t i = 0; i < parts.size(); ++i)
      assign(scopes_.back(), node.targets[i], parts[i]);
  }

  Value lookup(const std::string &name) {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
      for (const auto &[key, value] : *scope)
        if (key == name)
          return value;
    return globalFunction(name);
  }

  Value eval(const Expr &expr) {
    switch (expr.kind) {
    case Expr::Kind::Literal:
      return expr.literal;
    case Expr::Kind::Name:
      return lookup(expr.name);
    case Expr::Kind::ListLiteral: {
      List items;
      for (const ExprPtr &child : expr.children)
        items.push_back(eval(*child));
      return Value::list(items);
    }
    case Expr::Kind::DictLiteral: {
      Dict entries;
      for (size_t i = 0; i + 1 < expr.children.size(); i += 2) {
        Value key = eval(*expr.children[i]);
        if (!key.is(Value::Kind::String))
          failAt(expr.line, "dict keys must be strings here");
        assign(entries, key.string(), eval(*expr.children[i + 1]));
      }
      return Value::dict(entries);
    }
    case Expr::Kind::Attribute:
      return attribute(eval(*expr.children[0]), expr.name);
    case Expr::Kind::Item:
      return item(eval(*expr.children[0]), eval(*expr.children[1]));
    case Expr::Kind::Slice: {
      auto part = [&](size_t i) {
        return expr.children[i] ? eval(*expr.children[i]) : Value();
      };
      return slice(eval(*expr.children[0]), part(1), part(2), part(3));
    }
    case Expr::Kind::Call: {
      Value callee = eval(*expr.children[0]);
      if (!callee.is(Value::Kind::Function))
        failAt(expr.line, std::string("'") + callee.typeName() +
                              "' object is not callable");
      Arguments args;
      KeywordArguments keywords;
      collect(expr, 1, args, keywords);
      return callee.callable()(args, keywords);
    }
    case Expr::Kind::Filter: {
      Value input = eval(*expr.children[0]);
      Arguments args;
      KeywordArguments keywords;
      collect(expr, 1, args, keywords);
      return applyFilter(expr.name, input, args, keywords);
    }
    case Expr::Kind::Test: {
      Value input = eval(*expr.children[0]);
      Arguments args;
      KeywordArguments keywords;
      collect(expr, 1, args, keywords);
      return Value(applyTest(expr.name, input, args) != expr.negated);
    }
    case Expr::Kind::Not:
      return Value(!eval(*expr.children[0]).truthy());
    case Expr::Kind::Negate: {
      Value value = eval(*expr.children[0]);
      if (value.is(Value::Kind::Int))
        return Value(-value.integer());
      if (value.is(Value::Kind::Float))
        return Value(-value.number());
      failAt(expr.line, std::string("bad operand type for unary -: '") +
                            value.typeName() + "'");
    }
    case Expr::Kind::Binary:
      return binary(expr);
    case Expr::Kind::Conditional:
      if (eval(*expr.children[1]).truthy())
        return eval(*expr.children[0]);
      return expr.children[2] ? eval(*expr.children[2]) : Value();
    }
    return Value();
  }

  void collect(const Expr &expr, size_t first, Arguments &args,
               KeywordArguments &keywords) {
    for (size_t i = first; i < expr.children.size(); ++i)
      args.push_back(eval(*expr.children[i]));
    for (const auto &[name, value] : expr.keywords)
      keywords.emplace_back(name, eval(*value));
  }

  Value binary(const Expr &expr) {
    const std::string &op = expr.name;
    Value left = eval(*expr.children[0]);
    if (op == "and")
      return left.truthy() ? eval(*expr.children[1]) : left;
    if (op == "or")
      return left.truthy() ? left : eval(*expr.children[1]);
    Value right = eval(*expr.children[1]);
    if (op == "==")
      return Value(left == right);
    if (op == "!=")
      return Value(left != right);
    if (op == "in")
      return Value(contains(right, left));
    if (op == "not in")
      return Value(!contains(right, left));
    if (op == "~")
      return Value(left.str() + right.str());
    if (op == "<" || op == ">" || op == "<=" || op == ">=")
      return Value(compare(expr, left, right));
    return arithmetic(expr, left, right);
  }

  bool compare(const Expr &expr, const Value &left, const Value &right) {
    const std::string &op = expr.name;
    int order;
    if (left.isNumber() && right.isNumber())
      order =
          left.number() < right.number() ? -1 : left.number() > right.number();
    else if (left.is(Value::Kind::String) && right.is(Value::Kind::String))
      order = left.string().compare(right.string());
    else
      failAt(expr.line, "'" + op + "' not supported between '" +
                            left.typeName() + "' and '" + right.typeName() +
                            "'");
    return op == "<"    ? order < 0
           : op == ">"  ? order > 0
           : op == "<=" ? order <= 0
                        : order >= 0;
  }

  Value arithmetic(const Expr &expr, const Value &left, const Value &right) {
    const std::string &op = expr.name;
    if (op == "+" && left.is(Value::Kind::String) &&
        right.is(Value::Kind::String))
      return Value(left.string() + right.string());
    if (op == "+" && left.is(Value::Kind::List) &&
        right.is(Value::Kind::List)) {
      List joined = left.items();
      joined.insert(joined.end(), right.items().begin(), right.items().end());
      return Value::list(joined);
    }
    if (op == "*" && left.is(Value::Kind::Int) &&
        (right.is(Value::Kind::String) || right.is(Value::Kind::List)))
      return arithmetic(expr, right, left); // 3 * 'ab' is 'ab' * 3
    if (op == "*" &&
        (left.is(Value::Kind::String) || left.is(Value::Kind::List)) &&
        right.is(Value::Kind::Int)) {
      int64_t times = std::max<int64_t>(0, right.integer());
      if (times > 100000)
        failAt(expr.line, "a repetition too long for a chat template");
      if (left.is(Value::Kind::String)) {
        std::string out;
        for (int64_t i = 0; i < times; ++i)
          out += left.string();
        return Value(out);
      }
      List out;
      for (int64_t i = 0; i < times; ++i)
        out.insert(out.end(), left.items().begin(), left.items().end());
      return Value::list(out);
    }
    if (!left.isNumber() || !right.isNumber())
      failAt(expr.line, "unsupported operand types for " + op + ": '" +
                            left.typeName() + "' and '" + right.typeName() +
                            "'");
    bool integers = left.is(Value::Kind::Int) && right.is(Value::Kind::Int);
    double a = left.number(), b = right.number();
    if ((op == "/" || op == "//" || op == "%") && b == 0)
      failAt(expr.line, "division by zero");
    if (integers)
      if (std::optional<Value> exact =
              integerArithmetic(expr.line, op, left.integer(), right.integer()))
        return *exact;
    if (op == "+")
      return Value(a + b);
    if (op == "-")
      return Value(a - b);
    if (op == "*")
      return Value(a * b);
    if (op == "/")
      return Value(a / b);
    if (op == "//")
      return Value(std::floor(a / b));
    if (op == "%")
      return Value(a - b * std::floor(a / b));
    if (op == "**")
      return Value(std::pow(a, b));
    failAt(expr.line, "unknown operator '" + op + "'");
  }

  static constexpr int64_t kMaxIterations = 1000000;
  static constexpr size_t kMaxOutput = 64u << 20;
  std::vector<Dict> scopes_;
  int64_t iterations_ = 0;
};

} // namespace

std::string renderTemplate(const std::vector<Node> &nodes, Dict variables) {
  std::string out;
  Renderer renderer(std::move(variables));
  renderer.run(nodes, out);
  return out;
}

} // namespace etch::llm::jinja
