// Typed reads of a tokenizer.json value that say which field was wrong:
// each failure throws FormatError with the field's path
// ("pre_tokenizer.pretokenizers[1].pattern.Regex"), which the loader turns
// into one line naming the file. Nothing outside the loader sees a throw.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace etch::llm {

struct FormatError {
  std::string field, expected;
};

class JsonField {
public:
  JsonField(const nlohmann::json &value, std::string path)
      : value_(value), path_(std::move(path)) {}

  const std::string &path() const { return path_; }
  bool isNull() const { return value_.is_null(); }
  bool isObject() const { return value_.is_object(); }
  bool isArray() const { return value_.is_array(); }
  bool isString() const { return value_.is_string(); }

  /// The member \p key (an error when it is missing).
  JsonField at(const char *key) const;
  /// The member \p key when present and not null.
  std::optional<JsonField> find(const char *key) const;
  /// The elements of an array.
  std::vector<JsonField> elements() const;
  /// The members of an object (sorted by key).
  std::vector<std::pair<std::string, JsonField>> members() const;

  std::string string() const;
  bool boolean() const;
  int64_t integer(int64_t low, int64_t high) const;
  double number() const;

  /// The member \p key read by \p read, or \p fallback when absent/null.
  template <typename T, typename Read>
  T get(const char *key, T fallback, Read read) const {
    std::optional<JsonField> field = find(key);
    return field ? read(*field) : fallback;
  }
  std::string getString(const char *key, std::string fallback) const {
    return get(key, fallback, [](const JsonField &f) { return f.string(); });
  }
  bool getBool(const char *key, bool fallback) const {
    return get(key, fallback, [](const JsonField &f) { return f.boolean(); });
  }

  [[noreturn]] void fail(const std::string &expected) const {
    throw FormatError{path_, expected};
  }

private:
  const nlohmann::json &value_;
  std::string path_;
};

} // namespace etch::llm
