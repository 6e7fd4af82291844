#include "runtime/llm/tokenizer/TextStreamer.h"

#include <algorithm>

namespace etch::llm {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
}

bool TextStreamer::push(int32_t id) {
  if (stopped_)
    return true;
  ids_.push_back(id);
  emit(false);
  return stopped_;
}

void TextStreamer::finish() {
  if (!stopped_)
    emit(true);
}

size_t TextStreamer::findStop(const std::string &text, size_t &held) const {
  size_t first = std::string::npos;
  held = 0;
  for (const std::string &stop : stops_) {
    if (stop.empty())
      continue;
    first = std::min(first, text.find(stop));
    for (size_t length = std::min(stop.size() - 1, text.size()); length > held;
         --length)
      if (text.compare(text.size() - length, length, stop, 0, length) == 0) {
        held = length;
        break;
      }
  }
  return first;
}

void TextStreamer::emit(bool all) {
  // Decoding the whole sequence again keeps decoders that look at
  // neighbours (byte fallback, a first token's prefix space) right.
  std::string decoded = tokenizer_.decode(ids_);
  size_t held = 0, stop = findStop(decoded, held);
  if (stop != std::string::npos) {
    stopped_ = true;
    decoded.resize(stop);
    all = true;
  } else if (!all) {
    decoded.resize(decoded.size() - held);
  }
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
