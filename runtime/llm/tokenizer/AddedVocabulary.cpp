#include "runtime/llm/tokenizer/AddedVocabulary.h"

#include "runtime/llm/tokenizer/Utf8.h"

namespace etch::llm {

void AddedVocabulary::read(const JsonField &field,
                           const Normalizer &normalizer) {
  for (const JsonField &entry : field.elements()) {
    Token token{entry.at("content").string(),
                static_cast<int32_t>(entry.at("id").integer(0, INT32_MAX - 1)),
                entry.getBool("single_word", false),
                entry.getBool("lstrip", false),
                entry.getBool("rstrip", false),
                entry.getBool("normalized", false),
                entry.getBool("special", false)};
    if (token.content.empty())
      entry.at("content").fail("a non-empty token");
    matchText_.push_back(token.normalized && normalizer
                             ? normalizer(token.content)
                             : token.content);
    if (!matchText_.back().empty())
      firstByte_[static_cast<unsigned char>(matchText_.back()[0])] = true;
    byId_[token.id] = tokens_.size();
    maxId_ = std::max(maxId_, token.id);
    tokens_.push_back(std::move(token));
  }
}

const AddedVocabulary::Token *AddedVocabulary::byId(int32_t id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : &tokens_[it->second];
}

std::optional<int32_t> AddedVocabulary::idOf(std::string_view content) const {
  for (const Token &token : tokens_)
    if (token.content == content)
      return token.id;
  return std::nullopt;
}

namespace {

/// The character ending at \p end (for word-boundary and strip checks).
char32_t characterBefore(std::string_view text, size_t end, size_t &start) {
  start = end;
  do
    --start;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80);
  char32_t c = 0;
  decodeUtf8(text, start, c);
  return c;
}

bool isWordCharacter(char32_t c) { return c == '_' || isAlphanumeric(c); }

} // namespace

void AddedVocabulary::cut(std::vector<Segment> &segments,
                          bool normalized) const {
  std::vector<Segment> result;
  for (Segment &segment : segments) {
    if (segment.id) {
      result.push_back(std::move(segment));
      continue;
    }
    const std::string &text = segment.text;
    size_t emitted = 0; // text before this offset is already in result
    auto emitText = [&](size_t end) {
      if (end > emitted)
        result.push_back({text.substr(emitted, end - emitted), std::nullopt,
                          segment.atStart && emitted == 0});
    };
    for (size_t pos = 0; pos < text.size();) {
      // The longest token starting here (leftmost-longest); most positions
      // start none, which the first byte tells.
      const Token *found = nullptr;
      size_t foundLength = 0;
      bool candidate = firstByte_[static_cast<unsigned char>(text[pos])];
      for (size_t i = 0; candidate && i < tokens_.size(); ++i) {
        const std::string &match = matchText_[i];
        if (tokens_[i].normalized != normalized ||
            match.size() <= foundLength ||
            text.compare(pos, match.size(), match) != 0)
          continue;
        found = &tokens_[i];
        foundLength = match.size();
      }
      size_t start = pos, stop = pos + foundLength;
      if (found && found->singleWord) {
        size_t ignored;
        bool wordBefore =
            start > 0 && isWordCharacter(characterBefore(text, start, ignored));
        char32_t after = 0;
        bool wordAfter = stop < text.size() && decodeUtf8(text, stop, after) &&
                         isWordCharacter(after);
        if (wordBefore || wordAfter)
          found = nullptr;
      }
      if (!found) {
        ++pos;
        continue;
      }
      if (found->lstrip) {
        size_t charStart;
        while (start > emitted &&
               isWhitespace(characterBefore(text, start, charStart)))
          start = charStart;
      }
      if (found->rstrip) {
        char32_t c = 0;
        size_t length;
        while (stop < text.size() && (length = decodeUtf8(text, stop, c)) &&
               isWhitespace(c))
          stop += length;
      }
      emitText(start);
      result.push_back({found->content, found->id, false});
      emitted = pos = stop;
    }
    emitText(text.size());
  }
  segments = std::move(result);
}

std::vector<Segment>
AddedVocabulary::split(std::string_view text,
                       const Normalizer &normalizer) const {
  std::vector<Segment> segments{{std::string(text), std::nullopt, true}};
  cut(segments, /*normalized=*/false);
  if (normalizer)
    for (Segment &segment : segments)
      if (!segment.id)
        segment.text = normalizer(segment.text);
  cut(segments, /*normalized=*/true);
  return segments;
}

} // namespace etch::llm
