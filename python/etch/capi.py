"""The etch runtime from Python through its C API (libetch.so, ctypes):
numpy arrays in and out, no compiled extension, any CPython 3.

    from etch.capi import load
    module = load("model.etp", library="build/lib/libetch.so", threads=2)
    outputs = module.run("forward", image)      # a list of numpy arrays

Failures raise etch.Error (EtchError here) with the runtime's one-line
message. etch.load (runtime.py) adds torch tensors and the wheel's library.
"""
import ctypes
import os

import numpy as np

from ._error import Error

MAX_RANK = 8
# etch_dtype -> numpy dtype (include/etch/c/etch_runtime.h)
DTYPES = {0: np.float32, 1: np.float16, 2: np.float64, 4: np.int8, 5: np.uint8,
          6: np.int16, 7: np.int32, 8: np.int64, 9: np.bool_, 10: np.uint16,
          11: np.uint32, 12: np.uint64}
ETCH_DTYPES = {np.dtype(numpy_type): code for code, numpy_type in DTYPES.items()}

EtchError = Error


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("sizes", ctypes.c_int64 * MAX_RANK),
                ("min_sizes", ctypes.c_int64 * MAX_RANK),
                ("max_sizes", ctypes.c_int64 * MAX_RANK), ("nbytes", ctypes.c_size_t)]


class LoadOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("threads", ctypes.c_uint32),
                ("profile_delegates", ctypes.c_int32), ("weights_path", ctypes.c_char_p)]


_LIBRARIES = {}


def _bind(library):
    """The C API in library, loaded once per path. RTLD_DEEPBIND: the
    library's own dependencies (the wheel's XNNPACK, cpuinfo, ...) come
    before any of the same name a process already holds (torch's)."""
    if library in _LIBRARIES:
        return _LIBRARIES[library]
    mode = os.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0)
    try:
        lib = ctypes.CDLL(library, mode=mode)
    except OSError as error:
        raise Error(f"cannot load the etch runtime: {error}") from None
    status = ctypes.c_void_p
    signatures = {
        "etch_status_message": (ctypes.c_char_p, [status]),
        "etch_status_free": (None, [status]),
        "etch_version": (ctypes.c_char_p, []),
        "etch_load_options_init": (None, [ctypes.POINTER(LoadOptions)]),
        "etch_program_open": (status, [ctypes.c_char_p, ctypes.POINTER(LoadOptions),
                                       ctypes.POINTER(ctypes.c_void_p)]),
        "etch_program_load": (status, [ctypes.c_void_p, ctypes.c_size_t,
                                       ctypes.c_char_p, ctypes.POINTER(LoadOptions),
                                       ctypes.POINTER(ctypes.c_void_p)]),
        "etch_program_free": (None, [ctypes.c_void_p]),
        "etch_program_method_count": (ctypes.c_size_t, [ctypes.c_void_p]),
        "etch_program_method_name": (ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_size_t]),
        "etch_method_load": (status, [ctypes.c_void_p, ctypes.c_char_p,
                                      ctypes.POINTER(ctypes.c_void_p)]),
        "etch_method_free": (None, [ctypes.c_void_p]),
        "etch_method_input_count": (ctypes.c_size_t, [ctypes.c_void_p]),
        "etch_method_output_count": (ctypes.c_size_t, [ctypes.c_void_p]),
        "etch_method_input_info": (status, [ctypes.c_void_p, ctypes.c_size_t,
                                            ctypes.POINTER(TensorInfo)]),
        "etch_method_output_info": (status, [ctypes.c_void_p, ctypes.c_size_t,
                                             ctypes.POINTER(TensorInfo)]),
        "etch_method_set_input": (status, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_int64), ctypes.c_int32,
                                           ctypes.c_void_p, ctypes.c_size_t]),
        "etch_method_bind_input": (status, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_int64), ctypes.c_int32,
                                            ctypes.c_void_p, ctypes.c_size_t,
                                            ctypes.POINTER(ctypes.c_int)]),
        "etch_method_execute": (status, [ctypes.c_void_p]),
        "etch_method_copy_output": (status, [ctypes.c_void_p, ctypes.c_size_t,
                                             ctypes.c_void_p, ctypes.c_size_t]),
    }
    for name, (result, arguments) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = result, arguments
    _LIBRARIES[library] = lib
    return lib


def _check(lib, status):
    """Raises a failed call's status as etch.Error (freeing the status)."""
    if status:
        message = lib.etch_status_message(status).decode()
        lib.etch_status_free(status)
        raise Error(message)


class Module:
    """A loaded program; methods load on first use."""

    def __init__(self, lib, program):
        self._lib, self._program, self._methods = lib, program, {}
        count = lib.etch_program_method_count(program)
        self.method_names = [lib.etch_program_method_name(program, i).decode()
                             for i in range(count)]

    def _check(self, status):
        _check(self._lib, status)

    def _method(self, name):
        if not self._program:
            raise Error("the module is closed")
        if not isinstance(name, str):
            raise Error(f"a method name is a str, not a {type(name).__name__}")
        if name not in self._methods:
            method = ctypes.c_void_p()
            self._check(self._lib.etch_method_load(self._program, name.encode(),
                                                   ctypes.byref(method)))
            self._methods[name] = method
        return self._methods[name]

    def run(self, method_name, *inputs):
        lib, method = self._lib, self._method(method_name)
        count = lib.etch_method_input_count(method)
        if len(inputs) != count:
            raise Error(f"method '{method_name}' takes {count} inputs, "
                            f"{len(inputs)} given")
        arrays = []
        for index, array in enumerate(inputs):
            # The array's own dtype: a mismatch is the runtime's error, as
            # et-run reports it, never a silent conversion.
            array = np.ascontiguousarray(array)
            if array.dtype not in ETCH_DTYPES:
                raise Error(f"input {index}: numpy dtype {array.dtype} has no etch "
                            f"dtype (etch takes {', '.join(sorted(str(np.dtype(t)) for t in DTYPES.values()))})")
            sizes = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
            # Bound in place where the method allows (kept alive in arrays
            # until execute returns), else copied.
            self._check(lib.etch_method_bind_input(
                method, index, ETCH_DTYPES[array.dtype], sizes, array.ndim,
                array.ctypes.data_as(ctypes.c_void_p), array.nbytes, None))
            arrays.append(array)
        self._check(lib.etch_method_execute(method))
        outputs, info = [], TensorInfo()
        for index in range(lib.etch_method_output_count(method)):
            self._check(lib.etch_method_output_info(method, index, ctypes.byref(info)))
            out = np.empty(tuple(info.sizes[:info.rank]), dtype=DTYPES[info.dtype])
            self._check(lib.etch_method_copy_output(
                method, index, out.ctypes.data_as(ctypes.c_void_p), out.nbytes))
            outputs.append(out)
        return outputs

    def forward(self, *inputs):
        return self.run("forward", *inputs)

    def close(self):
        for method in self._methods.values():
            self._lib.etch_method_free(method)
        self._methods = {}
        if self._program:
            self._lib.etch_program_free(self._program)
            self._program = None

    def __del__(self):
        self.close()


def load(path_or_bytes, library="libetch.so", threads=None, module_type=Module,
         weights=None):
    """Opens the program at a path, or held in bytes, with the runtime in
    library; weights: its external weights file (None: beside the program)."""
    lib = _bind(library)
    options = LoadOptions()
    lib.etch_load_options_init(ctypes.byref(options))
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise Error(f"threads must be a positive int, not {threads!r}")
    options.threads = threads or 0
    if weights is not None:
        options.weights_path = os.fsencode(weights)
    program = ctypes.c_void_p()
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        data = bytes(path_or_bytes)  # the runtime copies them
        status = lib.etch_program_load(data, len(data), None, ctypes.byref(options),
                                       ctypes.byref(program))
    elif isinstance(path_or_bytes, (str, os.PathLike)):
        status = lib.etch_program_open(os.fsencode(path_or_bytes),
                                       ctypes.byref(options), ctypes.byref(program))
    else:
        raise Error("etch.load takes a path or the program's bytes, not a "
                    f"{type(path_or_bytes).__name__}")
    _check(lib, status)
    return module_type(lib, program)
