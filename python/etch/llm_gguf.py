#!/usr/bin/env python3
"""Writes llama.cpp's GGUF files of an llm_export.py model (same config and
seed, so the same weights), for benchmarks against llama.cpp.

Runs in the Debian sid chroot with llama.cpp-tools, python3-gguf and
python3-sentencepiece (scripts/torch-run.sh sid OUT python/etch/llm_gguf.py
--models NAME). For each model NAME:

    NAME_hf/              save_pretrained() plus a SentencePiece tokenizer
                          trained on seeded pseudo-text (random weights need
                          no real vocabulary; the converter pads it to the
                          model's vocab_size)
    NAME_f32.gguf         convert_hf_to_gguf.py --outtype f32
    NAME_q8_0.gguf        llama-quantize --pure ... Q8_0 (every tensor)
    NAME_q4_0.gguf        llama-quantize --pure ... Q4_0 (every tensor)

    llm_gguf.py --out DIR --models reference_llama
"""
import argparse
import os
import random
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from etch.llm_export import build_llama, model_config  # noqa: E402

CONVERTER = "/usr/share/doc/llama.cpp-tools/scripts/convert_hf_to_gguf.py"


def train_tokenizer(folder, seed=0):
    """A small SentencePiece model with Llama's special ids (unk 0, bos 1,
    eos 2), trained on deterministic pseudo-words."""
    import sentencepiece
    generator = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(generator.choice(letters) for _ in range(generator.randint(2, 8)))
             for _ in range(3000)]
    text = os.path.join(folder, "tokenizer_corpus.txt")
    with open(text, "w") as file:
        for _ in range(20000):
            file.write(" ".join(generator.choice(words) for _ in range(12)) + "\n")
    sentencepiece.SentencePieceTrainer.train(
        input=text, model_prefix=os.path.join(folder, "tokenizer"), vocab_size=1000,
        model_type="bpe", hard_vocab_limit=False, unk_id=0, bos_id=1, eos_id=2,
        pad_id=-1, minloglevel=2)
    os.remove(text)
    os.remove(os.path.join(folder, "tokenizer.vocab"))


def write_gguf(name, out):
    arguments, max_cache_len, _, _, quant, _ = model_config(name)
    if quant:
        raise ValueError(f"{name}: llama.cpp quantizes the float model itself")
    folder = os.path.join(out, f"{name}_hf")
    model = build_llama(arguments, max_cache_len)
    model.save_pretrained(folder)
    train_tokenizer(folder)
    f32 = os.path.join(out, f"{name}_f32.gguf")
    subprocess.run([sys.executable, CONVERTER, folder, "--outtype", "f32", "--outfile", f32],
                   check=True)
    for kind in ("q8_0", "q4_0"):
        subprocess.run(["llama-quantize", "--pure", f32,
                        os.path.join(out, f"{name}_{kind}.gguf"), kind.upper()],
                       check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="reference_llama")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    for name in args.models.split(","):
        write_gguf(name, args.out)
        print(f"{name}: GGUF files written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
