#!/usr/bin/env python3
"""Compares the scalar float32 result kiln-run wrote (result0.npy) with the
loss PyTorch computed (torch_block.ref.json, written by
scripts/export_torch.py). Standard library only: the suite needs no torch.

The graph runs in float32, so the float64 reference is met to float32's
accuracy over a ~50-op graph: |got - want| <= 1e-5 * |want| + 1e-6.
"""
import ast
import json
import struct
import sys


def read_scalar_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", "not a .npy file"
    major = data[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", data[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", data[8:12])
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    assert header["descr"] == "<f4" and tuple(header["shape"]) == (), header
    (value,) = struct.unpack("<f", data[start + hlen:start + hlen + 4])
    return value


def main(result, reference):
    got = read_scalar_f32(result)
    with open(reference) as f:
        ref = json.load(f)
    ok = True
    for key in ("loss_f64", "loss_f32"):
        want = ref[key]
        tol = 1e-5 * abs(want) + 1e-6
        status = "ok" if abs(got - want) <= tol else "MISMATCH"
        ok = ok and status == "ok"
        print("%s: kiln %.9g, torch %.9g, |diff| %.3g <= %.3g: %s"
              % (key, got, want, abs(got - want), tol, status))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
