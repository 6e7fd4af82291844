// The parsed form of a chat template: statements (text, output, if, for,
// set) holding expressions, as Jinja's parser builds them.
#pragma once

#include "runtime/llm/chat/JinjaValue.h"

#include <memory>
#include <string>
#include <vector>

namespace etch::llm::jinja {

struct Expr {
  enum class Kind {
    Literal,     // literal
    Name,        // name
    ListLiteral, // children: items
    DictLiteral, // children: key, value, key, value, ...
    Attribute,   // children: object; name: the attribute
    Item,        // children: object, index
    Slice,       // children: object, start, stop, step (each may be null)
    Call,        // children: callee, arguments...; keywords
    Filter,      // children: input, arguments...; name; keywords
    Test,        // children: input, arguments...; name; negated
    Not,         // children: operand
    Negate,      // children: operand
    Binary,      // children: left, right; name: the operator
    Conditional, // children: then, condition, else (may be null)
  };
  Kind kind;
  Value literal;
  std::string name;
  std::vector<std::unique_ptr<Expr>> children;
  std::vector<std::pair<std::string, std::unique_ptr<Expr>>> keywords;
  bool negated = false;
  int line = 0;
};
using ExprPtr = std::unique_ptr<Expr>;

struct Node {
  enum class Kind {
    Text,     // text
    Output,   // expr
    If,       // branches (a null condition: else)
    For,      // targets, expr (the iterable), filter, body, elseBody
    Set,      // targets (a name, or namespace and attribute), expr
    Block,    // body ({% generation %}: rendered as it is)
    Break,    // {% break %} (jinja2.ext.loopcontrols, which transformers loads)
    Continue, // {% continue %}
  };
  Kind kind;
  std::string text;
  ExprPtr expr, filter;
  std::vector<std::string> targets;
  std::vector<std::pair<ExprPtr, std::vector<Node>>> branches;
  std::vector<Node> body, elseBody;
  int line = 0;
};

/// Parses \p source with the settings transformers renders chat templates
/// with (trim_blocks, lstrip_blocks). Throws TemplateError naming the line.
std::vector<Node> parseTemplate(const std::string &source);

} // namespace etch::llm::jinja
