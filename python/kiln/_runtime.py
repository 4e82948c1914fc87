"""Calls the functions of a library written by `kiln-compile` (docs/AOT.md):
`int kiln_<name>(const void *const *inputs, void *const *outputs)` on dense
row-major buffers, here the data pointers of torch tensors (no copies)."""
import ctypes
import re

import torch

from . import errors
from ._graph import TORCH_DTYPES

_SIG = re.compile(r"([a-z0-9]+)\[([0-9,]*)\]")


def parse_signature(sig):
    """`"f32[2,3],i64[]->f32[]"` -> ([(torch.float32, (2, 3)), ...], [...])."""
    ins, outs = sig.split("->")

    def types(s):
        out = []
        for m in _SIG.finditer(s):
            shape = torch.Size(int(x) for x in m.group(2).split(",") if x)
            out.append((TORCH_DTYPES[m.group(1)], shape))
        return out
    return types(ins), types(outs)


class Function:
    """One compiled function: its input/output types and a fast call."""

    def __init__(self, lib, name):
        self.name = name
        self._fn = getattr(lib, "kiln_" + name)
        self._fn.restype = ctypes.c_int
        self._fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        sig = getattr(lib, "kiln_%s_signature" % name)
        sig.restype = ctypes.c_char_p
        self.inputs, self.outputs = parse_signature(sig().decode())
        err = getattr(lib, "kiln_%s_last_error" % name)
        err.restype = ctypes.c_char_p
        self._err = err
        self._in_array = ctypes.c_void_p * len(self.inputs)
        self._out_array = ctypes.c_void_p * len(self.outputs)

    def new_outputs(self, device="cpu"):
        return [torch.empty(shape, dtype=dt, device=device) for dt, shape in self.outputs]

    def __call__(self, inputs, outputs):
        """Runs on `inputs` (contiguous tensors of the declared types, as
        checked by the caller) writing `outputs`."""
        self.call_ptrs([t.data_ptr() for t in inputs], [t.data_ptr() for t in outputs])
        return outputs

    def call_ptrs(self, inputs, outputs):
        """The same on raw addresses (e.g. into one residual buffer)."""
        rc = self._fn(self._in_array(*inputs), self._out_array(*outputs))
        if rc != 0:
            raise errors.RuntimeCallError("kiln_%s returned %d: %s"
                                          % (self.name, rc, self._err().decode()))


class Library:
    def __init__(self, path):
        self.path = path
        self._lib = ctypes.CDLL(path)
        self._functions = {}

    def function(self, name):
        if name not in self._functions:
            self._functions[name] = Function(self._lib, name)
        return self._functions[name]
