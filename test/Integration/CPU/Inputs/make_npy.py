#!/usr/bin/env python3
"""Writes small .npy files for the kiln-run tests, with the standard library only.

Usage: make_npy.py OUT.npy DESCR SHAPE VALUES [--version 1|2] [--fortran]
                   [--truncate N] [--bad-magic] [--header-descr D]

DESCR is a NumPy dtype string ('<f4', '<i8', '|b1', ...), SHAPE a comma
separated list ('2,3', '' for a scalar), VALUES a comma separated list. The
corruption flags produce the malformed files the error tests need;
--header-descr writes D into the header instead of DESCR (say, the bytes of
'|i1' values labelled '|b1').
"""
import argparse
import struct

FORMATS = {"<f2": "e", "<f4": "f", "<f8": "d", "|b1": "?", "|i1": "b",
           "<i4": "i", "<i8": "q", "<u4": "I"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("descr")
    parser.add_argument("shape")
    parser.add_argument("values")
    parser.add_argument("--version", type=int, default=1)
    parser.add_argument("--fortran", action="store_true")
    parser.add_argument("--truncate", type=int, default=0,
                        help="drop this many bytes from the end")
    parser.add_argument("--bad-magic", action="store_true")
    parser.add_argument("--header-descr", default=None)
    args = parser.parse_args()

    shape = tuple(int(d) for d in args.shape.split(",") if d)
    code = FORMATS[args.descr]
    # int(v) first: int(float(v)) would round integers above 2^53.
    def integer(v):
        try:
            return int(v)
        except ValueError:
            return int(float(v))
    values = [float(v) if code in "efd" else integer(v)
              for v in args.values.split(",") if v]
    data = struct.pack("<%d%s" % (len(values), code), *values)

    shape_text = "(%s)" % (", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        args.header_descr or args.descr, "True" if args.fortran else "False", shape_text)
    length_size = 2 if args.version == 1 else 4
    prefix = 6 + 2 + length_size
    total = (prefix + len(header) + 1 + 63) // 64 * 64
    header = header + " " * (total - prefix - len(header) - 1) + "\n"
    magic = b"\x93NUMPY" if not args.bad_magic else b"\x93NUMPX"
    length = struct.pack("<H" if args.version == 1 else "<I", len(header))
    blob = magic + bytes([args.version, 0]) + length + header.encode("latin1") + data
    if args.truncate:
        blob = blob[:-args.truncate]
    with open(args.out, "wb") as f:
        f.write(blob)


if __name__ == "__main__":
    main()
