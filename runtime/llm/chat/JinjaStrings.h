// Python's str operations as chat templates call them (on UTF-8 text,
// by code point) and the argument checks every builtin shares; used by the
// filters (JinjaBuiltins.cpp) and the methods (JinjaMethods.cpp).
#pragma once

#include "runtime/llm/chat/JinjaValue.h"

namespace etch::llm::jinja {

/// Argument \p index, or keyword \p name, or \p fallback.
Value argument(const Arguments &args, const KeywordArguments &keywords,
               size_t index, const char *name, Value fallback = Value());
/// \p value's string, else an error naming \p what.
const std::string &needString(const Value &value, const char *what);
/// \p value as an integer (a bool is one), else an error naming \p what.
int64_t needInteger(const Value &value, const char *what);

std::string lower(const std::string &text);
std::string upper(const std::string &text);
/// str.title(): a letter after an uncased character is upper.
std::string title(const std::string &text);
std::string capitalize(const std::string &text);
/// str.strip/lstrip/rstrip(chars): whitespace when \p chars is none.
std::string strip(const std::string &text, const Value &chars, bool left,
                  bool right);
/// str.replace(from, to, count) (count < 0: all).
std::string replace(const std::string &text, const std::string &from,
                    const std::string &to, int64_t count);
/// str.split(separator, maxsplit): on whitespace runs when \p separator is
/// none.
List split(const std::string &text, const Value &separator, int64_t maxSplit);
/// str.startswith / endswith of one string or a list of them.
bool affix(const std::string &text, const Value &candidates, bool prefix);
/// len(): code points of a string, items of a list or dict.
int64_t length(const Value &value);

} // namespace etch::llm::jinja
