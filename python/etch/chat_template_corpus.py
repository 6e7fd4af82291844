"""Chat templates of real model families and what transformers renders them to.

Runs in the sid chroot (scripts/torch-run.sh). The templates are written out
here from the families' published tokenizer_config.json files (Llama 2 and
3, Mistral, Gemma, Qwen2 / ChatML, Zephyr, Phi-3), plus one that exercises
the rest of the Jinja chat templates use (namespace, loop filters and
controls, tojson, slicing, string methods, arithmetic). Writes
OUT/chat_templates/NAME.jinja (and NAME/tokenizer_config.json for one) and
OUT/chat_templates/cases.json:

  [{"template": FILE, "context": {...}, "expected": TEXT}
   | {"template": FILE, "context": {...}, "error": MESSAGE}, ...]

`context` is exactly what apply_chat_template renders with: the messages,
tools and documents (None), add_generation_prompt and the tokenizer's
special tokens; `expected` is apply_chat_template(tokenize=False).
"""

import argparse
import json
import os

from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast

TEMPLATES = {
    "llama3": (
        "{% set loop_messages = messages %}{% for message in loop_messages %}"
        "{% set content = '<|start_header_id|>' + message['role'] + "
        "'<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}"
        "{% if loop.index0 == 0 %}{% set content = bos_token + content %}"
        "{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}"
        "{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"),
    "llama2": (
        "{% if messages[0]['role'] == 'system' %}{% set loop_messages = "
        "messages[1:] %}{% set system_message = messages[0]['content'] %}"
        "{% else %}{% set loop_messages = messages %}{% set system_message = "
        "false %}{% endif %}{% for message in loop_messages %}{% if "
        "(message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ "
        "raise_exception('Conversation roles must alternate user/assistant/"
        "user/assistant/...') }}{% endif %}{% if loop.index0 == 0 and "
        "system_message != false %}{% set content = '<<SYS>>\\n' + "
        "system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else "
        "%}{% set content = message['content'] %}{% endif %}{% if "
        "message['role'] == 'user' %}{{ bos_token + '[INST] ' + "
        "content.strip() + ' [/INST]' }}{% elif message['role'] == "
        "'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}"
        "{% endif %}{% endfor %}"),
    "mistral": (
        "{{ bos_token }}{% for message in messages %}{% if (message['role'] "
        "== 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception("
        "'Conversation roles must alternate user/assistant/user/assistant/"
        "...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + "
        "message['content'] + ' [/INST]' }}{% elif message['role'] == "
        "'assistant' %}{{ message['content'] + eos_token}}{% else %}{{ "
        "raise_exception('Only user and assistant roles are supported!') }}"
        "{% endif %}{% endfor %}"),
    "gemma": (
        "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ "
        "raise_exception('System role not supported') }}{% endif %}{% for "
        "message in messages %}{% if (message['role'] == 'user') != "
        "(loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must "
        "alternate user/assistant/user/assistant/...') }}{% endif %}{% if "
        "(message['role'] == 'assistant') %}{% set role = 'model' %}{% else "
        "%}{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + "
        "role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}"
        "{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}"
        "{% endif %}"),
    "chatml": (
        "{% for message in messages %}{% if loop.first and messages[0]['role']"
        " != 'system' %}{{ '<|im_start|>system\nYou are a helpful assistant."
        "<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n'"
        " + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if "
        "add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"),
    "zephyr": (
        "{% for message in messages %}\n"
        "{% if message['role'] == 'user' %}\n"
        "{{ '<|user|>\n' + message['content'] + eos_token }}\n"
        "{% elif message['role'] == 'system' %}\n"
        "{{ '<|system|>\n' + message['content'] + eos_token }}\n"
        "{% elif message['role'] == 'assistant' %}\n"
        "{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n"
        "{% endif %}\n"
        "{% if loop.last and add_generation_prompt %}\n"
        "{{ '<|assistant|>' }}\n"
        "{% endif %}\n"
        "{% endfor %}"),
    "phi3": (
        "{% for message in messages %}{% if message['role'] == 'system' %}"
        "{{'<|system|>\n' + message['content'] + '<|end|>\n'}}{% elif "
        "message['role'] == 'user' %}{{'<|user|>\n' + message['content'] + "
        "'<|end|>\n'}}{% elif message['role'] == 'assistant' %}{{"
        "'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}"
        "{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}"
        "{% else %}{{ eos_token }}{% endif %}"),
    "features": """{#- Everything else chat templates use. -#}
{%- set ns = namespace(system='', count=0) -%}
{%- for m in messages if m.role == 'system' -%}
  {%- set ns.system = ns.system ~ m.content -%}
{%- endfor -%}
{%- if ns.system -%}<<{{ ns.system | upper }}>>{{ '\\n' }}{%- endif -%}
{%- for m in messages -%}
  {%- if m.role == 'system' %}{% continue %}{% endif -%}
  {%- set ns.count = ns.count + 1 -%}
  [{{ loop.index }}/{{ loop.length }} {{ m.role|title }}{% if loop.first %} first{% endif %}{% if loop.last %} last{% endif %}] {{ m.content.strip() | replace('\\n', ' / ') }}
  {%- if m.content is string and m.content.startswith('STOP') %}{% break %}{% endif %}
{% endfor -%}
{{ ns.count }} turns; words={{ (messages | last).content.split() | length }}; json={{ {'n': ns.count, 'roles': messages | map(attribute='role') | list, 'ok': true, 'x': none, 'f': 1.5, 'text': messages[-1].content} | tojson }}
{%- if messages | selectattr('role', 'equalto', 'assistant') | list | length > 0 %} has-assistant{% endif %}
{%- if tools is not none %} tools{% endif %}{% if documents is none %} no-documents{% endif %}
{%- if add_generation_prompt %}
{{ 'ASSISTANT:' if messages[-1].role != 'assistant' else '' }}{{ messages[0].content[:5] ~ '|' ~ messages[-1]['content'][-3:] }}
{{ range(3) | join(',') }} {{ 7 // 2 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 10 / 4 }} {{ 3 * 'ab' }} {{ [1, 2] + [3] }} {{ 'x' in 'xyz' }} {{ 4 not in [1, 2] }}
{{ messages | length is even }} {{ "It's" }} {{ {'a': 1}.get('b', 'none') }} {% for k, v in {'k1': 1, 'k2': [2]}.items() %}{{ k }}={{ v }};{% endfor %}
{%- endif %}
""",
}

CONVERSATIONS = [
    [{"role": "user", "content": "Hello, how are you?"}],
    [{"role": "system", "content": "You are terse."},
     {"role": "user", "content": "Hi"},
     {"role": "assistant", "content": "Hello!"},
     {"role": "user", "content": "What is 2+2?\nExplain."}],
    [{"role": "user", "content": "  spaced  \n"},
     {"role": "assistant", "content": " yes "},
     {"role": "user",
      "content": "日本語 😀 \"quoted\" 'single' \\ back\tslash é"}],
    [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}],
    [{"role": "user", "content": "STOP here"},
     {"role": "assistant", "content": "ok"}],
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="all")
    args = parser.parse_args()
    out = os.path.join(args.out, "chat_templates")
    os.makedirs(out, exist_ok=True)
    specials = ["<s>", "</s>", "<unk>"]
    base = Tokenizer(models.WordLevel({t: i for i, t in enumerate(specials)},
                                      unk_token="<unk>"))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=base,
                                        bos_token="<s>", eos_token="</s>",
                                        unk_token="<unk>")
    cases = []
    for name, template in TEMPLATES.items():
        path = name + ".jinja"
        with open(os.path.join(out, path), "w", encoding="utf-8") as f:
            f.write(template)
        for messages in CONVERSATIONS:
            for generation in (True, False):
                context = {"messages": messages, "tools": None,
                           "documents": None,
                           "add_generation_prompt": generation,
                           **tokenizer.special_tokens_map}
                case = {"template": path, "context": context}
                try:
                    case["expected"] = tokenizer.apply_chat_template(
                        messages, tokenize=False,
                        add_generation_prompt=generation,
                        chat_template=template)
                except Exception as error:  # raise_exception and the like
                    case["error"] = str(error)
                cases.append(case)
    # A tokenizer_config.json with named templates: "default" is the one.
    os.makedirs(os.path.join(out, "named"), exist_ok=True)
    with open(os.path.join(out, "named", "tokenizer_config.json"), "w") as f:
        json.dump({"bos_token": {"content": "<s>", "lstrip": False},
                   "eos_token": "</s>",
                   "chat_template": [
                       {"name": "tool_use", "template": "TOOLS {{ tools }}"},
                       {"name": "default", "template": TEMPLATES["llama3"]}]},
                  f)
    for case in list(cases):
        if case["template"] == "llama3.jinja":
            cases.append(dict(case, template="named/tokenizer_config.json"))
    with open(os.path.join(out, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=0)
    print("%d cases over %d templates (%d raise)" % (
        len(cases), len(TEMPLATES) + 1, sum("error" in c for c in cases)))


if __name__ == "__main__":
    main()
