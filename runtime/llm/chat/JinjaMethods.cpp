// The methods of strings, lists and dicts, and how templates reach into
// values: attributes, items, slices, iteration.
#include "runtime/llm/chat/JinjaBuiltins.h"
#include "runtime/llm/chat/JinjaStrings.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <utf8proc.h>

#include <algorithm>

namespace etch::llm::jinja {

namespace {

using Method = Value (*)(const Value &self, const Arguments &,
                         const KeywordArguments &);

const std::pair<const char *, Method> kStringMethods[] = {
    {"strip",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       return Value(strip(s.string(), argument(a, k, 0, "chars"), true, true));
     }},
    {"lstrip",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       return Value(strip(s.string(), argument(a, k, 0, "chars"), true, false));
     }},
    {"rstrip",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       return Value(strip(s.string(), argument(a, k, 0, "chars"), false, true));
     }},
    {"upper",
     [](const Value &s, const Arguments &, const KeywordArguments &) {
       return Value(upper(s.string()));
     }},
    {"lower",
     [](const Value &s, const Arguments &, const KeywordArguments &) {
       return Value(lower(s.string()));
     }},
    {"title",
     [](const Value &s, const Arguments &, const KeywordArguments &) {
       return Value(title(s.string()));
     }},
    {"capitalize",
     [](const Value &s, const Arguments &, const KeywordArguments &) {
       return Value(capitalize(s.string()));
     }},
    {"startswith",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       return Value(affix(s.string(), argument(a, k, 0, "prefix"), true));
     }},
    {"endswith",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       return Value(affix(s.string(), argument(a, k, 0, "suffix"), false));
     }},
    {"split",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       Value limit = argument(a, k, 1, "maxsplit", Value(-1));
       return Value::list(split(s.string(), argument(a, k, 0, "sep"),
                                needInteger(limit, "split")));
     }},
    {"replace",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       return Value(replace(
           s.string(), needString(argument(a, k, 0, "old"), "replace"),
           needString(argument(a, k, 1, "new"), "replace"),
           needInteger(argument(a, k, 2, "count", Value(-1)), "replace")));
     }},
    {"find",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       size_t at =
           s.string().find(needString(argument(a, k, 0, "sub"), "find"));
       if (at == std::string::npos)
         return Value(-1);
       return Value(
           static_cast<int64_t>(characters(s.string().substr(0, at)).size()));
     }},
    {"count",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       const std::string &sub = needString(argument(a, k, 0, "sub"), "count");
       if (sub.empty())
         return Value(static_cast<int64_t>(characters(s.string()).size() + 1));
       int64_t n = 0;
       for (size_t at = s.string().find(sub); at != std::string::npos;
            at = s.string().find(sub, at + sub.size()))
         ++n;
       return Value(n);
     }},
    {"join",
     [](const Value &s, const Arguments &a, const KeywordArguments &k) {
       std::string out;
       List parts = iterate(argument(a, k, 0, "iterable"));
       for (size_t i = 0; i < parts.size(); ++i)
         out += (i ? s.string() : "") + needString(parts[i], "join");
       return Value(out);
     }},
    {"isdigit",
     [](const Value &s, const Arguments &, const KeywordArguments &) {
       bool all = !s.string().empty();
       forEachChar(s.string(), [&](char32_t c, size_t, size_t) {
         all &= utf8proc_category(c) == UTF8PROC_CATEGORY_ND;
       });
       return Value(all);
     }},
};

const std::pair<const char *, Method> kDictMethods[] = {
    {"items",
     [](const Value &d, const Arguments &, const KeywordArguments &) {
       List out;
       for (const auto &[key, value] : d.entries())
         out.push_back(Value::list({Value(key), value}));
       return Value::list(out);
     }},
    {"keys",
     [](const Value &d, const Arguments &, const KeywordArguments &) {
       List out;
       for (const auto &entry : d.entries())
         out.push_back(Value(entry.first));
       return Value::list(out);
     }},
    {"values",
     [](const Value &d, const Arguments &, const KeywordArguments &) {
       List out;
       for (const auto &entry : d.entries())
         out.push_back(entry.second);
       return Value::list(out);
     }},
    {"get",
     [](const Value &d, const Arguments &a, const KeywordArguments &k) {
       Value key = argument(a, k, 0, "key");
       Value *found =
           key.is(Value::Kind::String) ? d.find(key.string()) : nullptr;
       return found ? *found : argument(a, k, 1, "default", Value::none());
     }},
};

const std::pair<const char *, Method> kListMethods[] = {
    {"append",
     [](const Value &l, const Arguments &a, const KeywordArguments &k) {
       l.items().push_back(argument(a, k, 0, "object"));
       return Value::none();
     }},
    {"index",
     [](const Value &l, const Arguments &a, const KeywordArguments &k) {
       Value wanted = argument(a, k, 0, "value");
       for (size_t i = 0; i < l.items().size(); ++i)
         if (l.items()[i] == wanted)
           return Value(static_cast<int64_t>(i));
       fail(wanted.repr() + " is not in list");
     }},
    {"count",
     [](const Value &l, const Arguments &a, const KeywordArguments &k) {
       Value wanted = argument(a, k, 0, "value");
       return Value(static_cast<int64_t>(
           std::count(l.items().begin(), l.items().end(), wanted)));
     }},
};

template <size_t N>
Value bindMethod(const std::pair<const char *, Method> (&table)[N],
                 const Value &self, const std::string &name) {
  for (const auto &[methodName, method] : table)
    if (name == methodName) {
      Method call = method;
      return Value::function(
          [self, call](const Arguments &a, const KeywordArguments &k) {
            return call(self, a, k);
          });
    }
  return Value();
}

int64_t pythonIndex(int64_t index, int64_t size) {
  return index < 0 ? index + size : index;
}

} // namespace

std::vector<std::string> characters(const std::string &text) {
  std::vector<std::string> out;
  forEachChar(text, [&](char32_t, size_t start, size_t length) {
    out.push_back(text.substr(start, length));
  });
  return out;
}

bool contains(const Value &container, const Value &element) {
  switch (container.kind()) {
  case Value::Kind::String:
    return container.string().find(needString(element, "'in <string>'")) !=
           std::string::npos;
  case Value::Kind::List:
    return std::find(container.items().begin(), container.items().end(),
                     element) != container.items().end();
  case Value::Kind::Dict:
    return element.is(Value::Kind::String) && container.find(element.string());
  default:
    fail(std::string("argument of type '") + container.typeName() +
         "' is not iterable");
  }
}

List iterate(const Value &value) {
  switch (value.kind()) {
  case Value::Kind::List:
    return value.items();
  case Value::Kind::String: {
    List out;
    for (std::string &c : characters(value.string()))
      out.push_back(Value(std::move(c)));
    return out;
  }
  case Value::Kind::Dict: {
    List out;
    for (const auto &entry : value.entries())
      out.push_back(Value(entry.first));
    return out;
  }
  case Value::Kind::Undefined:
    return {};
  default:
    fail(std::string("'") + value.typeName() + "' object is not iterable");
  }
}

Value attribute(const Value &object, const std::string &name) {
  switch (object.kind()) {
  case Value::Kind::String:
    return bindMethod(kStringMethods, object, name);
  case Value::Kind::List:
    return bindMethod(kListMethods, object, name);
  case Value::Kind::Dict: {
    Value method = bindMethod(kDictMethods, object, name);
    if (!method.is(Value::Kind::Undefined))
      return method;
    Value *found = object.find(name);
    return found ? *found : Value();
  }
  case Value::Kind::Undefined:
    fail("'" + name + "' of an undefined value (jinja2.UndefinedError)");
  default:
    return Value();
  }
}

Value item(const Value &object, const Value &index) {
  if (object.is(Value::Kind::Dict)) {
    if (index.is(Value::Kind::String))
      if (Value *found = object.find(index.string()))
        return *found;
    return index.is(Value::Kind::String) ? attribute(object, index.string())
                                         : Value();
  }
  if (object.is(Value::Kind::List) || object.is(Value::Kind::String)) {
    if (index.is(Value::Kind::String))
      return attribute(object, index.string());
    if (!index.is(Value::Kind::Int))
      return Value();
    if (object.is(Value::Kind::List)) {
      int64_t size = static_cast<int64_t>(object.items().size());
      int64_t at = pythonIndex(index.integer(), size);
      return at >= 0 && at < size ? object.items()[at] : Value();
    }
    std::vector<std::string> chars = characters(object.string());
    int64_t size = static_cast<int64_t>(chars.size());
    int64_t at = pythonIndex(index.integer(), size);
    return at >= 0 && at < size ? Value(chars[at]) : Value();
  }
  if (object.is(Value::Kind::Undefined))
    fail("an index of an undefined value (jinja2.UndefinedError)");
  return Value();
}

Value slice(const Value &object, const Value &startValue,
            const Value &stopValue, const Value &stepValue) {
  List items;
  bool isString = object.is(Value::Kind::String);
  if (isString) {
    for (std::string &c : characters(object.string()))
      items.push_back(Value(std::move(c)));
  } else if (object.is(Value::Kind::List)) {
    items = object.items();
  } else {
    fail(std::string("'") + object.typeName() +
         "' object is not subscriptable");
  }
  int64_t size = static_cast<int64_t>(items.size());
  int64_t step = stepValue.is(Value::Kind::Int) ? stepValue.integer() : 1;
  if (step == 0)
    fail("slice step cannot be zero");
  auto bound = [&](const Value &value, int64_t fallback) {
    if (!value.is(Value::Kind::Int))
      return fallback;
    int64_t at = pythonIndex(value.integer(), size);
    int64_t low = step > 0 ? 0 : -1, high = step > 0 ? size : size - 1;
    return std::clamp(at, low, high);
  };
  int64_t start = bound(startValue, step > 0 ? 0 : size - 1);
  int64_t stop = bound(stopValue, step > 0 ? size : -1);
  List out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
    out.push_back(items[i]);
  if (!isString)
    return Value::list(out);
  std::string text;
  for (const Value &c : out)
    text += c.string();
  return Value(text);
}

} // namespace etch::llm::jinja
