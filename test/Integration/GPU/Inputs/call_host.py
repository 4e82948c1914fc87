"""Calls kiln_add_bias of wrapper.mlir's library on host arrays: a success,
a NULL input, a success again (standard library only)."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.kiln_last_error.restype = ctypes.c_char_p
x = (ctypes.c_float * 3)(1, 2, 3)
b = (ctypes.c_float * 3)(10, 20, 30)
out = (ctypes.c_float * 3)()
outputs = (ctypes.c_void_p * 1)(ctypes.addressof(out))
for second in (b, None, b):
    inputs = (ctypes.c_void_p * 2)(
        ctypes.addressof(x), ctypes.addressof(second) if second else None)
    rc = lib.kiln_add_bias(inputs, outputs)
    line = "rc %d, error '%s'" % (rc, lib.kiln_last_error().decode())
    if rc == 0:
        line += ", result [%s]" % ", ".join(str(v) for v in out)
    print(line)
