// tokenizer.json "post_processor" objects, for one sequence: the special
// tokens encode(..., add_special_tokens=True) puts around the ids.
#include "runtime/llm/tokenizer/Components.h"

namespace etch::llm {

namespace {

/// Ids before and after the sequence.
PostProcessor surround(std::vector<int32_t> before,
                       std::vector<int32_t> after) {
  return [=](std::vector<int32_t> &ids) {
    ids.insert(ids.begin(), before.begin(), before.end());
    ids.insert(ids.end(), after.begin(), after.end());
  };
}

int32_t readId(const JsonField &field) {
  return static_cast<int32_t>(field.integer(0, INT32_MAX));
}

/// {"single": [{"SpecialToken": {"id": NAME}} | {"Sequence": {"id": "A"}}],
///  "special_tokens": {NAME: {"ids": [...]}}}
PostProcessor templateProcessing(const JsonField &field) {
  std::vector<int32_t> before, after;
  bool seenSequence = false;
  JsonField specials = field.at("special_tokens");
  for (const JsonField &piece : field.at("single").elements()) {
    if (piece.find("Sequence")) {
      if (seenSequence)
        piece.fail("one {\"Sequence\"} piece in a single-sequence template");
      seenSequence = true;
      continue;
    }
    std::string name = piece.at("SpecialToken").at("id").string();
    std::optional<JsonField> special = specials.find(name.c_str());
    if (!special)
      piece.fail("a special token listed in special_tokens ('" + name +
                 "' is not)");
    for (const JsonField &id : special->at("ids").elements())
      (seenSequence ? after : before).push_back(readId(id));
  }
  if (!seenSequence)
    field.at("single").fail("a template with a {\"Sequence\"} piece");
  return surround(before, after);
}

/// {"cls": [TOKEN, ID], "sep": [TOKEN, ID]}: CLS, the sequence, SEP.
PostProcessor clsSep(const JsonField &field) {
  auto idOf = [](const JsonField &pair) {
    std::vector<JsonField> parts = pair.elements();
    if (parts.size() != 2)
      pair.fail("[token, id]");
    return readId(parts[1]);
  };
  return surround({idOf(field.at("cls"))}, {idOf(field.at("sep"))});
}

PostProcessor sequence(const JsonField &field) {
  std::vector<PostProcessor> stages;
  for (const JsonField &stage : field.at("processors").elements())
    stages.push_back(makePostProcessor(stage));
  return [stages](std::vector<int32_t> &ids) {
    for (const PostProcessor &stage : stages)
      stage(ids);
  };
}

using Handler = PostProcessor (*)(const JsonField &);

const std::pair<const char *, Handler> kPostProcessors[] = {
    {"TemplateProcessing", templateProcessing},
    {"BertProcessing", clsSep},
    {"RobertaProcessing", clsSep},
    {"ByteLevel", // offsets only: the ids stay as they are
     [](const JsonField &) -> PostProcessor {
       return [](std::vector<int32_t> &) {};
     }},
    {"Sequence", sequence},
};

} // namespace

PostProcessor makePostProcessor(const JsonField &field) {
  return buildByType<PostProcessor>(field, kPostProcessors, "post_processor");
}

} // namespace etch::llm
