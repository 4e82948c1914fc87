#!/usr/bin/env python3
"""Loads the kiln-compile'd library of ../add.mlir with ctypes (standard
library only) and calls two of its functions.

Usage: add_ctypes.py LIBRARY.so
"""
import ctypes
import sys


def call(lib, name, inputs, outputs):
    """Calls kiln_<name>(inputs, outputs) on ctypes arrays; checks the status."""
    function = getattr(lib, "kiln_" + name)
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
    ins = (ctypes.c_void_p * len(inputs))(*[ctypes.addressof(a) for a in inputs])
    outs = (ctypes.c_void_p * len(outputs))(*[ctypes.addressof(a) for a in outputs])
    status = function(ins, outs)
    if status != 0:
        sys.exit(f"kiln_{name} returned {status}")


def main():
    lib = ctypes.CDLL(sys.argv[1])
    signature = lib.kiln_add_bias_signature
    signature.restype = ctypes.c_char_p
    assert signature() == b"f32[4,5],f32[5]->f32[4,5]", signature()

    x = (ctypes.c_float * 20)(*range(20))
    b = (ctypes.c_float * 5)(1, 2, 3, 4, 5)
    out = (ctypes.c_float * 20)()
    call(lib, "add_bias", [x, b], [out])
    want = [x[i] + b[i % 5] + 0.5 for i in range(20)]
    assert list(out) == want, (list(out), want)
    print("ctypes add_bias:", [out[i] for i in (0, 6, 12, 18, 19, 5)])

    col = (ctypes.c_int64 * 3)(1, 2, 3)
    row = (ctypes.c_int64 * 4)(10, 20, 30, 40)
    outer = (ctypes.c_int64 * 12)()
    call(lib, "outer_sum", [col, row], [outer])
    print("ctypes outer_sum:", list(outer))


if __name__ == "__main__":
    main()
