#!/usr/bin/env python3
"""Checks that every value of a float .npy file lies in [LO, HI).

Usage: check_npy_range.py FILE.npy LO HI

Reads the files kiln-run writes (format 1.0 or 2.0, C order, '<f2', '<f4',
'<f8', or '<V2' for bf16) with the standard library only; exits non-zero
naming the values outside the range, else prints the count and the extremes.
"""
import argparse
import ast
import struct
import sys


def read_npy(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    if data[6] == 1:
        (length,) = struct.unpack("<H", data[8:10])
        start = 10
    else:
        (length,) = struct.unpack("<I", data[8:12])
        start = 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    body = data[start + length:]
    descr = header["descr"]
    if descr in ("<V2", "|V2"):  # bf16: the high half of an f32
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for (h,) in struct.iter_unpack("<H", body)]
    code = {"<f2": "e", "<f4": "f", "<f8": "d"}.get(descr)
    if not code:
        sys.exit(f"{path}: unsupported descr {descr!r}")
    return [v for (v,) in struct.iter_unpack("<" + code, body)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("low", type=float)
    parser.add_argument("high", type=float)
    args = parser.parse_args()
    values = read_npy(args.file)
    bad = sorted({v for v in values if not args.low <= v < args.high})
    if bad:
        count = sum(1 for v in values if not args.low <= v < args.high)
        sys.exit(f"{count} of {len(values)} values outside "
                 f"[{args.low}, {args.high}): {bad}")
    print(f"{len(values)} values in [{args.low}, {args.high}), "
          f"from {min(values)!r} to {max(values)!r}")


if __name__ == "__main__":
    main()
