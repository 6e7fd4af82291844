"""Checks et-llm chat-template against transformers' apply_chat_template.

  check_chat_templates.py ET_LLM CORPUS_DIR WORK_DIR

CORPUS_DIR holds cases.json and the templates (made by
python/etch/chat_template_corpus.py in the sid chroot). Each case renders
with the same variables; the text must be equal, and a template that raised
in transformers must fail in etch with the same message. Prints each
mismatch (at most 20) and a summary; exits 1 on any mismatch.
"""
import json
import os
import subprocess
import sys


def main():
    et_llm, corpus, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(corpus, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    failures = []
    context_file = os.path.join(work, "context.json")
    for case in cases:
        with open(context_file, "w", encoding="utf-8") as f:
            json.dump(case["context"], f, ensure_ascii=False)
        result = subprocess.run(
            [et_llm, "chat-template", "--template",
             os.path.join(corpus, case["template"]), "--context", context_file],
            capture_output=True)
        label = "%s (%d messages, add_generation_prompt=%s)" % (
            case["template"], len(case["context"]["messages"]),
            case["context"]["add_generation_prompt"])
        if "error" in case:
            message = result.stderr.decode("utf-8", "replace")
            if result.returncode == 0 or case["error"] not in message:
                failures.append("%s: want the error %r, got exit %d %r" % (
                    label, case["error"], result.returncode, message))
            continue
        got = result.stdout.decode("utf-8", "replace")
        if result.returncode != 0 or got != case["expected"]:
            failures.append("%s:\n  want %r\n  got  %r %s" % (
                label, case["expected"], got,
                result.stderr.decode("utf-8", "replace")))
    for failure in failures[:20]:
        print(failure)
    print("%d of %d renderings match transformers" % (
        len(cases) - len(failures), len(cases)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
