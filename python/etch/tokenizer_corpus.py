"""Tokenizers of every kind etch reads, trained here from local text, and what
the reference libraries make of a set of hard strings.

Runs in the sid chroot (scripts/torch-run.sh): Hugging Face `tokenizers`,
`sentencepiece` and `tiktoken` are the references. Nothing is downloaded:
the training text is the chroot's licence texts and Python sources plus the
multilingual lines below. Writes OUT/tokenizers/NAME/<file> for each
tokenizer and OUT/tokenizers/cases.json:

  [{"tokenizer": "NAME/FILE", "text": ..., "ids": [...],
    "ids_special": [...], "decoded": ..., "decoded_special": ...}, ...]

`decoded` is decode(ids) with special tokens kept; `ids_special` is
encode(text, add_special_tokens=True).
"""

import argparse
import base64
import glob
import json
import os
import random

import sentencepiece as spm
import tiktoken
import tiktoken.load
from tokenizers import (Regex, Tokenizer, decoders, models, normalizers,
                        pre_tokenizers, processors, trainers)

LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|"
                  r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"
                  r"\s+(?!\S)|\s+")
QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|"
                 r"\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
# etch reads tiktoken files with the cl100k / Llama 3 pattern.
TIKTOKEN_PATTERN = LLAMA3_PATTERN

MULTILINGUAL = [
    "The quick brown fox jumps over the lazy dog. It's 12:30 and we'll go.",
    "日本語の文章です。東京は今日も晴れています。",
    "中文分词测试：你好，世界！我们今天学习。",
    "한국어 문장입니다. 오늘은 날씨가 좋습니다.",
    "Ελληνικά κείμενα για δοκιμή. Καλημέρα κόσμε.",
    "Привет, мир! Съешь же ещё этих мягких французских булок.",
    "مرحبا بالعالم، هذا نص عربي للاختبار.",
    "हिन्दी पाठ का एक उदाहरण यहाँ है।",
    "Emoji 😀 👍 🎉 ❤️ and café naïve résumé façade.",
    "def main():\n    return [x ** 2 for x in range(10)]\n",
]

STRINGS = [
    "", " ", "  ", "Hello, world!", "Hello world", "  leading and trailing  ",
    "multiple   spaces\tand\ttabs\t\t here", "line one\nline two\r\nthree\rend",
    "\n\n\n", "\t", "\r\n", " \n \n ",
    "I'm sure they'll say we've done it, DON'T YOU'LL? She's here.",
    "numbers: 0 7 42 1234567890 3.14159 -12,345.67 1e-9 0x1F 2024-11-26",
    "def f(x):\n    return x ** 2  # square\n\nclass A:\n\tpass\n",
    'if (a && b || !c) { printf("%d\\n", a[i++]); } // done',
    "日本語の文章です。東京は晴れ。", "中文分词测试：你好，世界！",
    "한국어 문장입니다", "Ελληνικά κείμενα ΣΟΦΟΣ σοφός", "Привет, мир! Ёлка",
    "مرحبا بالعالم", "हिन्दी पाठ", "ภาษาไทยง่ายนิดเดียว",
    "emoji: 😀 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️‍🔥 🧑🏾‍💻", "flags 🇩🇪🇯🇵🇧🇷",
    "combining: e\u0301 a\u0308 n\u0303 A\u030a \u00c5 \u00e9 o\u0302\u0323",
    "\ufb01 ligature \u2460 \u338f \uff21\uff22\uff23 full-width \u2126",
    "\u0130stanbul \u00df \u1e9e \u01c5 ΣΑΣ",
    "zero\u200bwidth\u200djoiner\ufeffbom", "control \x01\x02\x7f chars",
    "\u00a0nbsp\u2003em\u3000ideographic\u2028sep",
    "a" * 3000, "supercalifragilisticexpialidocious" * 60, "🙂" * 200,
    "1234567890" * 100, "日本" * 500,
    "<|endoftext|>special in text<|endoftext|>",
    "<s>Hello</s> <unk> <mask> word <mask>word", "word<mask> <mask>  end",
    "<|begin_of_text|>Hi<|eot_id|>\n", "mixed 中文 and English and 😀 123abc",
    "Tab\tand\u000bvertical\u000cfeed", "ends with space ", "   ",
    "ǅemo ǈj ǋn", "Ǆ ǆ Ǉ ǉ", "‘quotes’ “double” «guillemets» — dash – en",
]


def random_strings(count, seed=0):
    """Seeded mixtures of scripts, digits, punctuation and whitespace."""
    rng = random.Random(seed)
    pools = ["abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
             "0123456789", " \t\n\r  ", ".,;:!?'\"()[]{}<>-_=+*/\\|@#$%^&~`",
             "日本語中文字한국어ひらがなカタカナ", "éèêëàâäôöûüçñåøæœß",
             "αβγδεζηθΣΩабвгдЖЩ", "😀👍🏽🎉❤️‍🔥🇯🇵👨‍👩‍👧", "\u0301\u0308\u200d\u200b\ufeff"]
    out = []
    for _ in range(count):
        length = rng.randint(1, 60)
        out.append("".join(rng.choice(rng.choice(pools)) for _ in range(length)))
    return out


def training_text():
    lines = []
    for path in sorted(glob.glob("/usr/share/common-licenses/*"))[:12]:
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="ignore") as f:
                lines += f.read().splitlines()
    for path in sorted(glob.glob("/usr/lib/python3*/[a-e]*.py"))[:40]:
        with open(path, encoding="utf-8", errors="ignore") as f:
            lines += f.read().splitlines()
    lines += MULTILINGUAL * 20
    return [line[:200] for line in lines if line.strip()]


def byte_level_bpe(lines, vocab_size, special):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(lines, trainer)
    return tok


def gpt2(lines):
    tok = byte_level_bpe(lines, 1200, ["<|endoftext|>"])
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok


def roberta(lines):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=900, special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(lines, trainer)
    from tokenizers import AddedToken
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True)])
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return tok


def split_byte_level(lines, pattern, specials, normalizer=None):
    tok = Tokenizer(models.BPE(ignore_merges=True))
    if normalizer:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1500, special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(lines, trainer)
    return tok


def llama3(lines):
    tok = split_byte_level(
        lines, LLAMA3_PATTERN,
        ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"])
    tok.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A",
        special_tokens=[("<|begin_of_text|>", 0)])
    return tok


def qwen2(lines):
    return split_byte_level(lines, QWEN2_PATTERN,
                            ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                            normalizer=normalizers.NFC())


def with_byte_tokens(tok, model_fields):
    """Adds <0x00>..<0xFF> to the model's vocabulary (as Llama 2's has)."""
    data = json.loads(tok.to_str())
    model = data["model"]
    if model["type"] == "BPE":
        for b in range(256):
            name = "<0x%02X>" % b
            if name not in model["vocab"]:
                model["vocab"][name] = len(model["vocab"]) + len(
                    data["added_tokens"])
    else:
        for b in range(256):
            model["vocab"].append(["<0x%02X>" % b, -20.0])
    model.update(model_fields)
    return Tokenizer.from_str(json.dumps(data))


def metaspace_bpe(lines, llama2_style):
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True,
                               byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first",
                                                 split=True)
    trainer = trainers.BpeTrainer(vocab_size=1000,
                                  special_tokens=["<unk>", "<s>", "</s>"],
                                  limit_alphabet=120)
    tok.train_from_iterator(lines, trainer)
    tok = with_byte_tokens(tok, {})
    if llama2_style:
        tok.pre_tokenizer = None
        tok.normalizer = normalizers.Sequence(
            [normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        tok.decoder = decoders.Sequence([
            decoders.Replace("▁", " "), decoders.ByteFallback(),
            decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    else:
        tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first",
                                                     split=False)
        tok.decoder = decoders.Sequence([
            decoders.ByteFallback(),
            decoders.Metaspace(prepend_scheme="first", split=False),
            decoders.Fuse()])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", 1)])
    return tok


def unigram(lines, byte_fallback):
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="always")
    tok.decoder = decoders.Metaspace(prepend_scheme="always")
    trainer = trainers.UnigramTrainer(
        vocab_size=800, special_tokens=["<pad>", "</s>", "<unk>"],
        unk_token="<unk>", max_piece_length=12)
    tok.train_from_iterator(lines, trainer)
    if byte_fallback:
        tok = with_byte_tokens(tok, {"byte_fallback": True})
        tok.decoder = decoders.Sequence([
            decoders.ByteFallback(),
            decoders.Metaspace(prepend_scheme="always")])
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", 1)])
    return tok


def bert_unigram(lines):
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.UnigramTrainer(
        vocab_size=700, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"],
        unk_token="[UNK]")
    tok.train_from_iterator(lines, trainer)
    tok.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    return tok


def suffix_bpe(lines):
    tok = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##",
                               end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence([
        normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase(),
        normalizers.Strip()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.Punctuation()])
    tok.decoder = decoders.BPEDecoder(suffix="</w>")
    trainer = trainers.BpeTrainer(vocab_size=900, special_tokens=["[UNK]"],
                                  continuing_subword_prefix="##",
                                  end_of_word_suffix="</w>", limit_alphabet=200)
    tok.train_from_iterator(lines, trainer)
    return tok


def whitespace_bpe(lines):
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(),
                                           normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=800, special_tokens=["<unk>"],
                                  limit_alphabet=150)
    tok.train_from_iterator(lines, trainer)
    return tok


HF_TOKENIZERS = {
    "gpt2_bpe": gpt2, "roberta_bpe": roberta, "llama3_bpe": llama3,
    "qwen2_bpe": qwen2,
    "llama2_bpe": lambda lines: metaspace_bpe(lines, True),
    "mistral_bpe": lambda lines: metaspace_bpe(lines, False),
    "unigram": lambda lines: unigram(lines, False),
    "unigram_byte_fallback": lambda lines: unigram(lines, True),
    "bert_unigram": bert_unigram, "suffix_bpe": suffix_bpe,
    "whitespace_bpe": whitespace_bpe,
}


def hf_cases(name, tok, strings):
    cases = []
    for text in strings:
        ids = tok.encode(text, add_special_tokens=False).ids
        special = tok.encode(text, add_special_tokens=True).ids
        cases.append({"tokenizer": name + "/tokenizer.json", "text": text,
                      "ids": ids, "ids_special": special,
                      "decoded": tok.decode(ids, skip_special_tokens=False),
                      "decoded_special": tok.decode(
                          special, skip_special_tokens=False)})
    return cases


def sentencepiece_cases(out, lines, strings):
    cases = []
    corpus = os.path.join(out, "spm_corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    for name, model_type in (("spm_bpe", "bpe"), ("spm_unigram", "unigram")):
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=os.path.join(folder, "tokenizer"),
            vocab_size=900, model_type=model_type, byte_fallback=True,
            character_coverage=0.995, minloglevel=2)
        sp = spm.SentencePieceProcessor(
            model_file=os.path.join(folder, "tokenizer.model"))
        for text in strings:
            ids = sp.encode(text)
            special = sp.encode(text, add_bos=True)
            cases.append({"tokenizer": name + "/tokenizer.model", "text": text,
                          "ids": ids, "ids_special": special,
                          "decoded": sp.decode(ids),
                          "decoded_special": sp.decode(special)})
    os.remove(corpus)
    return cases


def tiktoken_cases(out, gpt2_tok, strings):
    """A rank file from the byte-level BPE's vocabulary (rank = id)."""
    byte_of = {}
    for b, c in enumerate(bytes_to_unicode_chars()):
        byte_of[c] = b
    ranks = {}
    for token, token_id in gpt2_tok.get_vocab(with_added_tokens=False).items():
        ranks[bytes(byte_of[c] for c in token)] = token_id
    folder = os.path.join(out, "tiktoken")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "tokenizer.tiktoken")
    with open(path, "w") as f:
        for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
            f.write("%s %d\n" % (base64.b64encode(token).decode(), rank))
    enc = tiktoken.Encoding(
        "etch-test", pat_str=TIKTOKEN_PATTERN,
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(path),
        special_tokens={})
    cases = []
    for text in strings:
        ids = enc.encode_ordinary(text)
        decoded = enc.decode(ids)
        cases.append({"tokenizer": "tiktoken/tokenizer.tiktoken", "text": text,
                      "ids": ids, "ids_special": ids, "decoded": decoded,
                      "decoded_special": decoded})
    return cases


def bytes_to_unicode_chars():
    """GPT-2's byte-level alphabet, in byte order."""
    printable = (list(range(ord("!"), ord("~") + 1)) +
                 list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100)))
    chars, extra = [], 256
    for b in range(256):
        if b in printable:
            chars.append(chr(b))
        else:
            chars.append(chr(extra))
            extra += 1
    return chars


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="all")
    args = parser.parse_args()
    out = os.path.join(args.out, "tokenizers")
    os.makedirs(out, exist_ok=True)
    lines = training_text()
    strings = STRINGS + random_strings(40)
    cases = []
    trained = {}
    for name, make in HF_TOKENIZERS.items():
        tok = make(lines)
        trained[name] = tok
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        tok.save(os.path.join(folder, "tokenizer.json"))
        # The saved file is what etch reads: compare against it, reloaded.
        tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        cases += hf_cases(name, tok, strings)
    cases += sentencepiece_cases(out, lines, strings)
    cases += tiktoken_cases(out, trained["gpt2_bpe"], strings)
    with open(os.path.join(out, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=0)
    print("%d cases over %d tokenizers" % (len(cases),
                                            len(HF_TOKENIZERS) + 3))


if __name__ == "__main__":
    main()
