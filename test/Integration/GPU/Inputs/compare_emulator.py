"""Calls every function of two libraries of the same module, one built with
--target=cpu and one with --target=cuda-emulator, on the same pseudo-random
inputs, and prints the largest difference of each result against its bound
(standard library only).

Usage: compare_emulator.py LIBCPU LIBEMULATOR NAME:N[:misaligned|:same]...

N is the reduction length of the function's results (keys, or K). Inputs
start 16-byte aligned, or with `misaligned` one element past that (a view
into a larger buffer, as a caller of the C ABI may pass: kernels that read
16 bytes at a time must fall back to element loads). `same` compares no
CPU result: it calls the emulated function on aligned inputs, then once
per input with that one input misaligned (so that a kernel that checks
the alignment of only some of its inputs issues a misaligned wide load,
which the emulator reports); every result must be bit-identical to the
aligned call's (the kernels stage the same values either way; only how
they load them differs).

The bound, as in test/unittests/GPUEmulationTest.cpp: the two backends sum
in different orders, so an f32 result that is a sum of n terms of magnitude
<= scale may differ by (2 n + 32) u scale (u = 2^-24); a bf16 result is an
f32 value rounded once on each side, so one bf16 ulp (2^-7 |ref|) more, and
the tensor-core kernel rounds P to bf16 before P V (2^-8 max|V|).
"""
import ctypes
import random
import re
import struct
import sys

U = 2.0 ** -24


def bf16_bits(value):
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def parse(signature):
    """'f32[2,3],bf16[4]->f32[2]' -> ([(dtype, n)...], [(dtype, n)...])."""
    def specs(text):
        out = []
        for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", text):
            n = 1
            for d in filter(None, dims.split(",")):
                n *= int(d)
            out.append((dtype, n))
        return out
    ins, outs = signature.split("->")
    return specs(ins), specs(outs)


CTYPES = {"f32": ctypes.c_float, "bf16": ctypes.c_uint16}


def place(ctype, data, misaligned):
    """`data` in a buffer of `ctype` that starts 16-byte aligned, or one
    element past that; returns (the buffer, the address of data)."""
    size = ctypes.sizeof(ctype)
    buffer = (ctype * (len(data) + 32 // size))()
    base = ctypes.addressof(buffer)
    first = ((-base) % 16) // size + (1 if misaligned else 0)
    for i, x in enumerate(data):
        buffer[first + i] = x
    return buffer, base + first * size


def call(lib, name, inputs, results):
    getattr(lib, "kiln_%s_signature" % name).restype = ctypes.c_char_p
    outs = [(CTYPES[dtype] * n)() for dtype, n in results]
    in_ptrs = (ctypes.c_void_p * len(inputs))(*[address for _, address in inputs])
    out_ptrs = (ctypes.c_void_p * len(outs))(
        *[ctypes.addressof(a) for a in outs])
    rc = getattr(lib, "kiln_" + name)(in_ptrs, out_ptrs)
    return rc, outs


def values(dtype, array):
    return [bf16_value(v) for v in array] if dtype == "bf16" else list(array)


def main():
    cpu = ctypes.CDLL(sys.argv[1])
    emu = ctypes.CDLL(sys.argv[2])
    emu.kiln_last_error.restype = ctypes.c_char_p
    rng = random.Random(7)
    for item in sys.argv[3:]:
        name, n, *flags = item.split(":")
        n = int(n)
        misaligned = "misaligned" in flags
        same = "same" in flags
        label = name + (" (misaligned)" if misaligned else "") + (
            " (misaligned vs aligned)" if same else "")
        signature = getattr(cpu, "kiln_%s_signature" % name)
        signature.restype = ctypes.c_char_p
        args, results = parse(signature().decode())
        inputs, shifted = [], []
        for dtype, n in args:
            data = [rng.uniform(-1, 1) for _ in range(n)]
            ctype, data = ((ctypes.c_uint16, list(map(bf16_bits, data)))
                           if dtype == "bf16" else (ctypes.c_float, data))
            inputs.append(place(ctype, data, misaligned))
            shifted.append(place(ctype, data, True))
        if same:
            rc, reference = call(emu, name, inputs, results)
            failure, differ = None, 0
            for i in range(len(inputs)):
                one = inputs[:i] + [shifted[i]] + inputs[i + 1:]
                rc_one, out = call(emu, name, one, results) if not rc else (0, [])
                if rc or rc_one:
                    failure = "input %d misaligned: rc %d/%d %s" % (
                        i, rc, rc_one, emu.kiln_last_error().decode())
                    break
                differ += sum(x != y for a, b in zip(reference, out)
                              for x, y in zip(a, b))
            if failure:
                print("%s: FAIL %s" % (label, failure))
            else:
                print("%s: %s, %d of %d elements differ" % (
                    label, "PASS" if differ == 0 else "FAIL", differ,
                    len(inputs) * sum(n for _, n in results)))
            continue
        rc_cpu, out_cpu = call(cpu, name, inputs, results)
        rc_emu, out_emu = call(emu, name, inputs, results)
        if rc_cpu or rc_emu:
            print("%s: FAIL rc %d/%d %s" % (label, rc_cpu, rc_emu,
                                             emu.kiln_last_error().decode()))
            continue
        for (dtype, _), a, b in zip(results, out_cpu, out_emu):
            a, b = values(dtype, a), values(dtype, b)
            ulp = 2.0 ** -7 if dtype == "bf16" else 0.0
            round_p = 2.0 ** -8 if dtype == "bf16" else 0.0
            worst = 0.0
            for x, y in zip(a, b):
                tol = (2 * n + 32) * U + ulp * abs(x) + round_p
                worst = max(worst, abs(x - y) / tol)
            print("%s: %s worst |emu - cpu| / tol = %.3f" %
                  (label, "PASS" if worst <= 1 else "FAIL", worst))


if __name__ == "__main__":
    main()
