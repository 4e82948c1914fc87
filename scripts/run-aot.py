#!/usr/bin/env python3
"""Runs a function of a kiln-compile'd library on the same seeded inputs as
`kiln-run --random-inputs` and prints its results like kiln-run does.

Usage: scripts/run-aot.py LIB.so NAME [--seed N] [--random-range I:LO:HI ...]
                          [--print-limit N] [--repeat N] [--time]

The signature comes from the library (kiln_NAME_signature()); the inputs are
drawn exactly as kiln-run draws them (std::mt19937_64 seeded with seed + i,
the same conversions), so an AOT run and a JIT run of one module must print
the same values. Standard library only (ctypes).
"""
import argparse
import ctypes
import math
import os
import re
import struct
import sys
import time

MASK64 = (1 << 64) - 1


class MT19937_64:
    """std::mt19937_64, bit for bit."""

    def __init__(self, seed):
        self.mt = [0] * 312
        self.mt[0] = seed & MASK64
        for i in range(1, 312):
            prev = self.mt[i - 1]
            self.mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & MASK64
        self.index = 312

    def __call__(self):
        if self.index >= 312:
            mt = self.mt
            for i in range(312):
                x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
                xa = x >> 1
                if x & 1:
                    xa ^= 0xB5026F5AA96619E9
                mt[i] = mt[(i + 156) % 312] ^ xa
            self.index = 0
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & MASK64


SIZES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1,
         "i32": 4, "i64": 8}
FLOATS = ("f16", "bf16", "f32", "f64")


def float_range(dtype, low, high):
    """The least and greatest values of dtype in [low, high), or None (as
    kiln-run's getFloatRange)."""
    def round_to(value):
        return decode(dtype, encode(dtype, [value]))[0]

    def step(value, up):
        if dtype == "f64":
            return math.nextafter(value, math.inf if up else -math.inf)
        code = "<H" if SIZES[dtype] == 2 else "<I"
        (bits,) = struct.unpack(code, encode(dtype, [value]))
        if value == 0:
            bits = 1 if up else (1 << (8 * SIZES[dtype] - 1)) | 1
        else:
            bits += 1 if (value > 0) == up else -1
        return decode(dtype, struct.pack(code, bits))[0]

    least, greatest = round_to(low), round_to(high)
    while least < low:
        least = step(least, True)
    while greatest >= high:
        greatest = step(greatest, False)
    return (least, greatest) if least <= greatest else None


def draw(dtype, count, seed, value_range):
    """The values kiln-run's --random-inputs (and --random-range) draw."""
    engine = MT19937_64(seed)
    values = []
    if value_range and dtype in FLOATS:
        bounds = float_range(dtype, *value_range)
        if not bounds:
            sys.exit(f"{dtype} holds no value in [{value_range[0]}, "
                     f"{value_range[1]})")
        least, greatest = bounds
    for _ in range(count):
        bits = engine()
        if value_range:
            low, high = value_range
            span = (high - low) & MASK64
            if dtype in FLOATS:
                # Clamped so as not to round to high (or below low).
                value = low + (bits >> 11) * 2.0 ** -53 * span
                values.append(min(max(value, least), greatest))
            else:
                value = ((low & MASK64) + bits % span) & MASK64
                values.append(float(value - (1 << 64) if value >> 63 else value))
        elif dtype in FLOATS:
            values.append((bits >> 11) * 2.0 ** -53 * 2.0 - 1.0)
        elif dtype == "i1":
            values.append(float(bits >> 63))
        else:
            values.append(float((bits >> 60) - 8))
    return values


def bf16_bits(value):
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def encode(dtype, values):
    """Element storage, as HostTensor::fromDoubles converts."""
    if dtype == "bf16":
        return b"".join(struct.pack("<H", bf16_bits(v)) for v in values)
    if dtype == "i1":
        return bytes(1 if v != 0 else 0 for v in values)
    code = {"f16": "e", "f32": "f", "f64": "d", "i8": "b", "i32": "i",
            "i64": "q"}[dtype]
    if dtype not in FLOATS:
        values = [int(v) for v in values]
    return struct.pack("<%d%s" % (len(values), code), *values)


def decode(dtype, data):
    if dtype == "bf16":
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for (h,) in struct.iter_unpack("<H", data)]
    if dtype == "i1":
        return list(data)
    code = {"f16": "e", "f32": "f", "f64": "d", "i8": "b", "i32": "i",
            "i64": "q"}[dtype]
    return [v for (v,) in struct.iter_unpack("<" + code, data)]


def parse_signature(text):
    """"f32[2,3],f32[3]->f32[2,3]" -> ([(dtype, shape)], [(dtype, shape)])."""
    def specs(part):
        return [(m.group(1), [int(d) for d in m.group(2).split(",") if d])
                for m in re.finditer(r"([a-z0-9]+)\[([0-9,]*)\]", part)]
    inputs, results = text.split("->")
    return specs(inputs), specs(results)


def format_value(dtype, value):
    if dtype == "i1":
        return "true" if value else "false"
    if dtype in FLOATS:
        if math.isnan(value):
            # as C's printf: the sign bit shows
            return "-nan" if math.copysign(1.0, value) < 0 else "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return "%.6g" % value
    return str(int(value))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("name")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--random-range", action="append", default=[])
    parser.add_argument("--print-limit", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--time", action="store_true")
    opts = parser.parse_args()

    try:
        lib = ctypes.CDLL(os.path.abspath(opts.library))
    except OSError as error:
        sys.exit(f"run-aot.py: cannot load {opts.library}: {error}")
    try:
        signature = getattr(lib, f"kiln_{opts.name}_signature")
    except AttributeError:
        sys.exit(f"run-aot.py: {opts.library} has no function '{opts.name}' "
                 f"(no kiln_{opts.name}_signature; see the library's header)")
    signature.restype = ctypes.c_char_p
    input_specs, result_specs = parse_signature(signature().decode())
    ranges = {}
    for text in opts.random_range:
        index, low, high = (int(x) for x in text.split(":"))
        ranges[index] = (low, high)

    buffers = []
    for i, (dtype, shape) in enumerate(input_specs):
        count = math.prod(shape)
        data = encode(dtype, draw(dtype, count, opts.seed + i, ranges.get(i)))
        buffers.append(ctypes.create_string_buffer(data, max(len(data), 1)))
    outputs = [ctypes.create_string_buffer(max(math.prod(shape) * SIZES[dtype], 1))
               for dtype, shape in result_specs]
    ins = (ctypes.c_void_p * max(len(buffers), 1))(
        *[ctypes.addressof(b) for b in buffers])
    outs = (ctypes.c_void_p * max(len(outputs), 1))(
        *[ctypes.addressof(b) for b in outputs])
    function = getattr(lib, f"kiln_{opts.name}")
    function.restype = ctypes.c_int
    best = math.inf
    for _ in range(max(opts.repeat, 1)):
        start = time.perf_counter()
        status = function(ins, outs)
        best = min(best, time.perf_counter() - start)
        if status != 0:
            sys.exit(f"kiln_{opts.name} returned {status}")

    for i, ((dtype, shape), buffer) in enumerate(zip(result_specs, outputs)):
        count = math.prod(shape)
        values = decode(dtype, buffer.raw[:count * SIZES[dtype]])
        type_text = "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"
        shown = values[:opts.print_limit]
        text = ", ".join(format_value(dtype, v) for v in shown)
        if len(values) > len(shown):
            text += f", ... ({len(values)} values)"
        print(f"result{i}: {type_text}\n  [{text}]")
    if opts.time:
        suffix = f" (best of {opts.repeat})" if opts.repeat > 1 else ""
        print("run: %.3f ms%s" % (best * 1e3, suffix))
    return 0


if __name__ == "__main__":
    sys.exit(main())
