// tokenizer.json "decoder" objects: each rewrites the list of token strings.
#include "runtime/llm/tokenizer/ByteLevel.h"
#include "runtime/llm/tokenizer/Components.h"
#include "runtime/llm/tokenizer/Utf8.h"

namespace etch::llm {

namespace {

/// Byte-level characters back to bytes; a token holding anything else is
/// kept as its own UTF-8. The bytes are then read as UTF-8, lossily.
void decodeByteLevel(std::vector<std::string> &tokens) {
  std::string bytes;
  for (const std::string &token : tokens) {
    std::string tokenBytes;
    bool allByteLevel = true;
    forEachChar(token, [&](char32_t c, size_t, size_t) {
      std::optional<unsigned char> byte = fromByteLevel(c);
      if (byte)
        tokenBytes += static_cast<char>(*byte);
      else
        allByteLevel = false;
    });
    bytes += allByteLevel ? tokenBytes : token;
  }
  tokens.assign(1, toValidUtf8(bytes));
}

/// "<0xAB>" tokens in a row become the text their bytes spell, or one
/// U+FFFD per byte when they are not valid UTF-8.
void decodeByteFallback(std::vector<std::string> &tokens) {
  std::vector<std::string> result;
  std::string bytes;
  size_t byteTokens = 0;
  auto flush = [&] {
    if (!byteTokens)
      return;
    if (toValidUtf8(bytes) == bytes) {
      result.push_back(bytes);
    } else {
      for (size_t i = 0; i < byteTokens; ++i)
        result.push_back("\xEF\xBF\xBD");
    }
    bytes.clear();
    byteTokens = 0;
  };
  for (const std::string &token : tokens) {
    auto hex = [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') ||
             (c >= 'a' && c <= 'f');
    };
    if (token.size() == 6 && token.compare(0, 3, "<0x") == 0 &&
        token[5] == '>' && hex(token[3]) && hex(token[4])) {
      bytes += static_cast<char>(std::stoi(token.substr(3, 2), nullptr, 16));
      ++byteTokens;
      continue;
    }
    flush();
    result.push_back(token);
  }
  flush();
  tokens = std::move(result);
}

Decoder metaspace(const JsonField &field) {
  std::string replacement = readCharacter(field.at("replacement"));
  char32_t marker = 0;
  decodeUtf8(replacement, 0, marker);
  bool dropFirst = true;
  if (std::optional<JsonField> scheme = field.find("prepend_scheme"))
    dropFirst = scheme->string() != "never";
  else
    dropFirst = field.getBool("add_prefix_space", true);
  return [=](std::vector<std::string> &tokens) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string out;
      forEachChar(tokens[i], [&](char32_t c, size_t start, size_t length) {
        if (c != marker)
          out.append(tokens[i], start, length);
        else if (i != 0 || !dropFirst)
          out += ' ';
      });
      tokens[i] = std::move(out);
    }
  };
}

Decoder strip(const JsonField &field) {
  std::string content = readCharacter(field.at("content"));
  int64_t start = field.at("start").integer(0, INT32_MAX);
  int64_t stop = field.at("stop").integer(0, INT32_MAX);
  return [=](std::vector<std::string> &tokens) {
    for (std::string &token : tokens) {
      size_t first = 0, last = token.size();
      for (int64_t i = 0;
           i < start && token.compare(first, content.size(), content) == 0; ++i)
        first += content.size();
      for (int64_t i = 0;
           i < stop && last - first >= content.size() &&
           token.compare(last - content.size(), content.size(), content) == 0;
           ++i)
        last -= content.size();
      token = token.substr(first, last - first);
    }
  };
}

/// WordPiece's "##" continuation prefix, and its spacing cleanup.
Decoder wordPiece(const JsonField &field) {
  std::string prefix = field.getString("prefix", "##");
  bool cleanup = field.getBool("cleanup", true);
  static const std::pair<const char *, const char *> kCleanups[] = {
      {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
      {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
      {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  return [=](std::vector<std::string> &tokens) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string &token = tokens[i];
      if (i != 0) {
        if (!prefix.empty() && token.compare(0, prefix.size(), prefix) == 0)
          token.erase(0, prefix.size());
        else
          token.insert(0, 1, ' ');
      }
      if (cleanup)
        for (const auto &[from, to] : kCleanups)
          token = replaceAll(token, literalPattern(from), to);
    }
  };
}

Decoder sequence(const JsonField &field) {
  std::vector<Decoder> stages;
  for (const JsonField &stage : field.at("decoders").elements())
    stages.push_back(makeDecoder(stage));
  return [stages](std::vector<std::string> &tokens) {
    for (const Decoder &stage : stages)
      stage(tokens);
  };
}

using Handler = Decoder (*)(const JsonField &);

const std::pair<const char *, Handler> kDecoders[] = {
    {"Sequence", sequence},
    {"ByteLevel", [](const JsonField &) -> Decoder { return decodeByteLevel; }},
    {"ByteFallback",
     [](const JsonField &) -> Decoder { return decodeByteFallback; }},
    {"Metaspace", metaspace},
    {"Fuse",
     [](const JsonField &) -> Decoder {
       return [](std::vector<std::string> &tokens) {
         std::string joined;
         for (const std::string &token : tokens)
           joined += token;
         tokens.assign(1, joined);
       };
     }},
    {"Strip", strip},
    {"Replace",
     [](const JsonField &field) -> Decoder {
       Pattern pattern = readPattern(field.at("pattern"));
       std::string content = field.at("content").string();
       return [=](std::vector<std::string> &tokens) {
         for (std::string &token : tokens)
           token = replaceAll(token, pattern, content);
       };
     }},
    {"WordPiece", wordPiece},
    {"BPEDecoder",
     [](const JsonField &field) -> Decoder {
       std::string suffix = field.getString("suffix", "</w>");
       return [=](std::vector<std::string> &tokens) {
         for (size_t i = 0; i < tokens.size(); ++i)
           tokens[i] = replaceAll(tokens[i], literalPattern(suffix),
                                  i + 1 == tokens.size() ? "" : " ");
       };
     }},
};

} // namespace

Decoder makeDecoder(const JsonField &field) {
  return buildByType<Decoder>(field, kDecoders, "decoder");
}

} // namespace etch::llm
