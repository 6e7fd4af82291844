"""Compiles each export with the tokenizer and chat template llm_export.py
wrote beside it, generates greedily from the text prompt with et-llm (plain
and --chat) and compares the tokens with transformers' generate().

    check_text_generate.py CORPUS_DIR WORK_DIR EXPORT...   (EXPORT: a .pt2
    name without the suffix, e.g. tiny_llama_export)
"""
import os
import subprocess
import sys


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr}")
    return result.stdout


def generated(output):
    for line in output.splitlines():
        if line.startswith("tokens: "):
            return line[len("tokens: "):].split()
    sys.exit(f"no tokens line in:\n{output}")


def main():
    corpus, work = sys.argv[1], sys.argv[2]
    for export in sys.argv[3:]:
        model = export.rsplit("_", 1)[0]  # tiny_llama_export -> tiny_llama
        files = {suffix: os.path.join(corpus, f"{model}_{suffix}")
                 for suffix in ("tokenizer.json", "tokenizer_config.json",
                                "text_prompt.txt")}
        program = os.path.join(work, f"{export}.etp")
        run(["et-compile", os.path.join(corpus, f"{export}.pt2"),
             "--targets=portable", "--tokenizer", files["tokenizer.json"],
             "--chat-template", files["tokenizer_config.json"], "-o", program])
        for kind, extra in (("text", []), ("chat", ["--chat"])):
            with open(os.path.join(corpus, f"{model}_{kind}_generate.txt")) as f:
                expected = f.read().split()
            tokens = generated(run(
                ["et-llm", program, "--prompt", "@" + files["text_prompt.txt"],
                 "--max-new-tokens", str(len(expected)), "--ignore-eos"] + extra))
            verdict = "equal" if tokens == expected else \
                f"DIFFERENT\n  etch:         {' '.join(tokens)}\n" \
                f"  transformers: {' '.join(expected)}"
            print(f"{export} {kind}: {len(expected)} tokens {verdict}")


if __name__ == "__main__":
    main()
