"""etch.load and etch.Module: run a program from Python through the C API
(capi.py over libetch.so), with numpy arrays or torch tensors."""
import sys

from . import _native, capi
from ._error import Error


def _is_torch_tensor(value):
    torch = sys.modules.get("torch")  # a tensor means torch is loaded
    return torch is not None and isinstance(value, torch.Tensor)


def _to_numpy(index, tensor):
    if tensor.dtype.is_complex or str(tensor.dtype) in ("torch.bfloat16",):
        raise Error(f"input {index}: {tensor.dtype} tensors have no etch dtype")
    return tensor.detach().cpu().contiguous().numpy()


class Module(capi.Module):
    """A loaded program. method_names lists its methods; forward(*inputs)
    and run(method, *inputs) take numpy arrays or torch tensors and return
    a list of outputs: torch tensors when the inputs were, else numpy
    arrays. Every failure is an etch.Error with the runtime's message."""

    def run(self, method_name, *inputs):
        as_torch = any(_is_torch_tensor(value) for value in inputs)
        arrays = [_to_numpy(index, value) if _is_torch_tensor(value) else value
                  for index, value in enumerate(inputs)]
        outputs = super().run(method_name, *arrays)
        if as_torch:
            import torch
            return [torch.from_numpy(output) for output in outputs]
        return outputs

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()


def load(path_or_bytes, *, threads=None, weights=None):
    """Loads a program from a path, or from its bytes (etch.Program.buffer).
    threads: the kernels' thread count (None: the runtime's default, the
    cores); it is process-wide, as the C API's load option is. weights: the
    external weights file of a program compiled with external_weights=
    (None: a Program's own, else the file beside the program)."""
    from .compiler import Program
    if isinstance(path_or_bytes, Program):
        if weights is None:
            weights = path_or_bytes.weights_path
        path_or_bytes = path_or_bytes.buffer
    return capi.load(path_or_bytes, library=_native.library(), threads=threads,
                     module_type=Module, weights=weights)
