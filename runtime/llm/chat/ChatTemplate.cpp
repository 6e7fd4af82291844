#include "runtime/llm/chat/ChatTemplate.h"

#include "runtime/llm/chat/JinjaRender.h"

#include <nlohmann/json.hpp>

namespace etch::llm {

using jinja::Value;

namespace {

Value fromJson(const nlohmann::json &json) {
  switch (json.type()) {
  case nlohmann::json::value_t::null:
    return Value::none();
  case nlohmann::json::value_t::boolean:
    return Value(json.get<bool>());
  case nlohmann::json::value_t::number_integer:
  case nlohmann::json::value_t::number_unsigned:
    return Value(json.get<int64_t>());
  case nlohmann::json::value_t::number_float:
    return Value(json.get<double>());
  case nlohmann::json::value_t::string:
    return Value(json.get<std::string>());
  case nlohmann::json::value_t::array: {
    jinja::List items;
    for (const nlohmann::json &element : json)
      items.push_back(fromJson(element));
    return Value::list(items);
  }
  case nlohmann::json::value_t::object: {
    jinja::Dict entries;
    for (auto it = json.begin(); it != json.end(); ++it)
      entries.emplace_back(it.key(), fromJson(it.value()));
    return Value::dict(entries);
  }
  default:
    return Value();
  }
}

bool renderWith(const std::vector<jinja::Node> &nodes, jinja::Dict variables,
                std::string &out, std::string &error) {
  try {
    out = jinja::renderTemplate(nodes, std::move(variables));
    return true;
  } catch (const jinja::TemplateError &failure) {
    error = failure.message;
  } catch (const std::exception &failure) {
    error = failure.what();
  }
  return false;
}

} // namespace

ChatTemplate::ChatTemplate() = default;
ChatTemplate::~ChatTemplate() = default;

std::unique_ptr<ChatTemplate> ChatTemplate::parse(const std::string &source,
                                                  std::string &error) {
  auto parsed = std::unique_ptr<ChatTemplate>(new ChatTemplate);
  try {
    parsed->nodes_ = std::make_unique<std::vector<jinja::Node>>(
        jinja::parseTemplate(source));
    return parsed;
  } catch (const jinja::TemplateError &failure) {
    error = failure.message;
  } catch (const std::exception &failure) {
    error = failure.what();
  }
  return nullptr;
}

bool ChatTemplate::renderJson(std::string_view contextJson, std::string &out,
                              std::string &error) const {
  // The context's key order is kept: dicts iterate as the caller wrote them.
  nlohmann::ordered_json context =
      nlohmann::ordered_json::parse(contextJson, nullptr, false);
  if (context.is_discarded() || !context.is_object()) {
    error = "the chat context is not a JSON object";
    return false;
  }
  jinja::Dict variables;
  for (auto it = context.begin(); it != context.end(); ++it)
    variables.emplace_back(it.key(), fromJson(nlohmann::json(it.value())));
  return renderWith(*nodes_, std::move(variables), out, error);
}

bool ChatTemplate::render(const std::vector<ChatMessage> &messages,
                          bool addGenerationPrompt, const std::string &bosToken,
                          const std::string &eosToken, std::string &out,
                          std::string &error) const {
  jinja::List list;
  for (const ChatMessage &message : messages)
    list.push_back(Value::dict(
        {{"role", Value(message.role)}, {"content", Value(message.content)}}));
  return renderWith(*nodes_,
                    {{"messages", Value::list(list)},
                     {"add_generation_prompt", Value(addGenerationPrompt)},
                     {"bos_token", Value(bosToken)},
                     {"eos_token", Value(eosToken)}},
                    out, error);
}

} // namespace etch::llm
