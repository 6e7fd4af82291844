"""Checks et-llm serve's greedy chat answers against et-llm --chat's text:

    check_serve.py CLI_OUTPUT CHAT_JSON STREAM_EVENTS MAX_TOKENS
"""
import json
import sys

cli_path, chat_path, stream_path, max_tokens = sys.argv[1:5]
cli = open(cli_path, encoding="utf-8").read()
text, _, rest = cli.partition("\ntokens: ")
tokens = rest.splitlines()[0].split()
answer = json.load(open(chat_path, encoding="utf-8"))
choice = answer["choices"][0]
expected_finish = "length" if len(tokens) == int(max_tokens) and tokens[-1] != "2" else "stop"
if choice["message"]["content"] != text:
    sys.exit(f"chat completion {choice['message']['content']!r} != et-llm {text!r}")
if answer["usage"]["completion_tokens"] != len(tokens):
    sys.exit(f"completion_tokens {answer['usage']['completion_tokens']} != {len(tokens)}")
if choice["finish_reason"] != expected_finish:
    sys.exit(f"finish_reason {choice['finish_reason']} != {expected_finish}")
print(f"chat completion = et-llm --chat text: {len(tokens)} tokens, "
      f"finish_reason {expected_finish}")
deltas, finish = "", None
for line in open(stream_path, encoding="utf-8"):
    if line.startswith("data: {"):
        chunk = json.loads(line[len("data: "):])
        for c in chunk["choices"]:
            deltas += c["delta"].get("content", "")
            finish = c["finish_reason"] or finish
if deltas != text or finish != expected_finish:
    sys.exit(f"streamed {deltas!r} ({finish}) != {text!r} ({expected_finish})")
print("streamed deltas = chat completion")
