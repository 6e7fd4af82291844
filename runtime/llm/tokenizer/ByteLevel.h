// GPT-2's byte-level alphabet: each of the 256 byte values as one printable
// character, so that any byte string is a string of "characters" a BPE
// vocabulary can hold. Shared by the ByteLevel pre-tokenizer and decoder.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace etch::llm {

/// \p bytes spelt in the byte-level alphabet.
std::string toByteLevel(std::string_view bytes);

/// The byte a byte-level character stands for, if it is one.
std::optional<unsigned char> fromByteLevel(char32_t c);

/// GPT-2's pre-tokenizer regex (the ByteLevel pre-tokenizer's use_regex).
extern const char *const kGpt2SplitPattern;

} // namespace etch::llm
