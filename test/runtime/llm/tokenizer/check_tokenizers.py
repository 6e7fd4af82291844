"""Checks et-llm tokenize/detokenize against the reference libraries' results.

  check_tokenizers.py ET_LLM CORPUS_DIR WORK_DIR

CORPUS_DIR holds cases.json and the tokenizer files (made by
python/etch/tokenizer_corpus.py in the sid chroot). Every case is checked:
encode without and with special tokens, decode of both id lists. Prints
each mismatch (at most 20) and a summary line; exits 1 on any mismatch.
"""
import collections
import json
import os
import subprocess
import sys


def run(command):
    result = subprocess.run(command, capture_output=True)
    if result.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(command[:4]),
                                             result.stderr.decode()))
    return result.stdout


def main():
    et_llm, corpus, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(corpus, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    by_tokenizer = collections.defaultdict(list)
    for case in cases:
        by_tokenizer[case["tokenizer"]].append(case)
    failures, checks = [], 0
    for name, group in sorted(by_tokenizer.items()):
        path = os.path.join(corpus, name)
        texts = []
        for i, case in enumerate(group):
            text_file = os.path.join(work, "text%d.txt" % i)
            with open(text_file, "wb") as f:
                f.write(case["text"].encode("utf-8"))
            texts.append("@" + text_file)
        for flag, key in (([], "ids"), (["--add-special"], "ids_special")):
            lines = run([et_llm, "tokenize", "--tokenizer", path] + flag +
                        texts).decode().split("\n")
            for case, line in zip(group, lines):
                checks += 1
                got = [int(x) for x in line.split()]
                if got != case[key]:
                    failures.append("%s %s %r:\n  want %s\n  got  %s" % (
                        name, key, case["text"][:80], case[key][:40],
                        got[:40]))
        for key, decoded in (("ids", "decoded"),
                             ("ids_special", "decoded_special")):
            id_files = []
            for i, case in enumerate(group):
                id_file = os.path.join(work, "ids%d.txt" % i)
                with open(id_file, "w") as f:
                    f.write(" ".join(map(str, case[key])))
                id_files.append("@" + id_file)
            lines = run([et_llm, "detokenize", "--tokenizer", path, "--json"] +
                        id_files).decode("utf-8").split("\n")
            for case, line in zip(group, lines):
                checks += 1
                got = json.loads(line)
                if got != case[decoded]:
                    failures.append("%s decode(%s) %r:\n  want %r\n  got  %r" % (
                        name, key, case["text"][:80], case[decoded][:120],
                        got[:120]))
    for failure in failures[:int(os.environ.get("SHOW", "20"))]:
        print(failure)
    print("%d of %d checks match over %d tokenizers" % (
        checks - len(failures), checks, len(by_tokenizer)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
