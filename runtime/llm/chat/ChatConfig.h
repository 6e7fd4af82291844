// What a chat needs besides the tokenizer: the template and the special
// tokens it names, read from a tokenizer_config.json or a Jinja file, and
// kept in a program as one JSON object (named data "chat_config").
#pragma once

#include "runtime/llm/chat/ChatTemplate.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace etch::llm {

struct ChatConfig {
  std::string chatTemplate;
  /// bos_token, eos_token, unk_token, pad_token: those the config sets.
  std::vector<std::pair<std::string, std::string>> specialTokens;

  /// The config as the JSON object a program carries.
  std::string toJson() const;

  /// The variables transformers' apply_chat_template renders with: the
  /// messages, tools and documents (none), add_generation_prompt and the
  /// special tokens, as a JSON object for ChatTemplate::renderJson.
  std::string context(const std::vector<ChatMessage> &messages,
                      bool addGenerationPrompt) const;
};

/// Reads \p bytes: a tokenizer_config.json (its "chat_template", the
/// "default" of named templates, and its special tokens, strings or
/// {"content": ...} objects), a program's chat_config, or else a Jinja
/// template. False with \p error naming \p name when it has no template
/// (the special tokens are read all the same).
bool readChatConfig(std::string_view bytes, const std::string &name,
                    ChatConfig &config, std::string &error);

} // namespace etch::llm
