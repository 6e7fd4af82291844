// Renders a parsed chat template with its variables (messages,
// add_generation_prompt, bos_token, ...). Throws TemplateError.
#pragma once

#include "runtime/llm/chat/JinjaAst.h"

namespace etch::llm::jinja {

std::string renderTemplate(const std::vector<Node> &nodes, Dict variables);

} // namespace etch::llm::jinja
