"""etch from Python: compile torch.export programs, nn.Modules and ONNX
models ahead of time and run them with etch's runtime (docs/python.md).

    import etch
    program = etch.compile(model, (image,), targets=["xnnpack", "portable"])
    module = etch.load(program.buffer)
    logits, = module.forward(image)

The rest of this folder (corpus generators, reference checks) serves the
test suite and is not part of the wheel.
"""
from ._error import Error

__version__ = "0.1.0"
__all__ = ["Error", "compile", "load", "Program", "Module", "llm", "inspect", "Report",
           "__version__"]


_LAZY = {"compile": "compiler", "Program": "compiler", "load": "runtime",
         "Module": "runtime", "llm": "llm", "inspect": "inspection", "Report": "inspection"}


def __getattr__(name):
    # Lazily: numpy (and torch, when used) load on first use, so that the
    # suite's helper modules import this package without them.
    if name not in _LAZY:
        raise AttributeError(f"module 'etch' has no attribute '{name}'")
    import importlib
    module = importlib.import_module(f".{_LAZY[name]}", __name__)
    return module if name == _LAZY[name] else getattr(module, name)
