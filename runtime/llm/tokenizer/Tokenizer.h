// Text <-> token ids for LLM programs, with the results of the reference
// libraries: Hugging Face tokenizer.json files (BPE and Unigram models with
// their normalizers, pre-tokenizers, decoders, post-processors and added
// tokens), SentencePiece .model files and tiktoken rank files.
//
// An optional library beside the runtime (it needs oniguruma, utf8proc,
// nlohmann-json and sentencepiece; the runtime core needs none of them).
// Loading may fail with a message; encoding and decoding cannot.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace etch::llm {

class Tokenizer {
public:
  virtual ~Tokenizer() = default;

  /// The ids of \p text; \p addSpecial adds what the tokenizer adds around a
  /// sequence (a begin-of-text token, ...), as encode(text,
  /// add_special_tokens=True) does. Invalid UTF-8 is read as U+FFFD.
  virtual std::vector<int32_t> encode(std::string_view text,
                                      bool addSpecial) const = 0;

  /// The text of \p ids, special tokens included (decode(ids) with
  /// skip_special_tokens=False). Ids outside the vocabulary are skipped, as
  /// the reference does; check them with token() first to report them.
  virtual std::string decode(const std::vector<int32_t> &ids) const = 0;

  /// The number of ids, added tokens included: every id below it has a token.
  virtual int32_t vocabSize() const = 0;

  /// The token string of \p id (in the tokenizer's own alphabet), if any.
  virtual std::optional<std::string> token(int32_t id) const = 0;

  /// The id of the token spelt \p text exactly, if any.
  virtual std::optional<int32_t> tokenId(std::string_view text) const = 0;
};

/// A tokenizer, or the one-line reason the file cannot be one.
struct TokenizerLoad {
  std::unique_ptr<Tokenizer> tokenizer;
  std::string error; // "FILE: FIELD: what was expected"
};

/// Reads \p path, telling the format from its contents: a JSON object is a
/// tokenizer.json, lines of "BASE64 RANK" a tiktoken file, anything else a
/// SentencePiece model.
TokenizerLoad loadTokenizer(const std::string &path);

/// The same for bytes already in memory; \p name stands for the file in
/// messages.
TokenizerLoad loadTokenizerFromBytes(std::string_view bytes,
                                     const std::string &name);

/// What a tokenizer file is, from its first bytes.
enum class TokenizerFormat { Empty, Json, TiktokenRanks, Binary };
TokenizerFormat tokenizerFormat(std::string_view bytes);

/// Lets the loaders read SentencePiece models (library
/// etch_tokenizer_sentencepiece). Separate because libsentencepiece carries
/// its own protobuf runtime, which aborts in a process that also has
/// libprotobuf (et-compile, through libonnx); without it a binary file is
/// an error saying so.
void enableSentencePiece();

} // namespace etch::llm
