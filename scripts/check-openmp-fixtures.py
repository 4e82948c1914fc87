#!/usr/bin/env python3
"""Runs every fixture case (test/fixtures/*.json) with kiln-run sequentially
and with --openmp on 1 and 2 threads, and checks the results are bit for
bit the same: the OpenMP lowering must not change any op's results. The
one exception allowed is the sign or payload of a NaN, which IEEE leaves
unspecified and LLVM's constant folding changes (0/0 folds to +NaN where
x86 computes -NaN, even within one sequential run).
(KilnFixtureTests checks the values themselves against PyTorch.)

Usage: scripts/check-openmp-fixtures.py [--build-dir build] [--filter TEXT]
                                        [FIXTURE.json ...]

Standard library only. Prints one line per mismatch or failure and a
summary; exits non-zero if any case differs or fails with OpenMP only.
"""
import argparse
import glob
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DESCR = {"f16": ("<f2", "e"), "bf16": ("<V2", None), "f32": ("<f4", "f"),
         "f64": ("<f8", "d"), "i1": ("|b1", "?"), "i8": ("|i1", "b"),
         "i32": ("<i4", "i"), "i64": ("<i8", "q")}


def to_float(value):
    if isinstance(value, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[value]
    return float(value)


def bf16_bits(value):
    """The bfloat16 encoding of `value`, rounded to nearest even."""
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    if math.isnan(value):
        return (bits >> 16) | 0x40
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def write_npy(path, tensor):
    dtype, shape, data = tensor["dtype"], tensor["shape"], tensor["data"]
    descr, code = DESCR[dtype]
    if dtype == "bf16":
        payload = b"".join(struct.pack("<H", bf16_bits(to_float(v))) for v in data)
    elif dtype in ("f16", "f32", "f64"):
        payload = struct.pack("<%d%s" % (len(data), code), *map(to_float, data))
    elif dtype == "i1":
        payload = bytes(1 if v else 0 for v in data)
    else:
        payload = struct.pack("<%d%s" % (len(data), code), *map(int, data))
    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(" ") + ")"
    if len(shape) > 1:
        shape_text = shape_text.replace(", )", ")")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, shape_text)
    padding = 64 - (10 + len(header) + 1) % 64
    header = header + " " * padding + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(payload)


def npy_values(data, dtype):
    """The elements of a kiln-run .npy file (version 1 or 2 header)."""
    if data[6] == 1:
        start = 10 + struct.unpack("<H", data[8:10])[0]
    else:
        start = 12 + struct.unpack("<I", data[8:12])[0]
    payload = data[start:]
    if dtype == "bf16":
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for (h,) in struct.iter_unpack("<H", payload)]
    code = {"f16": "e", "f32": "f", "f64": "d", "i1": "B", "i8": "b",
            "i32": "i", "i64": "q"}[dtype]
    return [v for (v,) in struct.iter_unpack("<" + code, payload)]


def same_but_nan_bits(got, want, dtypes):
    """True if the results differ only in the sign or payload of NaNs, which
    IEEE leaves unspecified (LLVM folds 0/0 to +NaN, x86 computes -NaN)."""
    if len(got) != len(want):
        return False
    for g, w, dtype in zip(got, want, dtypes):
        if g == w:
            continue
        if len(g) != len(w) or dtype not in ("f16", "bf16", "f32", "f64"):
            return False
        for a, b in zip(npy_values(g, dtype), npy_values(w, dtype)):
            if not (math.isnan(a) and math.isnan(b)) and struct.pack(
                    "<d", a) != struct.pack("<d", b):
                return False
    return True


def run(kiln_run, source, entry, inputs, outdir, openmp, threads):
    args = [kiln_run, source, "--entry", entry, "--output-dir", outdir]
    for path in inputs:
        args += ["--input", path]
    env = dict(os.environ)
    if openmp:
        args.append("--openmp")
        env["OMP_NUM_THREADS"] = str(threads)
    result = subprocess.run(args, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[0:1]
    outputs = sorted(os.listdir(outdir))
    return [open(os.path.join(outdir, o), "rb").read() for o in outputs], None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fixtures", nargs="*")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--filter", default="")
    opts = parser.parse_args()
    kiln_run = os.path.join(opts.build_dir, "bin", "kiln-run")
    files = opts.fixtures or sorted(glob.glob(os.path.join(ROOT, "test",
                                                           "fixtures", "*.json")))
    checked = skipped = bad = nan_bits = 0
    with tempfile.TemporaryDirectory(prefix="kiln-omp-") as tmp:
        for file in files:
            for index, case in enumerate(json.load(open(file))["cases"]):
                name = case["name"]
                if opts.filter not in name:
                    continue
                work = os.path.join(tmp, f"{os.path.basename(file)}.{index}")
                os.makedirs(work)
                source = os.path.join(work, "case.mlir")
                with open(source, "w") as f:
                    f.write(case["source"])
                inputs = []
                for i, tensor in enumerate(case["inputs"]):
                    inputs.append(os.path.join(work, f"in{i}.npy"))
                    write_npy(inputs[-1], tensor)
                results = {}
                for label, openmp, threads in (("seq", False, 0),
                                               ("omp1", True, 1),
                                               ("omp2", True, 2)):
                    outdir = os.path.join(work, label)
                    results[label] = run(kiln_run, source, case["entry"], inputs,
                                         outdir, openmp, threads)
                seq, seq_error = results["seq"]
                if seq is None:
                    # Fails without OpenMP too (e.g. an op without lowering).
                    skipped += 1
                    continue
                checked += 1
                for label in ("omp1", "omp2"):
                    got, error = results[label]
                    if got is None:
                        bad += 1
                        print(f"FAIL {name} ({label}): {error}")
                    elif got != seq:
                        dtypes = [t["dtype"] for t in case["outputs"]]
                        if same_but_nan_bits(got, seq, dtypes):
                            nan_bits += 1
                            continue
                        bad += 1
                        print(f"DIFF {name} ({label}): results differ from "
                              "the sequential run")
    print(f"{checked} cases checked, {bad} OpenMP failures or differences, "
          f"{nan_bits} runs that differ only in NaN signs or payloads, "
          f"{skipped} cases that fail without OpenMP too (skipped)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
