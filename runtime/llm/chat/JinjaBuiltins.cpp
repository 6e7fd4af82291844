#include "runtime/llm/chat/JinjaBuiltins.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <utf8proc.h>

#include <algorithm>
#include <cmath>
#include <ctime>

namespace etch::llm::jinja {

namespace {

/// Argument \p index, or keyword \p name, or \p fallback.
Value argument(const Arguments &args, const KeywordArguments &keywords,
               size_t index, const char *name, Value fallback = Value()) {
  if (index < args.size())
    return args[index];
  for (const auto &[key, value] : keywords)
    if (key == name)
      return value;
  return fallback;
}

const std::string &needString(const Value &value, const char *what) {
  if (!value.is(Value::Kind::String))
    fail(std::string(what) + " expects a string, not " + value.typeName());
  return value.string();
}

int64_t needInteger(const Value &value, const char *what) {
  if (value.is(Value::Kind::Int))
    return value.integer();
  if (value.is(Value::Kind::Bool))
    return value.boolean();
  fail(std::string(what) + " expects an integer, not " + value.typeName());
}

std::string mapCharacters(const std::string &text,
                          utf8proc_int32_t (*map)(utf8proc_int32_t)) {
  std::string out;
  forEachChar(text,
              [&](char32_t c, size_t, size_t) { appendUtf8(out, map(c)); });
  return out;
}

std::string lower(const std::string &text) {
  return mapCharacters(text, utf8proc_tolower);
}
std::string upper(const std::string &text) {
  return mapCharacters(text, utf8proc_toupper);
}

bool isCased(char32_t c) {
  return utf8proc_tolower(c) != static_cast<utf8proc_int32_t>(c) ||
         utf8proc_toupper(c) != static_cast<utf8proc_int32_t>(c);
}

/// Python's str.title(): a letter after an uncased character is upper.
std::string title(const std::string &text) {
  std::string out;
  bool previousCased = false;
  forEachChar(text, [&](char32_t c, size_t, size_t) {
    appendUtf8(out, previousCased ? utf8proc_tolower(c) : utf8proc_totitle(c));
    previousCased = isCased(c);
  });
  return out;
}

std::string capitalize(const std::string &text) {
  std::string out;
  bool first = true;
  forEachChar(text, [&](char32_t c, size_t, size_t) {
    appendUtf8(out, first ? utf8proc_totitle(c) : utf8proc_tolower(c));
    first = false;
  });
  return out;
}

/// str.strip / lstrip / rstrip: whitespace, or the characters of \p chars.
std::string strip(const std::string &text, const Value &chars, bool left,
                  bool right) {
  std::vector<std::string> characterList = characters(text);
  std::vector<std::string> set;
  if (chars.is(Value::Kind::String))
    set = characters(chars.string());
  auto strippable = [&](const std::string &c) {
    if (!chars.is(Value::Kind::String)) {
      char32_t code = 0;
      decodeUtf8(c, 0, code);
      return isWhitespace(code);
    }
    return std::find(set.begin(), set.end(), c) != set.end();
  };
  size_t first = 0, last = characterList.size();
  while (left && first < last && strippable(characterList[first]))
    ++first;
  while (right && last > first && strippable(characterList[last - 1]))
    --last;
  std::string out;
  for (size_t i = first; i < last; ++i)
    out += characterList[i];
  return out;
}

std::string replace(const std::string &text, const std::string &from,
                    const std::string &to, int64_t count) {
  std::string out;
  size_t pos = 0;
  int64_t done = 0;
  if (from.empty()) {
    // Python inserts \p to between characters (and at both ends).
    std::vector<std::string> chars = characters(text);
    for (size_t i = 0; i <= chars.size(); ++i) {
      if (count < 0 || done < count) {
        out += to;
        ++done;
      }
      if (i < chars.size())
        out += chars[i];
    }
    return out;
  }
  for (size_t at; (count < 0 || done < count) &&
                  (at = text.find(from, pos)) != std::string::npos;
       ++done) {
    out.append(text, pos, at - pos);
    out += to;
    pos = at + from.size();
  }
  return out + text.substr(pos);
}

/// Python's str.split(sep=None, maxsplit=-1).
List split(const std::string &text, const Value &separator, int64_t maxSplit) {
  List parts;
  if (!separator.is(Value::Kind::String)) {
    std::vector<std::string> chars = characters(text);
    std::string current;
    bool inWord = false;
    for (size_t i = 0; i < chars.size(); ++i) {
      char32_t code = 0;
      decodeUtf8(chars[i], 0, code);
      if (isWhitespace(code)) {
        if (inWord) {
          parts.push_back(Value(current));
          current.clear();
          inWord = false;
        }
        continue;
      }
      if (!inWord && maxSplit >= 0 &&
          static_cast<int64_t>(parts.size()) == maxSplit) {
        std::string rest;
        for (size_t j = i; j < chars.size(); ++j)
          rest += chars[j];
        parts.push_back(Value(strip(rest, Value(), false, true)));
        return parts;
      }
      current += chars[i];
      inWord = true;
    }
    if (inWord)
      parts.push_back(Value(current));
    return parts;
  }
  const std::string &sep = separator.string();
  if (sep.empty())
    fail("split(): empty separator");
  size_t pos = 0;
  for (size_t at;
       (maxSplit < 0 || static_cast<int64_t>(parts.size()) < maxSplit) &&
       (at = text.find(sep, pos)) != std::string::npos;) {
    parts.push_back(Value(text.substr(pos, at - pos)));
    pos = at + sep.size();
  }
  parts.push_back(Value(text.substr(pos)));
  return parts;
}

bool affix(const std::string &text, const Value &candidates, bool prefix) {
  List options =
      candidates.is(Value::Kind::List) ? candidates.items() : List{candidates};
  for (const Value &option : options) {
    const std::string &a =
        needString(option, prefix ? "startswith" : "endswith");
    if (a.size() <= text.size() &&
        text.compare(prefix ? 0 : text.size() - a.size(), a.size(), a) == 0)
      return true;
  }
  return false;
}

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

int64_t length(const Value &value) {
  switch (value.kind()) {
  case Value::Kind::String:
    return static_cast<int64_t>(characters(value.string()).size());
  case Value::Kind::List:
    return static_cast<int64_t>(value.items().size());
  case Value::Kind::Dict:
    return static_cast<int64_t>(value.entries().size());
  default:
    fail(std::string("object of type '") + value.typeName() + "' has no len()");
  }
}

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
