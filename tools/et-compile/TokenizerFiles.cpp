#include "TokenizerFiles.h"

#include "runtime/llm/chat/ChatConfig.h"
#include "runtime/llm/tokenizer/Tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace etch::tools {

namespace {

bool readFile(const std::string &path, std::string &bytes, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = path + ": cannot open: " + buffer.getError().message();
    return false;
  }
  bytes = (*buffer)->getBuffer().str();
  return true;
}

} // namespace

bool readTokenizerFiles(const std::string &tokenizerPath,
                        const std::string &templatePath,
                        std::vector<NamedData> &files, std::string &error) {
  std::string bytes;
  if (!readFile(tokenizerPath, bytes, error))
    return false;
  // A SentencePiece model is only recognised here: libsentencepiece cannot
  // load in a process with libprotobuf (et-llm checks it when it loads it).
  // A ModelProto starts with its first piece (field 1, length-delimited).
  if (etch::llm::tokenizerFormat(bytes) == etch::llm::TokenizerFormat::Binary) {
    if (bytes[0] != 0x0A) {
      error = tokenizerPath + ": not a tokenizer.json (a JSON object), a "
                              "tiktoken rank file (BASE64 RANK lines) or a "
                              "SentencePiece model";
      return false;
    }
  } else {
    etch::llm::TokenizerLoad load =
        etch::llm::loadTokenizerFromBytes(bytes, tokenizerPath);
    if (!load.tokenizer) {
      error = load.error;
      return false;
    }
  }
  files.push_back({"tokenizer", std::move(bytes)});

  // transformers writes the template beside tokenizer.json, in
  // chat_template.jinja or in tokenizer_config.json (which also names the
  // special tokens a template may print).
  llvm::SmallString<256> folder(tokenizerPath);
  llvm::sys::path::remove_filename(folder);
  auto beside = [&](const char *name) {
    llvm::SmallString<256> path(folder);
    llvm::sys::path::append(path, name);
    return llvm::sys::fs::exists(path) ? std::string(path) : std::string();
  };
  etch::llm::ChatConfig config;
  std::string configPath = beside("tokenizer_config.json"), otherBytes;
  if (!configPath.empty() && readFile(configPath, otherBytes, error))
    (void)etch::llm::readChatConfig(otherBytes, configPath, config, error);
  std::string source =
      templatePath.empty() ? beside("chat_template.jinja") : templatePath;
  if (!source.empty()) {
    etch::llm::ChatConfig given;
    if (!readFile(source, otherBytes, error) ||
        !etch::llm::readChatConfig(otherBytes, source, given, error))
      return false;
    config.chatTemplate = given.chatTemplate;
    if (!given.specialTokens.empty())
      config.specialTokens = given.specialTokens;
  } else {
    source = configPath;
  }
  if (config.chatTemplate.empty())
    return true; // no template anywhere: the tokenizer alone
  std::string parseError;
  if (!etch::llm::ChatTemplate::parse(config.chatTemplate, parseError)) {
    error = source + ": " + parseError;
    return false;
  }
  files.push_back({"chat_config", config.toJson()});
  return true;
}

} // namespace etch::tools
