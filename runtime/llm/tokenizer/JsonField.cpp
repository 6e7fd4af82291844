#include "runtime/llm/tokenizer/JsonField.h"

#include <algorithm>
#include <cmath>

namespace etch::llm {

JsonField JsonField::at(const char *key) const {
  std::optional<JsonField> field = find(key);
  if (!field)
    JsonField(value_, path_.empty() ? key : path_ + "." + key)
        .fail("a value (the field is missing or null)");
  return *field;
}

std::optional<JsonField> JsonField::find(const char *key) const {
  if (!value_.is_object())
    fail("an object");
  auto it = value_.find(key);
  if (it == value_.end() || it->is_null())
    return std::nullopt;
  return JsonField(*it, path_.empty() ? key : path_ + "." + key);
}

std::vector<JsonField> JsonField::elements() const {
  if (!value_.is_array())
    fail("an array");
  std::vector<JsonField> result;
  result.reserve(value_.size());
  for (size_t i = 0; i < value_.size(); ++i)
    result.emplace_back(value_[i], path_ + "[" + std::to_string(i) + "]");
  return result;
}

std::vector<std::pair<std::string, JsonField>> JsonField::members() const {
  if (!value_.is_object())
    fail("an object");
  std::vector<std::pair<std::string, JsonField>> result;
  result.reserve(value_.size());
  for (auto it = value_.begin(); it != value_.end(); ++it)
    result.emplace_back(it.key(),
                        JsonField(it.value(), path_ + "." + it.key()));
  return result;
}

std::string JsonField::string() const {
  if (!value_.is_string())
    fail("a string");
  return value_.get<std::string>();
}

bool JsonField::boolean() const {
  if (!value_.is_boolean())
    fail("true or false");
  return value_.get<bool>();
}

int64_t JsonField::integer(int64_t low, int64_t high) const {
  if (!value_.is_number_integer())
    fail("an integer");
  int64_t value = value_.is_number_unsigned()
                      ? static_cast<int64_t>(std::min<uint64_t>(
                            value_.get<uint64_t>(), INT64_MAX))
                      : value_.get<int64_t>();
  if (value < low || value > high)
    fail("an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
         "]");
  return value;
}

double JsonField::number() const {
  if (!value_.is_number())
    fail("a number");
  double value = value_.get<double>();
  if (!std::isfinite(value))
    fail("a finite number");
  return value;
}

} // namespace etch::llm
