"""The etch runtime from Python through its C API (libetch.so, ctypes):
numpy arrays in and out, no compiled extension, any CPython 3.

    from etch.capi import load
    module = load("model.etp", library="build/lib/libetch.so", threads=2)
    outputs = module.run("forward", image)      # a list of numpy arrays

Failures raise EtchError with the runtime's one-line message.
"""
import ctypes

import numpy as np

MAX_RANK = 8
# etch_dtype -> numpy dtype (include/etch/c/etch_runtime.h)
DTYPES = {0: np.float32, 1: np.float16, 2: np.float64, 4: np.int8, 5: np.uint8,
          6: np.int16, 7: np.int32, 8: np.int64, 9: np.bool_}


class EtchError(Exception):
    """A failure the runtime reported, with its message."""


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("sizes", ctypes.c_int64 * MAX_RANK),
                ("min_sizes", ctypes.c_int64 * MAX_RANK),
                ("max_sizes", ctypes.c_int64 * MAX_RANK), ("nbytes", ctypes.c_size_t)]


class LoadOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("threads", ctypes.c_uint32),
                ("profile_delegates", ctypes.c_int32)]


def _bind(library):
    lib = ctypes.CDLL(library)
    status = ctypes.c_void_p
    signatures = {
        "etch_status_message": (ctypes.c_char_p, [status]),
        "etch_status_free": (None, [status]),
        "etch_version": (ctypes.c_char_p, []),
        "etch_load_options_init": (None, [ctypes.POINTER(LoadOptions)]),
        "etch_program_open": (status, [ctypes.c_char_p, ctypes.POINTER(LoadOptions),
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
        "etch_method_execute": (status, [ctypes.c_void_p]),
        "etch_method_copy_output": (status, [ctypes.c_void_p, ctypes.c_size_t,
                                             ctypes.c_void_p, ctypes.c_size_t]),
    }
    for name, (result, arguments) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = result, arguments
    return lib


class Module:
    """A loaded program; methods load on first use."""

    def __init__(self, lib, program):
        self._lib, self._program, self._methods = lib, program, {}
        count = lib.etch_program_method_count(program)
        self.method_names = [lib.etch_program_method_name(program, i).decode()
                             for i in range(count)]

    def _check(self, status):
        if status:
            message = self._lib.etch_status_message(status).decode()
            self._lib.etch_status_free(status)
            raise EtchError(message)

    def _method(self, name):
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
            raise EtchError(f"method '{method_name}' takes {count} inputs, "
                            f"{len(inputs)} given")
        info = TensorInfo()
        for index, array in enumerate(inputs):
            self._check(lib.etch_method_input_info(method, index, ctypes.byref(info)))
            array = np.ascontiguousarray(array, dtype=DTYPES[info.dtype])
            sizes = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
            self._check(lib.etch_method_set_input(
                method, index, info.dtype, sizes, array.ndim,
                array.ctypes.data_as(ctypes.c_void_p), array.nbytes))
        self._check(lib.etch_method_execute(method))
        outputs = []
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


def load(path, library="libetch.so", threads=None):
    """Opens the program at path with the runtime in library."""
    lib = _bind(library)
    options = LoadOptions()
    lib.etch_load_options_init(ctypes.byref(options))
    options.threads = threads or 0
    program = ctypes.c_void_p()
    status = lib.etch_program_open(str(path).encode(), ctypes.byref(options),
                                   ctypes.byref(program))
    if status:
        message = lib.etch_status_message(status).decode()
        lib.etch_status_free(status)
        raise EtchError(message)
    return Module(lib, program)
