"""Calls every kiln_<name> of an AOT library with dummy device pointers on a
machine where the CUDA driver cannot be used (KILN_CUDA_DRIVER names a
missing file) and prints the return code and kiln_last_error(); then once
with NULL inputs. Standard library only.

usage: call_without_driver.py LIB NAME [NAME...]
"""
import ctypes
import sys


def main():
    lib = ctypes.CDLL(sys.argv[1])
    lib.kiln_last_error.restype = ctypes.c_char_p
    for name in sys.argv[2:]:
        signature_fn = getattr(lib, "kiln_%s_signature" % name)
        signature_fn.restype = ctypes.c_char_p
        signature = signature_fn().decode()
        ins, outs = signature.split("->")
        num_in = len(ins.split("],")) if ins else 0
        num_out = len(outs.split("],")) if outs else 0
        inputs = (ctypes.c_void_p * max(num_in, 1))(*([0x1000] * num_in))
        outputs = (ctypes.c_void_p * max(num_out, 1))(*([0x2000] * num_out))
        fn = getattr(lib, "kiln_" + name)
        rc = fn(inputs, outputs)
        print("%s %s: rc %d: %s" % (name, signature, rc,
                                    lib.kiln_last_error().decode()))
        rc = fn(None, outputs)
        print("%s NULL: rc %d: %s" % (name, rc, lib.kiln_last_error().decode()))


if __name__ == "__main__":
    main()
