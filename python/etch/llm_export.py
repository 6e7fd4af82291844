#!/usr/bin/env python3
"""Exports Llama decoders with a static KV cache, the way transformers'
ExecuTorch integration writes them, with greedy references for et-llm.

Runs with a real torch 2.x and transformers (the Debian sid chroot:
scripts/torch-run.sh sid OUT python/etch/llm_export.py --models NAME). For
each model NAME:

    NAME_export.pt2       TorchExportableModuleForDecoderOnlyLM's export():
                          inputs input_ids [1, S] and cache_position [S]
                          (S dynamic, 1..prefill), logits [1, S, vocab]; the
                          KV caches are buffers written in place
    NAME_decomposed.pt2   the same after run_decompositions() (where torch
                          can: not for the non-strict forms below)
    NAME_decode.pt2       the same model exported for one token (static
                          input_ids [1, 1], cache_position [1]): a decode
                          method beside NAME_export.pt2 as prefill
                          (et-compile --method; strict forms only)
    NAME_prompt.txt       the prompt's token ids (seeded)
    NAME_generate.txt     transformers' generate() greedy continuation of
                          the prompt (new tokens only; EOS does not stop it)
    NAME_logits.npy       the logits behind each of those tokens
                          [new tokens, vocab] (one forward pass over the
                          prompt and the continuation: teacher forcing)
    NAME_tokenizer.json   a byte-level BPE tokenizer for the model's
                          vocabulary, trained here on the chroot's licence
                          texts and Python sources (<unk> 0, <s> 1 added in
                          front of a sequence, </s> 2: the config's ids)
    NAME_tokenizer_config.json  its chat template and special tokens
    NAME_text_prompt.txt  a text prompt; NAME_text_generate.txt and
                          NAME_chat_generate.txt: generate()'s greedy
                          continuation of its ids (tokenizer(text)), and of
                          the chat template applied to it as a user turn

Both .pt2 carry extra_files/etch_metadata.json (max_context, eos_token_id,
bos_token_id, vocab_size), which et-compile stores in the program for
et-llm. With --save-hf, NAME_hf/ holds save_pretrained() (for llama.cpp's
converter). Variants NAME_int8w / NAME_int4w write every linear (and the
embedding) with quantized_decomposed dequantize ops over int8 storage, as
torch's weight-only flows do: per-channel int8, or groupwise int4 (group
32); their generate() runs that quantized model. Weights are random
(normal, std 0.02, fixed seed); nothing is downloaded. Variants
NAME_nonstrict, NAME_unbounded and NAME_nonstrict_unbounded export the
float model the other ways users do (FORMS): strict=False, and a sequence
dim with no lower bound.

    llm_export.py --out DIR --models tiny_llama[,...] [--new-tokens 64]
                  [--save-hf] [--list]
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from etch.each_model import make_each  # noqa: E402

# name -> (LlamaConfig arguments, max_cache_len, prefill bound, prompt length)
MODELS = {
    # CI: two layers, grouped-query attention, a small vocabulary.
    "tiny_llama": (dict(vocab_size=1000, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, num_key_value_heads=2,
                        intermediate_size=128), 128, 16, 8),
    # The LLM issue's reference model (58.5 M parameters).
    "reference_llama": (dict(vocab_size=32000, hidden_size=512, num_hidden_layers=8,
                             num_attention_heads=8, num_key_value_heads=8,
                             intermediate_size=1408), 256, 128, 16),
}
VARIANTS = {"": None, "_int8w": (8, None), "_int4w": (4, 32)}
# Export forms users make, as name suffixes (float models): transformers'
# exporter is strict by default and etch's export gives the sequence dim a
# lower bound of 1; its multimodal exporter passes strict=False and a Dim
# with only a maximum (range [0, max]), where the static cache's tensors
# become lifted constants written in place.
FORMS = {"": (True, 1), "_nonstrict": (False, 1), "_unbounded": (True, None),
         "_nonstrict_unbounded": (False, None)}
SEED = 0
TEXT_PROMPT = "Once upon a time, a small model said"
# Zephyr's template shape: the roles as markers, every turn ended by EOS.
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\\n' + message['content'] | trim }}"
    "{{ eos_token + '\\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}")


def model_config(name):
    """(LlamaConfig arguments, max_cache_len, prefill bound, prompt length,
    quantization, (strict, lower bound of the sequence dim)) of name."""
    for base, (arguments, cache, prefill, prompt) in MODELS.items():
        for suffix, quant in VARIANTS.items():
            if name == base + suffix:
                return arguments, cache, prefill, prompt, quant, FORMS[""]
        for suffix, form in FORMS.items():
            if suffix and name == base + suffix:
                return arguments, cache, prefill, prompt, None, form
    raise KeyError(name)


def build_llama(arguments, max_cache_len):
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(max_position_embeddings=max(2048, max_cache_len),
                         rms_norm_eps=1e-5, rope_theta=10000.0,
                         tie_word_embeddings=False, initializer_range=0.02,
                         **arguments)
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(config).eval()
    model.requires_grad_(False)
    return model


class DequantizedWeight(torch.nn.Module):
    """An int8-stored weight and its dequantize op, as torch's weight-only
    flows write it: per channel (bits 8, quantized_decomposed.
    dequantize_per_channel) or per group of `group` (bits 4,
    dequantize_per_channel_group), symmetric."""

    def __init__(self, weight, bits, group):
        super().__init__()
        self.bits, self.group = bits, group
        if bits == 8:
            scales = weight.abs().amax(dim=1).clamp(min=1e-10) / 127.0
            q = torch.round(weight / scales[:, None]).clamp(-127, 127)
            zero_points = torch.zeros(weight.shape[0], dtype=torch.int64)
        else:
            grouped = weight.reshape(-1, group)
            # torchao's symmetric groupwise rule: amax / ((qmax - qmin) / 2).
            scales = grouped.abs().amax(dim=1).clamp(min=1e-10) / 7.5
            q = torch.round(grouped / scales[:, None]).clamp(-8, 7).reshape(weight.shape)
            scales = scales.reshape(weight.shape[0], -1)
            zero_points = torch.zeros_like(scales, dtype=torch.int64)
        self.register_buffer("q", q.to(torch.int8))
        self.register_buffer("scales", scales.to(torch.float32))
        self.register_buffer("zero_points", zero_points)

    def forward(self):
        ops = torch.ops.quantized_decomposed
        if self.bits == 8:
            return ops.dequantize_per_channel(self.q, self.scales, self.zero_points, 0,
                                              -128, 127, torch.int8)
        return ops.dequantize_per_channel_group(self.q, self.scales, self.zero_points,
                                                -8, 7, torch.int8, self.group, torch.float32)


class QuantizedLinear(torch.nn.Module):
    def __init__(self, linear, bits, group):
        super().__init__()
        self.weight_q = DequantizedWeight(linear.weight.detach(), bits, group)
        self.bias = linear.bias

    def forward(self, x):
        return torch.nn.functional.linear(x, self.weight_q(), self.bias)


class QuantizedEmbedding(torch.nn.Module):
    def __init__(self, embedding, bits, group):
        super().__init__()
        self.weight_q = DequantizedWeight(embedding.weight.detach(), bits, group)

    def forward(self, ids):
        return torch.nn.functional.embedding(ids, self.weight_q())


def quantize_weights(model, bits, group):
    """Every linear and the token embedding, quantized in place."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401 (registers the ops)
    for parent in list(model.modules()):
        for child_name, child in list(parent.named_children()):
            if isinstance(child, torch.nn.Linear):
                setattr(parent, child_name, QuantizedLinear(child, bits, group))
            elif isinstance(child, torch.nn.Embedding):
                setattr(parent, child_name, QuantizedEmbedding(child, bits, group))
    model.requires_grad_(False)
    return model


def greedy_reference(model, prompt, new_tokens):
    """transformers' generate(), greedy, never stopping at EOS; and the
    logits behind each generated token from one teacher-forced pass."""
    with torch.no_grad():
        out = model.generate(prompt, attention_mask=torch.ones_like(prompt),
                             max_new_tokens=new_tokens, min_new_tokens=0,
                             do_sample=False, eos_token_id=None, pad_token_id=0)
        logits = model(input_ids=out[:, :-1], use_cache=False).logits
    tokens = out[0, prompt.shape[1]:].tolist()
    return tokens, logits[0, prompt.shape[1] - 1:].float().numpy()


def train_tokenizer(vocab_size):
    """A tokenizer.json for a Llama config's ids, and its tokenizer_config."""
    from tokenizers import processors
    from tokenizer_corpus import byte_level_bpe, training_text
    tok = byte_level_bpe(training_text(), vocab_size, ["<unk>", "<s>", "</s>"])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", 1)])
    config = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
              "chat_template": CHAT_TEMPLATE,
              "tokenizer_class": "PreTrainedTokenizerFast"}
    return tok, config


def write_tokenizer(name, out, model, new_tokens):
    """The tokenizer files beside the export, and generate()'s greedy
    continuations of a text prompt, plain and as a chat turn."""
    from transformers import PreTrainedTokenizerFast
    tok, config = train_tokenizer(model.config.vocab_size)
    assert tok.get_vocab_size() <= model.config.vocab_size
    tok.save(os.path.join(out, f"{name}_tokenizer.json"))
    with open(os.path.join(out, f"{name}_tokenizer_config.json"), "w") as file:
        json.dump(config, file, indent=2)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>",
                                   eos_token="</s>", unk_token="<unk>")
    fast.chat_template = CHAT_TEMPLATE
    chat = fast.apply_chat_template([{"role": "user", "content": TEXT_PROMPT}],
                                    tokenize=False, add_generation_prompt=True)
    with open(os.path.join(out, f"{name}_text_prompt.txt"), "w") as file:
        file.write(TEXT_PROMPT)
    for kind, ids in (("text", fast(TEXT_PROMPT).input_ids),
                      ("chat", fast(chat, add_special_tokens=False).input_ids)):
        tokens, _ = greedy_reference(model, torch.tensor([ids]), new_tokens)
        with open(os.path.join(out, f"{name}_{kind}_generate.txt"), "w") as file:
            file.write(" ".join(map(str, tokens)) + "\n")


def export_model(name, out, new_tokens, save_hf):
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM
    arguments, max_cache_len, prefill, prompt_length, quant, form = model_config(name)
    strict, lowest = form
    model = build_llama(arguments, max_cache_len)
    if save_hf:
        model.save_pretrained(os.path.join(out, f"{name}_hf"))
    if quant:
        quantize_weights(model, *quant)
    generator = torch.Generator().manual_seed(SEED + 1)
    prompt = torch.randint(3, arguments["vocab_size"], (1, prompt_length), generator=generator)
    reference, logits = greedy_reference(model, prompt, new_tokens)
    write_tokenizer(name, out, model, new_tokens)

    model.generation_config.cache_implementation = "static"
    exportable = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1,
                                                       max_cache_len=max_cache_len)
    seq = (torch.export.Dim("seq", min=lowest, max=prefill) if lowest is not None
           else torch.export.Dim("seq_length_dim", max=prefill))
    example = prompt[:, :min(prompt_length, prefill)]
    program = exportable.export(input_ids=example,
                                cache_position=torch.arange(example.shape[1]),
                                dynamic_shapes={"input_ids": {1: seq},
                                                "cache_position": {0: seq}},
                                strict=strict)
    config = model.config
    metadata = json.dumps({"max_context": max_cache_len,
                           "eos_token_id": config.eos_token_id,
                           "bos_token_id": config.bos_token_id,
                           "vocab_size": config.vocab_size})
    extra = {"etch_metadata.json": metadata}
    torch.export.save(program, os.path.join(out, f"{name}_export.pt2"), extra_files=extra)
    if strict:
        decode = exportable.export(input_ids=prompt[:, :1],
                                   cache_position=torch.tensor([0]), strict=True)
        torch.export.save(decode, os.path.join(out, f"{name}_decode.pt2"), extra_files=extra)
    try:
        decomposed = program.run_decompositions()
    except Exception as error:  # noqa: BLE001 (torch's own limitation, reported)
        # torch 2.14 cannot functionalize the in-place writes to lifted
        # constants of a non-strict export (AssertionError in
        # aot_stage2_export): users get the training IR only.
        if strict:
            raise
        decomposed = None
        print(f"{name}: no decomposed form, run_decompositions() failed: "
              f"{type(error).__name__}: {error}")
    if decomposed is not None:
        torch.export.save(decomposed, os.path.join(out, f"{name}_decomposed.pt2"),
                          extra_files=extra)
    with open(os.path.join(out, f"{name}_prompt.txt"), "w") as file:
        file.write(" ".join(map(str, prompt[0].tolist())) + "\n")
    with open(os.path.join(out, f"{name}_generate.txt"), "w") as file:
        file.write(" ".join(map(str, reference)) + "\n")
    np.save(os.path.join(out, f"{name}_logits.npy"), logits)
    return {"max_cache_len": max_cache_len, "prefill": prefill,
            "parameters": sum(p.numel() for p in model.parameters()),
            "quantization": quant, "new_tokens": new_tokens,
            "strict": strict, "sequence_lower_bound": lowest,
            "decomposed": decomposed is not None}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="tiny_llama")
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--save-hf", action="store_true")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list:
        print("\n".join(base + suffix for base in MODELS
                        for suffix in list(VARIANTS) + list(FORMS)[1:]))
        return 0
    os.makedirs(args.out, exist_ok=True)
    manifest = {"torch": torch.__version__, "models": {}}

    def make(name):
        manifest["models"][name] = export_model(name, args.out, args.new_tokens, args.save_hf)
        return f"exported with torch {torch.__version__}"
    failures = make_each(args.models.split(","), make)
    with open(os.path.join(args.out, "llm_manifest.json"), "w") as file:
        json.dump(manifest, file, indent=2, sort_keys=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
