#include "runtime/llm/tokenizer/TextStreamer.h"

namespace etch::llm {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
}

void TextStreamer::push(int32_t id) {
  ids_.push_back(id);
  emit(false);
}

void TextStreamer::finish() { emit(true); }

void TextStreamer::emit(bool all) {
  // Decoding the whole sequence again keeps decoders that look at
  // neighbours (byte fallback, a first token's prefix space) right.
  std::string decoded = tokenizer_.decode(ids_);
  size_t stable = decoded.size();
  if (!all)
    while (stable >= kReplacement.size() &&
           decoded.compare(stable - kReplacement.size(), kReplacement.size(),
                           kReplacement) == 0)
      stable -= kReplacement.size();
  // Text already passed on cannot be taken back; when a decoder rewrote it,
  // go on from the next character boundary.
  size_t start = emitted_;
  while (start < decoded.size() &&
         (static_cast<unsigned char>(decoded[start]) & 0xC0) == 0x80)
    ++start;
  if (stable <= start)
    return;
  std::string_view fresh(decoded.data() + start, stable - start);
  text_.append(fresh);
  sink_(fresh);
  emitted_ = stable;
}

} // namespace etch::llm
