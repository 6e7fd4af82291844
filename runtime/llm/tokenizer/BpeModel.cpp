#include "runtime/llm/tokenizer/BpeModel.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <queue>

namespace etch::llm {

BpeModel::BpeModel(const JsonField &field) {
  for (const auto &[text, id] : field.at("vocab").members())
    addToken(text, static_cast<int32_t>(id.integer(0, INT32_MAX - 1)));
  continuingPrefix_ = field.getString("continuing_subword_prefix", "");
  endSuffix_ = field.getString("end_of_word_suffix", "");
  fuseUnk_ = field.getBool("fuse_unk", false);
  byteFallback_ = field.getBool("byte_fallback", false);
  ignoreMerges_ = field.getBool("ignore_merges", false);
  if (std::optional<JsonField> unk = field.find("unk_token")) {
    unk_ = tokenId(unk->string());
    if (!unk_)
      unk->fail("a token of the vocabulary ('" + unk->string() +
                "' is not one)");
  }
  readMerges(field.at("merges"));
}

void BpeModel::readMerges(const JsonField &merges) {
  int32_t rank = 0;
  for (const JsonField &merge : merges.elements()) {
    // ["left", "right"] in current files, "left right" in older ones.
    std::string left, right;
    if (merge.isString()) {
      std::string text = merge.string();
      size_t space = text.find(' ');
      if (space == std::string::npos ||
          text.find(' ', space + 1) != std::string::npos)
        merge.fail("\"LEFT RIGHT\" (two tokens and one space)");
      left = text.substr(0, space);
      right = text.substr(space + 1);
    } else {
      std::vector<JsonField> pair = merge.elements();
      if (pair.size() != 2)
        merge.fail("[LEFT, RIGHT]");
      left = pair[0].string();
      right = pair[1].string();
    }
    std::string mergedText =
        left + right.substr(std::min(continuingPrefix_.size(), right.size()));
    std::optional<int32_t> leftId = tokenId(left), rightId = tokenId(right),
                           merged = tokenId(mergedText);
    if (!leftId || !rightId || !merged)
      merge.fail("a merge of two vocabulary tokens into a third ('" +
                 (!leftId    ? left
                  : !rightId ? right
                             : mergedText) +
                 "' is not in the vocabulary)");
    merges_.emplace(pairKey(*leftId, *rightId), Merge{rank++, *merged});
  }
}

void BpeModel::splitCharacters(std::string_view piece,
                               std::vector<int32_t> &symbols) const {
  bool pendingUnk = false;
  auto flushUnk = [&] {
    if (pendingUnk)
      symbols.push_back(*unk_);
    pendingUnk = false;
  };
  forEachChar(piece, [&](char32_t, size_t start, size_t length) {
    std::string text(piece.substr(start, length));
    if (start != 0)
      text.insert(0, continuingPrefix_);
    if (start + length == piece.size())
      text += endSuffix_;
    if (std::optional<int32_t> id = tokenId(text)) {
      flushUnk();
      symbols.push_back(*id);
      return;
    }
    // The reference leaves a pending unknown after the fallback bytes.
    if (byteFallback_ && appendByteFallback(text, symbols))
      return;
    if (!unk_)
      return; // no unknown token: the character is dropped
    if (pendingUnk && !fuseUnk_)
      symbols.push_back(*unk_);
    pendingUnk = true;
  });
  flushUnk();
}

void BpeModel::mergeAll(std::vector<int32_t> &symbols) const {
  struct Candidate {
    int32_t rank, merged;
    size_t pos;
    bool operator<(const Candidate &other) const { // max-heap: invert
      return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
  };
  size_t count = symbols.size();
  std::vector<size_t> next(count), previous(count);
  std::vector<bool> alive(count, true);
  for (size_t i = 0; i < count; ++i) {
    next[i] = i + 1;
    previous[i] = i - 1; // wraps for the first: never read then
  }
  std::priority_queue<Candidate> queue;
  auto push = [&](size_t pos) {
    if (next[pos] >= count)
      return;
    auto it = merges_.find(pairKey(symbols[pos], symbols[next[pos]]));
    if (it != merges_.end())
      queue.push({it->second.rank, it->second.merged, pos});
  };
  for (size_t i = 0; i + 1 < count; ++i)
    push(i);
  while (!queue.empty()) {
    Candidate top = queue.top();
    queue.pop();
    // Skip candidates made stale by an earlier merge.
    if (!alive[top.pos] || next[top.pos] >= count)
      continue;
    size_t right = next[top.pos];
    auto it = merges_.find(pairKey(symbols[top.pos], symbols[right]));
    if (it == merges_.end() || it->second.merged != top.merged)
      continue;
    symbols[top.pos] = top.merged;
    alive[right] = false;
    next[top.pos] = next[right];
    if (next[right] < count)
      previous[next[right]] = top.pos;
    if (top.pos > 0 && previous[top.pos] < count)
      push(previous[top.pos]);
    push(top.pos);
  }
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i)
    if (alive[i])
      symbols[kept++] = symbols[i];
  symbols.resize(kept);
}

void BpeModel::tokenize(std::string_view piece,
                        std::vector<int32_t> &ids) const {
  if (piece.empty())
    return;
  if (ignoreMerges_)
    if (std::optional<int32_t> whole = tokenId(piece)) {
      ids.push_back(*whole);
      return;
    }
  std::vector<int32_t> symbols;
  splitCharacters(piece, symbols);
  mergeAll(symbols);
  ids.insert(ids.end(), symbols.begin(), symbols.end());
}

} // namespace etch::llm
