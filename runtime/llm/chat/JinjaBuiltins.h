// The filters, tests, methods and global functions chat templates call,
// each a small handler in a table keyed by name (JinjaBuiltins.cpp,
// JinjaMethods.cpp; the string operations in JinjaStrings.cpp).
#pragma once

#include "runtime/llm/chat/JinjaValue.h"

namespace etch::llm::jinja {

/// Applies filter \p name to \p input.
Value applyFilter(const std::string &name, const Value &input,
                  const Arguments &args, const KeywordArguments &keywords);
/// Whether test \p name holds for \p input.
bool applyTest(const std::string &name, const Value &input,
               const Arguments &args);
/// `object.name` as Jinja reads it: a method of a string, list or dict
/// (bound to \p object), else a dict key; undefined when neither.
Value attribute(const Value &object, const std::string &name);
/// `object[index]`: a list or string position (negative from the end), a
/// dict key, else an attribute.
Value item(const Value &object, const Value &index);
/// `object[start:stop:step]` of a list or string.
Value slice(const Value &object, const Value &start, const Value &stop,
            const Value &step);
/// The globals a template sees besides its variables: range, namespace,
/// raise_exception, strftime_now, dict.
Value globalFunction(const std::string &name);

/// The code points of \p text (strings index and measure by them).
std::vector<std::string> characters(const std::string &text);
/// Python's `a in b`.
bool contains(const Value &container, const Value &element);
/// A list, string or dict as a list of values (a dict: its keys).
List iterate(const Value &value);

} // namespace etch::llm::jinja
