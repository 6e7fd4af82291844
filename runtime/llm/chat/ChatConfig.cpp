#include "runtime/llm/chat/ChatConfig.h"

#include <nlohmann/json.hpp>

namespace etch::llm {

namespace {
const char *const kSpecialTokens[] = {"bos_token", "eos_token", "unk_token",
                                      "pad_token"};

/// A special token entry: a string, or an AddedToken's {"content": ...}.
bool tokenText(const nlohmann::json &value, std::string &text) {
  if (value.is_string()) {
    text = value.get<std::string>();
    return true;
  }
  if (value.is_object() && value.contains("content") &&
      value["content"].is_string()) {
    text = value["content"].get<std::string>();
    return true;
  }
  return false;
}
} // namespace

std::string ChatConfig::toJson() const {
  nlohmann::ordered_json json;
  json["chat_template"] = chatTemplate;
  for (const auto &[name, text] : specialTokens)
    json[name] = text;
  return json.dump();
}

std::string ChatConfig::context(const std::vector<ChatMessage> &messages,
                                bool addGenerationPrompt) const {
  nlohmann::ordered_json json;
  json["messages"] = nlohmann::ordered_json::array();
  for (const ChatMessage &message : messages)
    json["messages"].push_back(
        {{"role", message.role}, {"content", message.content}});
  json["tools"] = nullptr;
  json["documents"] = nullptr;
  json["add_generation_prompt"] = addGenerationPrompt;
  for (const auto &[name, text] : specialTokens)
    json[name] = text;
  return json.dump();
}

bool readChatConfig(std::string_view bytes, const std::string &name,
                    ChatConfig &config, std::string &error) {
  // A JSON object is a config; a template may begin with "{{", "{%", "{#".
  size_t first = bytes.find_first_not_of(" \t\r\n");
  bool isJson = first != std::string_view::npos && bytes[first] == '{' &&
                (first + 1 >= bytes.size() ||
                 (bytes[first + 1] != '{' && bytes[first + 1] != '%' &&
                  bytes[first + 1] != '#'));
  if (!isJson) {
    config.chatTemplate = std::string(bytes);
    if (config.chatTemplate.empty()) {
      error = name + ": empty chat template";
      return false;
    }
    return true;
  }
  nlohmann::json json = nlohmann::json::parse(bytes, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    error = name + ": not valid JSON (a tokenizer_config.json was expected)";
    return false;
  }
  for (const char *token : kSpecialTokens) {
    std::string text;
    auto entry = json.find(token);
    if (entry != json.end() && tokenText(*entry, text))
      config.specialTokens.emplace_back(token, text);
  }
  auto field = json.find("chat_template");
  if (field != json.end() && field->is_string()) {
    config.chatTemplate = field->get<std::string>();
  } else if (field != json.end() && field->is_array()) {
    for (const nlohmann::json &entry : *field)
      if (entry.is_object() && entry.value("name", "") == "default" &&
          entry.contains("template") && entry["template"].is_string())
        config.chatTemplate = entry["template"].get<std::string>();
    if (config.chatTemplate.empty() && !field->empty() &&
        (*field)[0].is_object() && (*field)[0].contains("template") &&
        (*field)[0]["template"].is_string())
      config.chatTemplate = (*field)[0]["template"].get<std::string>();
  }
  if (config.chatTemplate.empty()) {
    error = name + ": has no chat_template (a string, or a list of "
                   "{\"name\", \"template\"} objects)";
    return false;
  }
  return true;
}

} // namespace etch::llm
