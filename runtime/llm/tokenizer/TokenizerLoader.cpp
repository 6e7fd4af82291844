// Tells the tokenizer file's format from its bytes and builds it; every
// failure becomes one line naming the file.
#include "runtime/llm/tokenizer/TokenizerLoader.h"
#include "runtime/llm/tokenizer/HfTokenizer.h"
#include "runtime/llm/tokenizer/TiktokenTokenizer.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace etch::llm {

namespace {

TokenizerLoad failure(const std::string &name, const std::string &message) {
  return {nullptr, name + ": " + message};
}

TokenizerLoad loadJson(std::string_view bytes, const std::string &name) {
  try {
    nlohmann::json root = nlohmann::json::parse(bytes.begin(), bytes.end());
    return {std::make_unique<HfTokenizer>(JsonField(root, "")), ""};
  } catch (const nlohmann::json::parse_error &error) {
    return failure(name, std::string("not valid JSON: ") + error.what());
  } catch (const FormatError &error) {
    return failure(name, (error.field.empty() ? "" : error.field + ": ") +
                             "expected " + error.expected);
  } catch (const std::exception &error) {
    return failure(name,
                   std::string("cannot read the tokenizer: ") + error.what());
  }
}

} // namespace

TokenizerFormat tokenizerFormat(std::string_view bytes) {
  size_t first = bytes.find_first_not_of(" \t\r\n");
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") // a byte-order mark
    first = bytes.find_first_not_of(" \t\r\n", 3);
  if (first == std::string_view::npos)
    return TokenizerFormat::Empty;
  if (bytes[first] == '{')
    return TokenizerFormat::Json;
  if (TiktokenTokenizer::looksLikeRanks(bytes))
    return TokenizerFormat::TiktokenRanks;
  return TokenizerFormat::Binary;
}

namespace {
BinaryTokenizerReader readBinary = nullptr; // set by enableSentencePiece()
} // namespace

void setBinaryTokenizerReader(BinaryTokenizerReader reader) {
  readBinary = reader;
}

TokenizerLoad loadTokenizerFromBytes(std::string_view bytes,
                                     const std::string &name) {
  std::string error;
  switch (tokenizerFormat(bytes)) {
  case TokenizerFormat::Empty:
    return failure(name, "empty file; expected a tokenizer.json, a tiktoken "
                         "rank file or a SentencePiece model");
  case TokenizerFormat::Json:
    return loadJson(bytes.substr(bytes.find('{')), name);
  case TokenizerFormat::TiktokenRanks:
    if (auto tokenizer = TiktokenTokenizer::read(bytes, error))
      return {std::move(tokenizer), ""};
    return failure(name, "tiktoken rank file: " + error);
  case TokenizerFormat::Binary:
    break;
  }
  if (!readBinary)
    return failure(name, "a SentencePiece model (or not a tokenizer), and "
                         "this program reads no SentencePiece models");
  if (auto tokenizer = readBinary(bytes, error))
    return {std::move(tokenizer), ""};
  // sentencepiece names its own source line when the protobuf does not parse.
  if (error.find("ParseFromArray") != std::string::npos)
    error = "the bytes are not a ModelProto";
  return failure(name, "not a tokenizer.json (a JSON object), a tiktoken rank "
                       "file (BASE64 RANK lines) or a SentencePiece model "
                       "(sentencepiece: " +
                           error + ")");
}

TokenizerLoad loadTokenizer(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return failure(path, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad())
    return failure(path, "cannot read the file");
  return loadTokenizerFromBytes(contents.str(), path);
}

} // namespace etch::llm
