// Inside the tokenizer libraries: how the SentencePiece library plugs its
// reader into loadTokenizerFromBytes (see enableSentencePiece).
#pragma once

#include "runtime/llm/tokenizer/Tokenizer.h"

namespace etch::llm {

using BinaryTokenizerReader = std::unique_ptr<Tokenizer> (*)(std::string_view,
                                                             std::string &);
void setBinaryTokenizerReader(BinaryTokenizerReader reader);

} // namespace etch::llm
