// Chat template source -> statements. Segmentation applies Jinja's
// whitespace control ("{%-", "-%}") and the trim_blocks / lstrip_blocks
// settings transformers uses; expressions are parsed with Jinja's operator
// precedence.
#include "runtime/llm/chat/JinjaAst.h"

#include <cctype>
#include <cstring>

namespace etch::llm::jinja {

namespace {

struct Segment {
  enum class Kind { Text, Output, Statement } kind;
  std::string text;
  int line;
};

[[noreturn]] void failAt(int line, const std::string &message) {
  fail("chat template line " + std::to_string(line) + ": " + message);
}

/// Where the tag opened at \p pos closes (the position of \p close), string
/// literals skipped; npos when it does not.
size_t findClose(const std::string &source, size_t pos, const char *close) {
  char quote = 0;
  for (size_t i = pos; i < source.size(); ++i) {
    char c = source[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (source.compare(i, 2, close) == 0) {
      return i;
    }
  }
  return std::string::npos;
}

std::vector<Segment> segment(const std::string &source) {
  std::vector<Segment> segments;
  // The line of each tag, counted on as the tags move forward.
  size_t counted = 0;
  int line = 1;
  auto lineAt = [&](size_t pos) {
    for (; counted < pos; ++counted)
      line += source[counted] == '\n';
    return line;
  };
  size_t pos = 0;
  bool stripNext = false, trimNewline = false;
  auto addText = [&](std::string text) {
    if (stripNext) {
      size_t first = text.find_first_not_of(" \t\r\n");
      text.erase(0, first == std::string::npos ? text.size() : first);
    } else if (trimNewline && !text.empty() && text[0] == '\n') {
      text.erase(0, 1);
    } else if (trimNewline && text.compare(0, 2, "\r\n") == 0) {
      text.erase(0, 2);
    }
    stripNext = trimNewline = false;
    if (!text.empty())
      segments.push_back({Segment::Kind::Text, std::move(text), 0});
  };
  while (pos < source.size()) {
    size_t open = source.find('{', pos);
    auto opensTag = [&](size_t at) {
      char next = source[at + 1];
      return next == '{' || next == '%' || next == '#';
    };
    while (open != std::string::npos && open + 1 < source.size() &&
           !opensTag(open))
      open = source.find('{', open + 1);
    if (open == std::string::npos || open + 1 >= source.size()) {
      addText(source.substr(pos));
      break;
    }
    char kind = source[open + 1];
    std::string text = source.substr(pos, open - pos);
    size_t inner = open + 2;
    bool block = kind != '{';
    if (inner < source.size() && source[inner] == '-') {
      size_t last = text.find_last_not_of(" \t\r\n");
      text.erase(last == std::string::npos ? 0 : last + 1);
      ++inner;
    } else if (inner < source.size() && source[inner] == '+') {
      ++inner; // "{%+": no lstrip
    } else if (block) {
      // lstrip_blocks: the spaces and tabs before a block tag that begins
      // its line go.
      size_t before = open;
      while (before > pos &&
             (source[before - 1] == ' ' || source[before - 1] == '\t'))
        --before;
      if (before == 0 || source[before - 1] == '\n')
        text.erase(before - pos);
    }
    addText(std::move(text));
    const char *close = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
    size_t end = findClose(source, inner, close);
    if (end == std::string::npos)
      failAt(lineAt(open),
             std::string("a tag is not closed (no '") + close + "')");
    size_t codeEnd = end;
    bool stripAfter = false, keepNewline = false;
    if (codeEnd > inner && source[codeEnd - 1] == '-') {
      stripAfter = true;
      --codeEnd;
    } else if (codeEnd > inner && source[codeEnd - 1] == '+' && block) {
      keepNewline = true;
      --codeEnd;
    }
    if (kind != '#')
      segments.push_back(
          {kind == '{' ? Segment::Kind::Output : Segment::Kind::Statement,
           source.substr(inner, codeEnd - inner), lineAt(open)});
    stripNext = stripAfter;
    trimNewline = block && !stripAfter && !keepNewline; // trim_blocks
    pos = end + 2;
  }
  return segments;
}

//===--- Expression tokens ---------------------------------------------===//

struct Token {
  enum class Kind { Name, String, Integer, Float, Operator, End } kind;
  std::string text;
  Value value;
};

std::vector<Token> tokenize(const std::string &code, int line) {
  static const char *const kOperators[] = {
      "**", "//", "==", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",",
      ".",  ":",  "|",  "~",  "+",  "-",  "*", "/", "%", "<", ">", "="};
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < code.size()) {
    char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = i;
      while (
          i < code.size() &&
          (std::isalnum(static_cast<unsigned char>(code[i])) || code[i] == '_'))
        ++i;
      tokens.push_back({Token::Kind::Name, code.substr(start, i - start), {}});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = i;
      while (
          i < code.size() &&
          (std::isdigit(static_cast<unsigned char>(code[i])) || code[i] == '_'))
        ++i;
      bool isFloat = false;
      if (i + 1 < code.size() && code[i] == '.' &&
          std::isdigit(static_cast<unsigned char>(code[i + 1]))) {
        isFloat = true;
        ++i;
        while (i < code.size() &&
               std::isdigit(static_cast<unsigned char>(code[i])))
          ++i;
      }
      if (i < code.size() && (code[i] == 'e' || code[i] == 'E')) {
        size_t save = i++;
        if (i < code.size() && (code[i] == '+' || code[i] == '-'))
          ++i;
        if (i < code.size() &&
            std::isdigit(static_cast<unsigned char>(code[i]))) {
          isFloat = true;
          while (i < code.size() &&
                 std::isdigit(static_cast<unsigned char>(code[i])))
            ++i;
        } else {
          i = save;
        }
      }
      std::string text = code.substr(start, i - start);
      std::string digits;
      for (char d : text)
        if (d != '_')
          digits += d;
      tokens.push_back(isFloat
                           ? Token{Token::Kind::Float, text,
                                   Value(std::strtod(digits.c_str(), nullptr))}
                           : Token{Token::Kind::Integer, text,
                                   Value(static_cast<int64_t>(std::strtoll(
                                       digits.c_str(), nullptr, 10)))});
      continue;
    }
    if (c == '\'' || c == '"') {
      std::string text;
      size_t j = i + 1;
      for (; j < code.size() && code[j] != c; ++j) {
        if (code[j] != '\\' || j + 1 >= code.size()) {
          text += code[j];
          continue;
        }
        char escaped = code[++j];
        switch (escaped) {
        case 'n':
          text += '\n';
          break;
        case 't':
          text += '\t';
          break;
        case 'r':
          text += '\r';
          break;
        case '\\':
          text += '\\';
          break;
        case '\'':
          text += '\'';
          break;
        case '"':
          text += '"';
          break;
        case '\n':
          break;
        default:
          text += '\\';
          text += escaped;
        }
      }
      if (j >= code.size())
        failAt(line, "a string literal is not closed");
      tokens.push_back(
          {Token::Kind::String, code.substr(i, j + 1 - i), Value(text)});
      i = j + 1;
      continue;
    }
    bool matched = false;
    for (const char *op : kOperators) {
      size_t length = std::strlen(op);
      if (code.compare(i, length, op) == 0) {
        tokens.push_back({Token::Kind::Operator, op, {}});
        i += length;
        matched = true;
        break;
      }
    }
    if (!matched)
      failAt(line, std::string("unexpected character '") + c + "'");
  }
  tokens.push_back({Token::Kind::End, "", {}});
  return tokens;
}

//===--- Expressions -----------------------------------------------------===//

class ExpressionParser {
public:
  ExpressionParser(std::vector<Token> tokens, int line)
      : tokens_(std::move(tokens)), line_(line) {}

  ExprPtr expression() {
    // Input is a file: bound the recursion rather than the stack.
    if (++depth_ > kMaxDepth)
      error("expressions nested more than 100 deep");
    ExprPtr value = conditional();
    --depth_;
    return value;
  }

  bool atEnd() const { return peek().kind == Token::Kind::End; }
  const Token &peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool isName(const char *name, size_t ahead = 0) const {
    return peek(ahead).kind == Token::Kind::Name && peek(ahead).text == name;
  }
  bool isOperator(const char *op) const {
    return peek().kind == Token::Kind::Operator && peek().text == op;
  }
  bool accept(const char *text) {
    if ((peek().kind == Token::Kind::Operator ||
         peek().kind == Token::Kind::Name) &&
        peek().text == text) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(const char *text) {
    if (!accept(text))
      error(std::string("expected '") + text + "'");
  }
  std::string name() {
    if (peek().kind != Token::Kind::Name)
      error("expected a name");
    return tokens_[pos_++].text;
  }
  [[noreturn]] void error(const std::string &what) const {
    failAt(line_, what + (atEnd() ? " at the end of the tag"
                                  : ", found '" + peek().text + "'"));
  }

private:
  ExprPtr make(Expr::Kind kind) {
    auto expr = std::make_unique<Expr>();
    expr->kind = kind;
    expr->line = line_;
    return expr;
  }
  ExprPtr binary(const std::string &op, ExprPtr left, ExprPtr right) {
    ExprPtr expr = make(Expr::Kind::Binary);
    expr->name = op;
    expr->children.push_back(std::move(left));
    expr->children.push_back(std::move(right));
    return expr;
  }

  ExprPtr conditional() {
    ExprPtr value = orExpression();
    while (accept("if")) {
      ExprPtr expr = make(Expr::Kind::Conditional);
      expr->children.push_back(std::move(value));
      expr->children.push_back(orExpression());
      expr->children.push_back(accept("else") ? conditional() : nullptr);
      value = std::move(expr);
    }
    return value;
  }
  ExprPtr orExpression() {
    ExprPtr left = andExpression();
    while (accept("or"))
      left = binary("or", std::move(left), andExpression());
    return left;
  }
  ExprPtr andExpression() {
    ExprPtr left = notExpression();
    while (accept("and"))
      left = binary("and", std::move(left), notExpression());
    return left;
  }
  ExprPtr notExpression() {
    if (accept("not")) {
      ExprPtr expr = make(Expr::Kind::Not);
      expr->children.push_back(notExpression());
      return expr;
    }
    return comparison();
  }
  ExprPtr comparison() {
    ExprPtr left = sum();
    for (;;) {
      static const char *const kCompare[] = {"==", "!=", "<=", ">=", "<", ">"};
      bool found = false;
      for (const char *op : kCompare)
        if (isOperator(op)) {
          ++pos_;
          left = binary(op, std::move(left), sum());
          found = true;
          break;
        }
      if (found)
        continue;
      if (accept("in")) {
        left = binary("in", std::move(left), sum());
      } else if (isName("not") && isName("in", 1)) {
        pos_ += 2;
        left = binary("not in", std::move(left), sum());
      } else {
        return left;
      }
    }
  }
  ExprPtr sum() {
    ExprPtr left = concat();
    while (isOperator("+") || isOperator("-")) {
      std::string op = tokens_[pos_++].text;
      left = binary(op, std::move(left), concat());
    }
    return left;
  }
  ExprPtr concat() {
    ExprPtr left = product();
    while (accept("~"))
      left = binary("~", std::move(left), product());
    return left;
  }
  ExprPtr product() {
    ExprPtr left = power();
    while (isOperator("*") || isOperator("/") || isOperator("//") ||
           isOperator("%")) {
      std::string op = tokens_[pos_++].text;
      left = binary(op, std::move(left), power());
    }
    return left;
  }
  ExprPtr power() {
    ExprPtr left = unary();
    while (accept("**"))
      left = binary("**", std::move(left), unary());
    return left;
  }
  ExprPtr unary() {
    if (accept("-")) {
      ExprPtr expr = make(Expr::Kind::Negate);
      expr->children.push_back(unary());
      return expr;
    }
    if (accept("+"))
      return unary();
    ExprPtr value = postfix(primary());
    // Filters, then tests: `x|length > 0`, `x is not none`.
    for (;;) {
      if (accept("|")) {
        ExprPtr filter = make(Expr::Kind::Filter);
        filter->name = name();
        while (accept("."))
          filter->name += "." + name();
        filter->children.push_back(std::move(value));
        if (accept("("))
          arguments(*filter);
        value = std::move(filter);
      } else if (accept("is")) {
        ExprPtr test = make(Expr::Kind::Test);
        test->negated = accept("not");
        test->name = peek().kind == Token::Kind::Name ? name() : "";
        if (test->name.empty()) {
          // `is none` spelt with a literal name such as true/false/none.
          error("expected the name of a test");
        }
        test->children.push_back(std::move(value));
        if (accept("(")) {
          arguments(*test);
        } else if (peek().kind == Token::Kind::String ||
                   peek().kind == Token::Kind::Integer ||
                   peek().kind == Token::Kind::Float) {
          test->children.push_back(primary()); // `is divisibleby 3`
        }
        value = std::move(test);
      } else {
        return value;
      }
    }
  }
  /// Call arguments after "(": positional, then name=value.
  void arguments(Expr &call) {
    if (accept(")"))
      return;
    do {
      if (peek().kind == Token::Kind::Name &&
          peek(1).kind == Token::Kind::Operator && peek(1).text == "=") {
        std::string key = name();
        expect("=");
        call.keywords.emplace_back(key, expression());
      } else {
        call.children.push_back(expression());
      }
    } while (accept(",") && !isOperator(")"));
    expect(")");
  }
  ExprPtr postfix(ExprPtr value) {
    for (;;) {
      if (accept(".")) {
        ExprPtr attribute = make(Expr::Kind::Attribute);
        attribute->name =
            peek().kind == Token::Kind::Integer ? tokens_[pos_++].text : name();
        attribute->children.push_back(std::move(value));
        value = std::move(attribute);
      } else if (accept("[")) {
        value = subscript(std::move(value));
      } else if (accept("(")) {
        ExprPtr call = make(Expr::Kind::Call);
        call->children.push_back(std::move(value));
        arguments(*call);
        value = std::move(call);
      } else {
        return value;
      }
    }
  }
  ExprPtr subscript(ExprPtr object) {
    ExprPtr parts[3];
    int index = 0;
    bool isSlice = false;
    while (!isOperator("]")) {
      if (accept(":")) {
        isSlice = true;
        if (++index > 2)
          error("a slice has at most three parts");
        continue;
      }
      parts[index] = expression();
      if (!isOperator(":") && !isOperator("]"))
        error("expected ':' or ']'");
    }
    expect("]");
    if (!isSlice) {
      if (!parts[0])
        error("expected an index");
      ExprPtr item = make(Expr::Kind::Item);
      item->children.push_back(std::move(object));
      item->children.push_back(std::move(parts[0]));
      return item;
    }
    ExprPtr slice = make(Expr::Kind::Slice);
    slice->children.push_back(std::move(object));
    for (ExprPtr &part : parts)
      slice->children.push_back(std::move(part));
    return slice;
  }
  ExprPtr primary() {
    const Token &token = peek();
    switch (token.kind) {
    case Token::Kind::String: {
      // Adjacent string literals join, as in Python.
      std::string text;
      while (peek().kind == Token::Kind::String)
        text += tokens_[pos_++].value.string();
      ExprPtr literal = make(Expr::Kind::Literal);
      literal->literal = Value(text);
      return literal;
    }
    case Token::Kind::Integer:
    case Token::Kind::Float: {
      ExprPtr literal = make(Expr::Kind::Literal);
      literal->literal = tokens_[pos_++].value;
      return literal;
    }
    case Token::Kind::Name: {
      std::string word = tokens_[pos_++].text;
      ExprPtr literal = make(Expr::Kind::Literal);
      if (word == "true" || word == "True")
        literal->literal = Value(true);
      else if (word == "false" || word == "False")
        literal->literal = Value(false);
      else if (word == "none" || word == "None")
        literal->literal = Value::none();
      else {
        ExprPtr nameExpr = make(Expr::Kind::Name);
        nameExpr->name = word;
        return nameExpr;
      }
      return literal;
    }
    case Token::Kind::Operator:
      if (accept("(")) {
        ExprPtr inner = expression();
        if (accept(",")) { // a tuple: a list will do
          ExprPtr list = make(Expr::Kind::ListLiteral);
          list->children.push_back(std::move(inner));
          while (!isOperator(")")) {
            list->children.push_back(expression());
            if (!accept(","))
              break;
          }
          inner = std::move(list);
        }
        expect(")");
        return inner;
      }
      if (accept("[")) {
        ExprPtr list = make(Expr::Kind::ListLiteral);
        while (!isOperator("]")) {
          list->children.push_back(expression());
          if (!accept(","))
            break;
        }
        expect("]");
        return list;
      }
      if (accept("{")) {
        ExprPtr dict = make(Expr::Kind::DictLiteral);
        while (!isOperator("}")) {
          dict->children.push_back(expression());
          expect(":");
          dict->children.push_back(expression());
          if (!accept(","))
            break;
        }
        expect("}");
        return dict;
      }
      break;
    case Token::Kind::End:
      break;
    }
    error("expected a value");
  }

  static constexpr int kMaxDepth = 100;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int line_;
  int depth_ = 0;
};

//===--- Statements ------------------------------------------------------===//

class StatementParser {
public:
  explicit StatementParser(std::vector<Segment> segments)
      : segments_(std::move(segments)) {}

  std::vector<Node> parse() {
    std::string end;
    std::vector<Node> nodes = body({}, end);
    return nodes;
  }

private:
  /// Nodes up to a statement whose keyword is in \p ends (its keyword goes
  /// to \p end, its parser to closer_).
  std::vector<Node> body(const std::vector<const char *> &ends,
                         std::string &end) {
    std::vector<Node> nodes;
    while (pos_ < segments_.size()) {
      Segment &segment = segments_[pos_++];
      if (segment.kind == Segment::Kind::Text) {
        Node node;
        node.kind = Node::Kind::Text;
        node.text = segment.text;
        nodes.push_back(std::move(node));
        continue;
      }
      auto parser = std::make_unique<ExpressionParser>(
          tokenize(segment.text, segment.line), segment.line);
      if (segment.kind == Segment::Kind::Output) {
        Node node;
        node.kind = Node::Kind::Output;
        node.line = segment.line;
        node.expr = parser->expression();
        if (!parser->atEnd())
          parser->error("expected '}}'");
        nodes.push_back(std::move(node));
        continue;
      }
      std::string keyword = parser->name();
      for (const char *candidate : ends)
        if (keyword == candidate) {
          end = keyword;
          closer_ = std::move(parser);
          return nodes;
        }
      nodes.push_back(statement(keyword, *parser, segment.line));
    }
    if (!ends.empty()) {
      std::string expected;
      for (const char *candidate : ends)
        expected +=
            (expected.empty() ? "'" : " or '") + std::string(candidate) + "'";
      failAt(openLine_, "the block is not closed (expected " + expected + ")");
    }
    return nodes;
  }

  Node statement(const std::string &keyword, ExpressionParser &parser,
                 int line) {
    if (++depth_ > 100)
      failAt(line, "blocks nested more than 100 deep");
    Node node;
    node.line = line;
    int outerLine = openLine_;
    openLine_ = line;
    if (keyword == "if") {
      node.kind = Node::Kind::If;
      ExprPtr condition = parser.expression();
      endTag(parser);
      for (;;) {
        std::string end;
        std::vector<Node> branch = body({"elif", "else", "endif"}, end);
        node.branches.emplace_back(std::move(condition), std::move(branch));
        if (end == "endif") {
          endTag(*closer_);
          break;
        }
        if (end == "else") {
          endTag(*closer_);
          std::vector<Node> rest = body({"endif"}, end);
          endTag(*closer_);
          node.branches.emplace_back(nullptr, std::move(rest));
          break;
        }
        condition = closer_->expression(); // elif
        endTag(*closer_);
      }
    } else if (keyword == "for") {
      node.kind = Node::Kind::For;
      node.targets.push_back(parser.name());
      while (parser.accept(","))
        node.targets.push_back(parser.name());
      parser.expect("in");
      node.expr = parser.expression();
      // `for x in xs if cond`: the iterable's conditional expression has no
      // else, which is how Jinja's loop filter reads.
      if (node.expr->kind == Expr::Kind::Conditional &&
          !node.expr->children[2]) {
        node.filter = std::move(node.expr->children[1]);
        node.expr = std::move(node.expr->children[0]);
      }
      parser.accept("recursive");
      endTag(parser);
      std::string end;
      node.body = body({"else", "endfor"}, end);
      endTag(*closer_);
      if (end == "else") {
        node.elseBody = body({"endfor"}, end);
        endTag(*closer_);
      }
    } else if (keyword == "set") {
      node.kind = Node::Kind::Set;
      node.targets.push_back(parser.name());
      if (parser.accept("."))
        node.targets.push_back(parser.name());
      if (!parser.accept("="))
        failAt(line, "block assignments ({% set x %}...{% endset %}) are not "
                     "supported; use {% set x = ... %}");
      node.expr = parser.expression();
      endTag(parser);
    } else if (keyword == "generation") {
      node.kind = Node::Kind::Block;
      endTag(parser);
      std::string end;
      node.body = body({"endgeneration"}, end);
      endTag(*closer_);
    } else if (keyword == "break" || keyword == "continue") {
      node.kind = keyword == "break" ? Node::Kind::Break : Node::Kind::Continue;
      endTag(parser);
    } else {
      failAt(line, "'" + keyword +
                       "' blocks are not supported (etch renders "
                       "if, for, set, break, continue and generation)");
    }
    openLine_ = outerLine;
    --depth_;
    return node;
  }

  void endTag(ExpressionParser &parser) {
    if (!parser.atEnd())
      parser.error("expected '%}'");
  }

  std::vector<Segment> segments_;
  size_t pos_ = 0;
  std::unique_ptr<ExpressionParser> closer_;
  int openLine_ = 0, depth_ = 0;
};

} // namespace

std::vector<Node> parseTemplate(const std::string &source) {
  return StatementParser(segment(source)).parse();
}

} // namespace etch::llm::jinja
