#include "runtime/llm/tokenizer/ByteLevel.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <array>
#include <unordered_map>

namespace etch::llm {

const char *const kGpt2SplitPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

namespace {

struct Alphabet {
  std::array<char32_t, 256> character{};
  std::unordered_map<char32_t, unsigned char> byte;

  Alphabet() {
    // Printable Latin-1 stands for itself; the other bytes take the
    // code points from U+0100 on, in byte order.
    auto printable = [](unsigned b) {
      return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) ||
             (b >= 0xAE && b <= 0xFF);
    };
    char32_t next = 256;
    for (unsigned b = 0; b < 256; ++b) {
      character[b] = printable(b) ? b : next++;
      byte[character[b]] = static_cast<unsigned char>(b);
    }
  }
};

const Alphabet &alphabet() {
  static const Alphabet instance;
  return instance;
}

} // namespace

std::string toByteLevel(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes)
    appendUtf8(out, alphabet().character[b]);
  return out;
}

std::optional<unsigned char> fromByteLevel(char32_t c) {
  auto it = alphabet().byte.find(c);
  if (it == alphabet().byte.end())
    return std::nullopt;
  return it->second;
}

} // namespace etch::llm
