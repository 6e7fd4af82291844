// The Jinja renderer's rules that the reference comparison
// (reference-sid.test) does not pin down one by one, and every error path
// with its message.
#include "runtime/llm/chat/ChatTemplate.h"
#include "runtime/llm/chat/ChatConfig.h"
#include "runtime/llm/chat/JinjaValue.h"

#include <gtest/gtest.h>

namespace etch::llm {
namespace {

std::string render(const std::string &source,
                   const std::string &context = "{}") {
  std::string error, out;
  std::unique_ptr<ChatTemplate> parsed = ChatTemplate::parse(source, error);
  if (!parsed)
    return "parse error: " + error;
  if (!parsed->renderJson(context, out, error))
    return "render error: " + error;
  return out;
}

// Strings as Python's repr and json.dumps write them: repr picks the quote,
// both use short escapes, other control bytes in each one's hex form.
TEST(ChatTemplate, QuotesStringsAsPythonAndJsonDo) {
  std::string context =
      R"({"s": ["it's", "say \"hi\"", "a\tb\nc\u0001\u007f", "both ' and \""]})";
  EXPECT_EQ(render("{{ s }}", context),
            R"(["it's", 'say "hi"', 'a\tb\nc\x01\x7f', 'both \' and "'])");
  EXPECT_EQ(render("{{ s | tojson }}", context),
            "[\"it's\", \"say \\\"hi\\\"\", \"a\\tb\\nc\\u0001\x7f\", "
            "\"both ' and \\\"\"]");
}

// trim_blocks and lstrip_blocks, as transformers renders with them, and the
// explicit "-" / "+" controls.
TEST(ChatTemplate, WhitespaceControl) {
  EXPECT_EQ(render("{% if true %}\n  x\n  {% endif %}\ny"), "  x\ny");
  EXPECT_EQ(render("a  {%- if true -%}  b  {%- endif -%}  c"), "abc");
  EXPECT_EQ(render("a {{- ' b ' -}} c"), "a b c");
  EXPECT_EQ(render("  {%+ if true %}x{% endif %}"), "  x");
  EXPECT_EQ(render("{{ 'x' }}\n{# comment #}\ny"), "x\ny");
}

TEST(ChatTemplate, PythonValuesPrintAsPythonDoes) {
  EXPECT_EQ(
      render("{{ 1.0 }} {{ 0.1 + 0.2 }} {{ 1e16 }} {{ true }} {{ none }}"),
      "1.0 0.30000000000000004 1e+16 True None");
  EXPECT_EQ(
      render("{{ 1e15 }} {{ 0.00001 }} {{ 0.0001 }} {{ -2.5 }} {{ 7 / 7 }}"),
      "1000000000000000.0 1e-05 0.0001 -2.5 1.0");
  EXPECT_EQ(render("{{ ['a', \"it's\", 1, none] }}"),
            "['a', \"it's\", 1, None]");
  EXPECT_EQ(render("{{ {'k': [1, 2.5]} | tojson }}"), "{\"k\": [1, 2.5]}");
  EXPECT_EQ(render("{{ {'k': 'a'} | tojson(indent=2) }}"),
            "{\n  \"k\": \"a\"\n}");
  EXPECT_EQ(render("{{ undefined_name }}|{{ x is defined }}"), "|False");
}

TEST(ChatTemplate, StringsIndexByCharacter) {
  EXPECT_EQ(render("{{ s[0] }}{{ s[-1] }}{{ s[1:3] }}{{ s|length }}",
                   R"({"s": "日本語!"})"),
            "日!本語4");
  EXPECT_EQ(
      render("{{ s.split() }}{{ s.split(',', 1) }}", R"({"s": " a,b  c,d "})"),
      "['a,b', 'c,d']"
      "[' a', 'b  c,d ']");
}

TEST(ChatTemplate, Errors) {
  EXPECT_EQ(render("a\n{% if x %"),
            "parse error: chat template line 2: a tag is not closed (no '%}')");
  EXPECT_EQ(render("{% if x %}\nnever closed"),
            "parse error: chat template line 1: the block is not closed "
            "(expected 'elif' or 'else' or 'endif')");
  EXPECT_EQ(render("{% macro m() %}{% endmacro %}"),
            "parse error: chat template line 1: 'macro' blocks are not "
            "supported (etch renders if, for, set, break, continue and "
            "generation)");
  EXPECT_EQ(render("{{ 1 + }}"),
            "parse error: chat template line 1: expected a value at the end "
            "of the tag");
  EXPECT_EQ(render("{{ x | bogus }}"), "render error: no filter named 'bogus'");
  EXPECT_EQ(render("{{ raise_exception('roles must alternate') }}"),
            "render error: roles must alternate");
  EXPECT_EQ(render("{{ missing.attribute }}"),
            "render error: 'attribute' of an undefined value "
            "(jinja2.UndefinedError)");
  EXPECT_EQ(render("{{ 1 / 0 }}"),
            "render error: chat template line 1: division by zero");
  EXPECT_EQ(render("x", "[1]"),
            "render error: the chat context is not a JSON object");
  // Integers past int64 (Python's would grow): an error, never a wrap.
  EXPECT_EQ(render("{{ 4611686018427387904 * 2 }}"),
            "render error: chat template line 1: integer overflow in "
            "4611686018427387904 * 2");
  EXPECT_EQ(render("{{ 2 ** 63 }}"),
            "render error: chat template line 1: integer overflow in 2 ** 63");
}

TEST(ChatTemplate, IntegerArithmeticAsPython) {
  // Floor division and modulo take the divisor's sign; powers by squaring
  // (a huge exponent of 1 or -1 is quick); negative powers are floats.
  EXPECT_EQ(render("{{ -7 // 2 }} {{ -7 % 2 }} {{ 7 % -2 }} {{ 7 // -1 }}"),
            "-4 1 -1 -7");
  EXPECT_EQ(render("{{ (-1) ** 1000000000000000001 }} {{ 2 ** 62 }}"),
            "-1 4611686018427387904");
  EXPECT_EQ(render("{{ 2 ** -1 }}"), "0.5");
}

TEST(ChatConfig, ReadsTokenizerConfigs) {
  ChatConfig config;
  std::string error;
  ASSERT_TRUE(readChatConfig(
      R"({"bos_token": {"content": "<s>"}, "eos_token": "</s>",
          "chat_template": [{"name": "rag", "template": "R"},
                            {"name": "default", "template": "D"}]})",
      "config.json", config, error))
      << error;
  EXPECT_EQ(config.chatTemplate, "D");
  ASSERT_EQ(config.specialTokens.size(), 2u);
  EXPECT_EQ(config.specialTokens[0].second, "<s>");
  ChatConfig none;
  EXPECT_FALSE(
      readChatConfig(R"({"eos_token": "</s>"})", "c.json", none, error));
  EXPECT_EQ(error, "c.json: has no chat_template (a string, or a list of "
                   "{\"name\", \"template\"} objects)");
  EXPECT_EQ(none.specialTokens.size(), 1u);
  ChatConfig jinja;
  ASSERT_TRUE(readChatConfig("{{ messages }}", "t.jinja", jinja, error));
  EXPECT_EQ(jinja.chatTemplate, "{{ messages }}");
}

} // namespace
} // namespace etch::llm
