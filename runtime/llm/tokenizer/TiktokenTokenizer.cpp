#include "runtime/llm/tokenizer/TiktokenTokenizer.h"

#include "runtime/llm/tokenizer/Utf8.h"

#include <algorithm>
#include <queue>

namespace etch::llm {

namespace {

const char *const kCl100kPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/// Standard base64 with '=' padding; false when \p text is not that.
bool decodeBase64(std::string_view text, std::string &out) {
  if (text.empty() || text.size() % 4)
    return false;
  size_t padding = text.size() - text.find_last_not_of('=') - 1;
  if (padding > 2)
    return false;
  uint32_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size() - padding; ++i) {
    int value = base64Value(text[i]);
    if (value < 0)
      return false;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return true;
}

} // namespace

bool TiktokenTokenizer::looksLikeRanks(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0 || space + 1 >= line.size())
    return false;
  for (size_t i = 0; i < space; ++i)
    if (base64Value(line[i]) < 0 && line[i] != '=')
      return false;
  for (size_t i = space + 1; i < line.size(); ++i)
    if ((line[i] < '0' || line[i] > '9') &&
        !(line[i] == '\r' && i + 1 == line.size()))
      return false;
  return true;
}

std::unique_ptr<TiktokenTokenizer>
TiktokenTokenizer::read(std::string_view text, std::string &error) {
  auto tokenizer = std::unique_ptr<TiktokenTokenizer>(new TiktokenTokenizer);
  size_t lineNumber = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, end == std::string_view::npos ? end : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++lineNumber;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty())
      continue;
    size_t space = line.find(' ');
    std::string bytes;
    int64_t rank = -1;
    if (space != std::string_view::npos &&
        decodeBase64(line.substr(0, space), bytes)) {
      std::string digits(line.substr(space + 1));
      char *tail = nullptr;
      long long value = std::strtoll(digits.c_str(), &tail, 10);
      if (!digits.empty() && *tail == 0 && value >= 0 && value < INT32_MAX &&
          digits.find_first_not_of("0123456789") == std::string::npos)
        rank = value;
    }
    if (rank < 0) {
      error = "line " + std::to_string(lineNumber) +
              ": expected 'BASE64 RANK' (a base64 token, a space, a rank "
              "below 2^31)";
      return nullptr;
    }
    if (!tokenizer->ranks_.emplace(bytes, static_cast<int32_t>(rank)).second) {
      error =
          "line " + std::to_string(lineNumber) + ": the token is listed twice";
      return nullptr;
    }
    if (!tokenizer->tokens_.emplace(static_cast<int32_t>(rank), bytes).second) {
      error = "line " + std::to_string(lineNumber) + ": rank " +
              std::to_string(rank) + " is listed twice";
      return nullptr;
    }
    tokenizer->maxRank_ =
        std::max(tokenizer->maxRank_, static_cast<int32_t>(rank));
  }
  for (int byte = 0; byte < 256; ++byte)
    if (!tokenizer->rankOf(std::string(1, static_cast<char>(byte)))) {
      error = "no rank for the single byte " + std::to_string(byte) +
              " (every byte needs one)";
      return nullptr;
    }
  tokenizer->pattern_ = Regex::compile(kCl100kPattern, error);
  return tokenizer;
}

std::optional<int32_t> TiktokenTokenizer::rankOf(std::string_view bytes) const {
  auto it = ranks_.find(std::string(bytes));
  if (it == ranks_.end())
    return std::nullopt;
  return it->second;
}

void TiktokenTokenizer::bytePairEncode(std::string_view piece,
                                       std::vector<int32_t> &ids) const {
  // Parts start at byte offsets; pairRank[i] is the rank of part i joined
  // with the next one. The lowest rank merges first, the leftmost of equal
  // ones (a heap of (rank, start), stale entries skipped).
  size_t count = piece.size();
  std::vector<size_t> next(count), previous(count);
  std::vector<int64_t> pairRank(count, INT64_MAX);
  std::vector<bool> alive(count, true);
  auto rankAt = [&](size_t start) -> int64_t {
    if (next[start] >= count)
      return INT64_MAX;
    size_t end = next[next[start]] < count ? next[next[start]] : count;
    std::optional<int32_t> rank = rankOf(piece.substr(start, end - start));
    return rank ? *rank : INT64_MAX;
  };
  using Entry = std::pair<int64_t, size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (size_t i = 0; i < count; ++i) {
    next[i] = i + 1;
    previous[i] = i - 1;
  }
  for (size_t i = 0; i < count; ++i)
    if ((pairRank[i] = rankAt(i)) != INT64_MAX)
      queue.push({pairRank[i], i});
  while (!queue.empty()) {
    auto [rank, start] = queue.top();
    queue.pop();
    if (!alive[start] || pairRank[start] != rank)
      continue;
    size_t right = next[start];
    alive[right] = false;
    next[start] = next[right];
    if (next[right] < count)
      previous[next[right]] = start;
    for (size_t part : {start > 0 ? previous[start] : count, start}) {
      if (part >= count)
        continue;
      pairRank[part] = rankAt(part);
      if (pairRank[part] != INT64_MAX)
        queue.push({pairRank[part], part});
    }
  }
  for (size_t start = 0; start < count; start = next[start]) {
    size_t end = next[start] < count ? next[start] : count;
    ids.push_back(*rankOf(piece.substr(start, end - start)));
  }
}

std::vector<int32_t> TiktokenTokenizer::encode(std::string_view text,
                                               bool) const {
  std::string valid = toValidUtf8(text);
  std::vector<int32_t> ids;
  for (const ByteRange &match : pattern_->findAll(valid)) {
    std::string_view piece(valid.data() + match.first,
                           match.second - match.first);
    if (std::optional<int32_t> rank = rankOf(piece))
      ids.push_back(*rank);
    else
      bytePairEncode(piece, ids);
  }
  return ids;
}

std::string TiktokenTokenizer::decode(const std::vector<int32_t> &ids) const {
  std::string bytes;
  for (int32_t id : ids) {
    auto it = tokens_.find(id);
    if (it != tokens_.end())
      bytes += it->second;
  }
  return toValidUtf8(bytes);
}

int32_t TiktokenTokenizer::vocabSize() const { return maxRank_ + 1; }

std::optional<std::string> TiktokenTokenizer::token(int32_t id) const {
  auto it = tokens_.find(id);
  if (it == tokens_.end())
    return std::nullopt;
  return it->second;
}

std::optional<int32_t> TiktokenTokenizer::tokenId(std::string_view text) const {
  return rankOf(text);
}

} // namespace etch::llm
