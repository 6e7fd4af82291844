"""etch.llm: text generation with an LLM program through et-llm, the same
decoding loop, tokenizers, chat templates and sampling (docs/llm.md).

    text = etch.llm.generate("llama.etp", "Tell me a story", max_new_tokens=40)
    ids = etch.llm.generate("llama.etp", prompt_ids=[1, 15043], max_new_tokens=8)
"""
import os
import subprocess
import tempfile

from . import _native
from ._error import Error

_SAMPLING = {"temperature": "--temperature", "top_k": "--top-k", "top_p": "--top-p",
             "min_p": "--min-p", "repetition_penalty": "--repetition-penalty",
             "seed": "--seed", "threads": "--threads", "max_context": "--max-context",
             "tokenizer": "--tokenizer", "system": "--system",
             "chat_template": "--chat-template", "method": "--method"}


def generate(program, prompt=None, *, prompt_ids=None, max_new_tokens=64,
             chat=False, stop=(), ignore_eos=False, **options):
    """Generates with program (a path, an etch.Program or its bytes).
    With prompt (text; the program's tokenizer, or tokenizer=FILE): returns
    the generated text; chat=True wraps it in the chat template (system=
    for a system turn). With prompt_ids (a list of ints): returns the
    generated ids. Sampling: temperature (0: greedy), top_k, top_p, min_p,
    repetition_penalty, seed; also threads, max_context, stop (strings)."""
    if (prompt is None) == (prompt_ids is None):
        raise Error("etch.llm.generate: give prompt (text) or prompt_ids, not both")
    unknown = set(options) - set(_SAMPLING)
    if unknown:
        raise Error(f"etch.llm.generate: unknown option(s) {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory(prefix="etch-llm-") as folder:
        path = _program_path(program, folder)
        ids_file = os.path.join(folder, "ids.txt")
        command = [_native.tool("et-llm"), path, "--quiet", "--output", ids_file,
                   "--max-new-tokens", str(int(max_new_tokens))]
        if prompt is not None:
            command += ["--prompt", str(prompt)]
        else:
            command += ["--prompt-ids", " ".join(str(int(i)) for i in prompt_ids)]
        if chat:
            command.append("--chat")
        if ignore_eos:
            command.append("--ignore-eos")
        for text in ([stop] if isinstance(stop, str) else stop):
            command += ["--stop", text]
        for name, value in options.items():
            if value is not None:
                command += [_SAMPLING[name], str(value)]
        run = subprocess.run(command, capture_output=True)
        if run.returncode != 0:
            raise Error(run.stderr.decode(errors="replace").strip() or
                        f"et-llm stopped with status {run.returncode} and no message")
        if prompt_ids is not None:
            with open(ids_file) as file:
                return [int(token) for token in file.read().split()]
        return run.stdout.decode("utf-8", errors="replace")


def _program_path(program, folder):
    from .compiler import Program
    if isinstance(program, Program):
        program = program.buffer
    if isinstance(program, (bytes, bytearray, memoryview)):
        path = os.path.join(folder, "program.etp")
        with open(path, "wb") as file:
            file.write(program)
        return path
    if isinstance(program, (str, os.PathLike)):
        return os.fspath(program)
    raise Error("etch.llm.generate takes a program's path, an etch.Program or its "
                f"bytes, not a {type(program).__name__}")
