// Decoded text of tokens as they are generated: each push() hands on what
// has become final, never part of a UTF-8 sequence. A token that ends in the
// middle of a character (byte-level and byte-fallback tokens do) decodes to
// a trailing U+FFFD; that tail is held back until later tokens complete it.
// With stop strings, text that may begin one is held back too, and a stop
// string that appears ends the text before it.
#pragma once

#include "runtime/llm/tokenizer/Tokenizer.h"

#include <functional>

namespace etch::llm {

class TextStreamer {
public:
  using Sink = std::function<void(std::string_view)>;
  TextStreamer(const Tokenizer &tokenizer, Sink sink,
               std::vector<std::string> stops = {})
      : tokenizer_(tokenizer), sink_(std::move(sink)),
        stops_(std::move(stops)) {}

  /// Adds a generated token; passes on the text it made final. True once
  /// the text holds a stop string (nothing from it on is passed on).
  bool push(int32_t id);
  /// Passes on what is left (a trailing U+FFFD included).
  void finish();
  /// All the text passed on so far.
  const std::string &text() const { return text_; }

private:
  void emit(bool all);
  /// Where the first stop string starts in \p text, or npos; \p held gets
  /// the length of the longest tail that could begin one.
  size_t findStop(const std::string &text, size_t &held) const;

  const Tokenizer &tokenizer_;
  Sink sink_;
  std::vector<std::string> stops_;
  bool stopped_ = false;
  std::vector<int32_t> ids_;
  std::string text_;
  size_t emitted_ = 0; // bytes of the current decoding already passed on
};

} // namespace etch::llm
