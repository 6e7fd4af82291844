// Hugging Face chat templates (the Jinja in tokenizer_config.json's
// "chat_template"), rendered as transformers' apply_chat_template renders
// them: Jinja with trim_blocks and lstrip_blocks, the statements, filters,
// tests and Python methods chat templates use, raise_exception and
// strftime_now. Parsing and rendering may fail with a message; nothing
// else leaves the library.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace etch::llm {

namespace jinja {
struct Node;
}

struct ChatMessage {
  std::string role, content;
};

class ChatTemplate {
public:
  /// The parsed template, or null with \p error set ("chat template line
  /// N: ...").
  static std::unique_ptr<ChatTemplate> parse(const std::string &source,
                                             std::string &error);
  ~ChatTemplate();

  /// Renders with \p contextJson, a JSON object of the template's
  /// variables ("messages", "add_generation_prompt", "bos_token", ...).
  /// False with \p error set when the template raises or fails.
  bool renderJson(std::string_view contextJson, std::string &out,
                  std::string &error) const;

  /// Renders \p messages with the special tokens the template may name.
  bool render(const std::vector<ChatMessage> &messages,
              bool addGenerationPrompt, const std::string &bosToken,
              const std::string &eosToken, std::string &out,
              std::string &error) const;

private:
  ChatTemplate();
  std::unique_ptr<std::vector<jinja::Node>> nodes_;
};

} // namespace etch::llm
