#include "runtime/llm/tokenizer/UnigramModel.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <algorithm>

namespace etch::llm {

namespace {
/// How far below the least likely token an unknown character scores.
constexpr double kUnknownPenalty = 10.0;
} // namespace

UnigramModel::UnigramModel(const JsonField &field) {
  std::vector<JsonField> vocab = field.at("vocab").elements();
  double minScore = 0;
  for (size_t id = 0; id < vocab.size(); ++id) {
    std::vector<JsonField> entry = vocab[id].elements();
    if (entry.size() != 2)
      vocab[id].fail("[TOKEN, SCORE]");
    std::string text = entry[0].string();
    double score = entry[1].number();
    addToken(text, static_cast<int32_t>(id));
    scores_.push_back(score);
    minScore = id == 0 ? score : std::min(minScore, score);
    longestToken_ = std::max(longestToken_, text.size());
  }
  unkScore_ = minScore - kUnknownPenalty;
  if (std::optional<JsonField> unk = field.find("unk_id")) {
    unk_ = static_cast<int32_t>(
        unk->integer(0, static_cast<int64_t>(vocab.size()) - 1));
  }
  byteFallback_ = field.getBool("byte_fallback", false);
}

std::vector<std::pair<size_t, size_t>>
UnigramModel::segment(std::string_view piece) const {
  struct Best {
    double score = 0;
    size_t start = 0;
    int32_t id = -1; // -1: no path ends here yet
  };
  std::vector<Best> best(piece.size() + 1);
  best[0].id = 0;
  for (size_t start = 0; start < piece.size();) {
    char32_t c;
    size_t charLength = decodeUtf8(piece, start, c);
    if (!charLength)
      charLength = 1;
    bool singleCharacterToken = false;
    auto offer = [&](size_t end, int32_t id, double score) {
      double candidate = best[start].score + score;
      if (best[end].id < 0 || candidate > best[end].score)
        best[end] = {candidate, start, id};
    };
    size_t limit = std::min(piece.size() - start, longestToken_);
    for (size_t length = 1; length <= limit; ++length) {
      std::optional<int32_t> id = tokenId(piece.substr(start, length));
      if (!id)
        continue;
      offer(start + length, *id, scores_[*id]);
      singleCharacterToken |= length == charLength;
    }
    if (!singleCharacterToken)
      offer(start + charLength, unk_ ? *unk_ : -2, unkScore_);
    start += charLength;
  }
  // Walk back from the end; adjacent unknown characters become one token.
  std::vector<std::pair<size_t, size_t>> ranges;
  bool previousUnknown = false;
  for (size_t end = piece.size(); end > 0;) {
    const Best &node = best[end];
    bool unknown = node.id == -2 || (unk_ && node.id == *unk_);
    if (unknown && previousUnknown)
      ranges.back().first = node.start;
    else
      ranges.emplace_back(node.start, end);
    previousUnknown = unknown;
    end = node.start;
  }
  std::reverse(ranges.begin(), ranges.end());
  return ranges;
}

void UnigramModel::tokenize(std::string_view piece,
                            std::vector<int32_t> &ids) const {
  for (const auto &[first, last] : segment(piece)) {
    std::string_view text = piece.substr(first, last - first);
    if (std::optional<int32_t> id = tokenId(text)) {
      ids.push_back(*id);
      continue;
    }
    if (byteFallback_ && appendByteFallback(text, ids))
      continue;
    if (unk_)
      ids.push_back(*unk_);
  }
}

} // namespace etch::llm
