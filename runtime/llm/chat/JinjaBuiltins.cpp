// The filters, tests and globals chat templates call.
#include "runtime/llm/chat/JinjaBuiltins.h"
#include "runtime/llm/chat/JinjaStrings.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace etch::llm::jinja {

namespace {

/// The value of attribute path \p path ("a.b") of \p value.
Value attributePath(const Value &value, const std::string &path) {
  Value current = value;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t dot = path.find('.', pos);
    std::string part =
        path.substr(pos, dot == std::string::npos ? dot : dot - pos);
    current = item(current, Value(part));
    if (dot == std::string::npos)
      break;
    pos = dot + 1;
  }
  return current;
}

/// selectattr / rejectattr: items whose attribute passes the test (or is
/// truthy without one).
Value selectByAttribute(const Value &input, const Arguments &args, bool keep) {
  if (args.empty())
    fail("selectattr/rejectattr need an attribute name");
  const std::string &path = needString(args[0], "selectattr");
  List out;
  for (const Value &element : iterate(input)) {
    Value field = attributePath(element, path);
    bool passes = args.size() > 1
                      ? applyTest(needString(args[1], "selectattr"), field,
                                  Arguments(args.begin() + 2, args.end()))
                      : field.truthy();
    if (passes == keep)
      out.push_back(element);
  }
  return Value::list(out);
}

using Filter = Value (*)(const Value &input, const Arguments &,
                         const KeywordArguments &);

const std::pair<const char *, Filter> kFilters[] =
    {
        {"trim",
         [](const Value &v, const Arguments &a, const KeywordArguments &k) {
           return Value(strip(needString(v, "trim"), argument(a, k, 0, "chars"),
                              true, true));
         }},
        {"length", [](const Value &v, const Arguments &,
                      const KeywordArguments &) { return Value(length(v)); }},
        {"count", [](const Value &v, const Arguments &,
                     const KeywordArguments &) { return Value(length(v)); }},
        {"upper",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           return Value(upper(v.str()));
         }},
        {"lower",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           return Value(lower(v.str()));
         }},
        {"title",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           return Value(title(v.str()));
         }},
        {"capitalize",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           return Value(capitalize(v.str()));
         }},
        {"string", [](const Value &v, const Arguments &,
                      const KeywordArguments &) { return Value(v.str()); }},
        {"safe", [](const Value &v, const Arguments &,
                    const KeywordArguments &) { return v; }},
        {"tojson",
         [](const Value &v, const Arguments &a, const KeywordArguments &k) {
           Value indent = argument(a, k, 0, "indent", Value::none());
           return Value(v.json(indent.is(Value::Kind::None)
                                   ? -1
                                   : needInteger(indent, "tojson")));
         }},
        {"default",
         [](const Value &v, const Arguments &a, const KeywordArguments &k) {
           bool boolean = argument(a, k, 1, "boolean", Value(false)).truthy();
           bool missing =
               v.is(Value::Kind::Undefined) || (boolean && !v.truthy());
           return missing ? argument(a, k, 0, "default_value", Value("")) : v;
         }},
        {"first",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           List items = iterate(v);
           return items.empty() ? Value() : items.front();
         }},
        {"last",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           List items = iterate(v);
           return items.empty() ? Value() : items.back();
         }},
        {"join",
         [](const Value &v, const Arguments &a, const KeywordArguments &k) {
           std::string separator = argument(a, k, 0, "d", Value("")).str();
           Value attributeName = argument(a, k, 1, "attribute");
           std::string out;
           List items = iterate(v);
           for (size_t i = 0; i < items.size(); ++i) {
             Value element =
                 attributeName.is(Value::Kind::String)
                     ? attributePath(items[i], attributeName.string())
                     : items[i];
             out += (i ? separator : "") + element.str();
           }
           return Value(out);
         }},
        {"replace",
         [](const Value &v, const Arguments &a, const KeywordArguments &k) {
           return Value(replace(
               v.str(), argument(a, k, 0, "old").str(),
               argument(a, k, 1, "new").str(),
               needInteger(argument(a, k, 2, "count", Value(-1)), "replace")));
         }},
        {"list",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           return Value::list(iterate(v));
         }},
        {"reverse",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           if (v.is(Value::Kind::String)) {
             std::vector<std::string> chars = characters(v.string());
             std::string out;
             for (auto it = chars.rbegin(); it != chars.rend(); ++it)
               out += *it;
             return Value(out);
           }
           List items = iterate(v);
           std::reverse(items.begin(), items.end());
           return Value::list(items);
         }},
        {"items",
         [](const Value &v, const Arguments &a, const KeywordArguments &k) {
           if (!v.is(Value::Kind::Dict))
             fail("items expects a dict");
           return attribute(v, "items").callable()(a, k);
         }},
        {"int",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           if (v.is(Value::Kind::Float))
             return Value(static_cast<int64_t>(v.number()));
           if (v.is(Value::Kind::String)) {
             char *end = nullptr;
             long long parsed = std::strtoll(v.string().c_str(), &end, 10);
             return Value(static_cast<int64_t>(*end ? 0 : parsed));
           }
           return Value(v.is(Value::Kind::Int)
                            ? v.integer()
                            : static_cast<int64_t>(v.truthy()));
         }},
        {"float",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           if (v.is(Value::Kind::String))
             return Value(std::strtod(v.string().c_str(), nullptr));
           return Value(v.isNumber() ? v.number() : 0.0);
         }},
        {"abs",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           if (v.is(Value::Kind::Int))
             return Value(v.integer() < 0 ? -v.integer() : v.integer());
           if (!v.isNumber())
             fail("abs expects a number");
           return Value(std::fabs(v.number()));
         }},
        {"round",
         [](const Value &v, const Arguments &a, const KeywordArguments &k) {
           if (!v.isNumber())
             fail("round expects a number");
           double scale = std::pow(
               10.0,
               needInteger(argument(a, k, 0, "precision", Value(0)), "round"));
           return Value(std::round(v.number() * scale) / scale);
         }},
        {"selectattr",
         [](const Value &v, const Arguments &a, const KeywordArguments &) {
           return selectByAttribute(v, a, true);
         }},
        {"rejectattr",
         [](const Value &v, const Arguments &a, const KeywordArguments &) {
           return selectByAttribute(v, a, false);
         }},
        {"map",
         [](const Value &v, const Arguments &a, const KeywordArguments &k) {
           Value attributeName = argument(Arguments{}, k, 0, "attribute");
           List out;
           for (const Value &element : iterate(v)) {
             if (attributeName.is(Value::Kind::String))
               out.push_back(attributePath(element, attributeName.string()));
             else if (!a.empty())
               out.push_back(applyFilter(needString(a[0], "map"), element,
                                         Arguments(a.begin() + 1, a.end()),
                                         {}));
             else
               fail("map needs a filter name or attribute=");
           }
           return Value::list(out);
         }},
        {"unique",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           List out;
           for (const Value &element : iterate(v))
             if (std::find(out.begin(), out.end(), element) == out.end())
               out.push_back(element);
           return Value::list(out);
         }},
        {"escape",
         [](const Value &v, const Arguments &, const KeywordArguments &) {
           std::string out;
           for (char c : v.str()) {
             switch (c) {
             case '&':
               out += "&amp;";
               break;
             case '<':
               out += "&lt;";
               break;
             case '>':
               out += "&gt;";
               break;
             case '"':
               out += "&#34;";
               break;
             case '\'':
               out += "&#39;";
               break;
             default:
               out += c;
             }
           }
           return Value(out);
         }},
};

using Test = bool (*)(const Value &input, const Arguments &);

const std::pair<const char *, Test> kTests[] = {
    {"defined",
     [](const Value &v, const Arguments &) {
       return !v.is(Value::Kind::Undefined);
     }},
    {"undefined",
     [](const Value &v, const Arguments &) {
       return v.is(Value::Kind::Undefined);
     }},
    {"none",
     [](const Value &v, const Arguments &) { return v.is(Value::Kind::None); }},
    {"string", [](const Value &v,
                  const Arguments &) { return v.is(Value::Kind::String); }},
    {"number", [](const Value &v, const Arguments &) { return v.isNumber(); }},
    {"integer",
     [](const Value &v, const Arguments &) { return v.is(Value::Kind::Int); }},
    {"float", [](const Value &v,
                 const Arguments &) { return v.is(Value::Kind::Float); }},
    {"boolean",
     [](const Value &v, const Arguments &) { return v.is(Value::Kind::Bool); }},
    {"true",
     [](const Value &v, const Arguments &) {
       return v.is(Value::Kind::Bool) && v.boolean();
     }},
    {"false",
     [](const Value &v, const Arguments &) {
       return v.is(Value::Kind::Bool) && !v.boolean();
     }},
    {"mapping",
     [](const Value &v, const Arguments &) { return v.is(Value::Kind::Dict); }},
    {"sequence",
     [](const Value &v, const Arguments &) {
       return v.is(Value::Kind::List) || v.is(Value::Kind::String) ||
              v.is(Value::Kind::Dict);
     }},
    {"iterable",
     [](const Value &v, const Arguments &) {
       return v.is(Value::Kind::List) || v.is(Value::Kind::String) ||
              v.is(Value::Kind::Dict);
     }},
    {"callable", [](const Value &v,
                    const Arguments &) { return v.is(Value::Kind::Function); }},
    {"odd", [](const Value &v,
               const Arguments &) { return needInteger(v, "odd") % 2 != 0; }},
    {"even", [](const Value &v,
                const Arguments &) { return needInteger(v, "even") % 2 == 0; }},
    {"divisibleby",
     [](const Value &v, const Arguments &a) {
       int64_t divisor = a.empty() ? 0 : needInteger(a[0], "divisibleby");
       return divisor != 0 && needInteger(v, "divisibleby") % divisor == 0;
     }},
    {"equalto", [](const Value &v,
                   const Arguments &a) { return !a.empty() && v == a[0]; }},
    {"eq", [](const Value &v,
              const Arguments &a) { return !a.empty() && v == a[0]; }},
    {"==", [](const Value &v,
              const Arguments &a) { return !a.empty() && v == a[0]; }},
    {"ne", [](const Value &v,
              const Arguments &a) { return !a.empty() && v != a[0]; }},
    {"!=", [](const Value &v,
              const Arguments &a) { return !a.empty() && v != a[0]; }},
    {"in", [](const Value &v,
              const Arguments &a) { return !a.empty() && contains(a[0], v); }},
    {"lower",
     [](const Value &v, const Arguments &) {
       return v.is(Value::Kind::String) && lower(v.string()) == v.string();
     }},
    {"upper",
     [](const Value &v, const Arguments &) {
       return v.is(Value::Kind::String) && upper(v.string()) == v.string();
     }},
};

} // namespace

Value applyFilter(const std::string &name, const Value &input,
                  const Arguments &args, const KeywordArguments &keywords) {
  std::string canonical = name == "d"   ? "default"
                          : name == "e" ? "escape"
                                        : name;
  for (const auto &[filterName, filter] : kFilters)
    if (canonical == filterName)
      return filter(input, args, keywords);
  fail("no filter named '" + name + "'");
}

bool applyTest(const std::string &name, const Value &input,
               const Arguments &args) {
  for (const auto &[testName, test] : kTests)
    if (name == testName)
      return test(input, args);
  fail("no test named '" + name + "'");
}

Value globalFunction(const std::string &name) {
  if (name == "raise_exception")
    return Value::function(
        [](const Arguments &a, const KeywordArguments &k) -> Value {
          fail(argument(a, k, 0, "message", Value("")).str());
        });
  if (name == "range")
    return Value::function([](const Arguments &a, const KeywordArguments &) {
      int64_t start = 0, stop = 0, step = 1;
      if (a.size() == 1) {
        stop = needInteger(a[0], "range");
      } else if (a.size() >= 2) {
        start = needInteger(a[0], "range");
        stop = needInteger(a[1], "range");
        if (a.size() > 2)
          step = needInteger(a[2], "range");
      }
      if (step == 0)
        fail("range() arg 3 must not be zero");
      List out;
      for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
        out.push_back(Value(i));
        if (out.size() > 100000)
          fail("range() is too long for a chat template");
      }
      return Value::list(out);
    });
  if (name == "namespace" || name == "dict")
    return Value::function([](const Arguments &a, const KeywordArguments &k) {
      Dict entries;
      if (!a.empty() && a[0].is(Value::Kind::Dict))
        entries = a[0].entries();
      for (const auto &[key, value] : k)
        entries.emplace_back(key, value);
      return Value::dict(entries);
    });
  if (name == "strftime_now")
    return Value::function([](const Arguments &a, const KeywordArguments &k) {
      std::time_t now = std::time(nullptr);
      std::tm local{};
      localtime_r(&now, &local);
      char buffer[256];
      size_t length = std::strftime(
          buffer, sizeof buffer,
          needString(argument(a, k, 0, "format"), "strftime_now").c_str(),
          &local);
      return Value(std::string(buffer, length));
    });
  return Value();
}

} // namespace etch::llm::jinja
