"""Talks to `et-llm serve` with OpenAI's own Python client (Debian's
python3-openai, in the sid chroot) and checks what it gets back:

    openai_client_check.py --out DIR --base-url URL --model NAME --cli FILE

FILE is `et-llm PROGRAM --chat --prompt PROMPT --max-new-tokens 40` output
for the same PROMPT: greedy chat answers, whole and streamed, must be its
text. Prints one line per check; exits non-zero on the first that fails.
"""
import argparse
import sys

import openai

PROMPT = "Tell me a story about a robot"


def check(condition, message):
    if not condition:
        sys.exit("FAILED: " + message)
    print(message)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()
    cli = open(args.cli, encoding="utf-8").read()
    text = cli.partition("\ntokens: ")[0]
    client = openai.OpenAI(base_url=args.base_url, api_key="unused", max_retries=0)
    print(f"openai {openai.__version__}")

    models = [model.id for model in client.models.list()]
    check(models == [args.model], f"models: {models}")

    messages = [{"role": "user", "content": PROMPT}]
    answer = client.chat.completions.create(model=args.model, messages=messages,
                                            temperature=0, max_tokens=40)
    content = answer.choices[0].message.content
    check(content == text, f"chat: the et-llm --chat text, finish_reason "
          f"{answer.choices[0].finish_reason}, {answer.usage.completion_tokens} tokens")

    streamed, usage, finish = "", None, None
    for chunk in client.chat.completions.create(
            model=args.model, messages=messages, temperature=0, max_tokens=40,
            stream=True, stream_options={"include_usage": True}):
        for choice in chunk.choices:
            streamed += choice.delta.content or ""
            finish = choice.finish_reason or finish
        usage = chunk.usage or usage
    check(streamed == text and finish == answer.choices[0].finish_reason and
          usage.total_tokens == answer.usage.total_tokens,
          "chat, streamed: the same text, finish_reason and usage")

    # A stop string from the middle of the answer ends it just before.
    stop = next(text[i:i + 3] for i in range(len(text) // 3, len(text) - 3)
                if text[i:i + 3].strip() and text.find(text[i:i + 3]) == i)
    stopped = client.chat.completions.create(model=args.model, messages=messages,
                                             temperature=0, max_tokens=40, stop=[stop])
    check(stopped.choices[0].message.content == text[:text.find(stop)] and
          stopped.choices[0].finish_reason == "stop",
          "chat with a stop string: the text before it, finish_reason stop")

    completion = client.completions.create(model=args.model, prompt="Tell me",
                                           max_tokens=4, temperature=0)
    check(completion.choices[0].finish_reason == "length" and
          completion.usage.completion_tokens == 4,
          "completion: 4 tokens, finish_reason length")
    pieces = "".join(chunk.choices[0].text for chunk in client.completions.create(
        model=args.model, prompt="Tell me", max_tokens=4, temperature=0, stream=True)
        if chunk.choices)
    check(pieces == completion.choices[0].text, "completion, streamed: the same text")

    sampled = [client.chat.completions.create(
        model=args.model, messages=messages, temperature=0.9, top_p=0.95, seed=3,
        max_tokens=16).choices[0].message.content for _ in range(2)]
    check(sampled[0] == sampled[1], "sampled with a seed: the same twice")

    try:
        client.chat.completions.create(model=args.model, messages=messages,
                                       temperature=5)
        check(False, "temperature 5 was accepted")
    except openai.BadRequestError as error:
        check(error.status_code == 400 and error.body["param"] == "temperature",
              f"bad request: {error.status_code} {error.body['message']}")
    try:
        client.embeddings.create(model=args.model, input="x")
        check(False, "embeddings were served")
    except openai.NotFoundError as error:
        check(error.status_code == 404, f"not found: {error.body['message']}")


if __name__ == "__main__":
    main()
