#include "TokenizerFiles.h"

#include "runtime/llm/tokenizer/Tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
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

/// The chat template in \p bytes: a tokenizer_config.json's
/// "chat_template" (a string, or named templates of which "default" is
/// taken), or the file itself when it is not a JSON object. Empty when a
/// config has none.
bool chatTemplateOf(const std::string &path, const std::string &bytes,
                    std::string &text, std::string &error) {
  llvm::StringRef trimmed = llvm::StringRef(bytes).ltrim();
  if (!trimmed.starts_with("{")) {
    text = bytes;
    return true;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(bytes);
  if (!parsed) {
    error = path + ": not valid JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *config = parsed->getAsObject();
  const llvm::json::Value *field =
      config ? config->get("chat_template") : nullptr;
  if (!field || field->getAsNull())
    return true;
  if (std::optional<llvm::StringRef> single = field->getAsString()) {
    text = single->str();
    return true;
  }
  if (const llvm::json::Array *named = field->getAsArray()) {
    for (const llvm::json::Value &entry : *named) {
      const llvm::json::Object *object = entry.getAsObject();
      std::optional<llvm::StringRef> name =
          object ? object->getString("name") : std::nullopt;
      std::optional<llvm::StringRef> body =
          object ? object->getString("template") : std::nullopt;
      if (!name || !body)
        break;
      if (text.empty() || *name == "default")
        text = body->str();
    }
    if (!text.empty())
      return true;
  }
  error = path + ": chat_template: expected a string or a list of "
                 "{\"name\", \"template\"} objects";
  return false;
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

  std::string source = templatePath;
  if (source.empty()) {
    // What transformers writes beside tokenizer.json.
    llvm::SmallString<256> folder(tokenizerPath);
    llvm::sys::path::remove_filename(folder);
    for (const char *name : {"chat_template.jinja", "tokenizer_config.json"}) {
      llvm::SmallString<256> candidate(folder);
      llvm::sys::path::append(candidate, name);
      if (llvm::sys::fs::exists(candidate)) {
        source = std::string(candidate);
        break;
      }
    }
  }
  if (source.empty())
    return true;
  std::string templateBytes, text;
  if (!readFile(source, templateBytes, error) ||
      !chatTemplateOf(source, templateBytes, text, error))
    return false;
  if (text.empty() && !templatePath.empty()) {
    error = source + ": has no chat_template";
    return false;
  }
  if (!text.empty())
    files.push_back({"chat_template", std::move(text)});
  return true;
}

} // namespace etch::tools
