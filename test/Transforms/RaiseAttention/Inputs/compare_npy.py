#!/usr/bin/env python3
"""Checks that two float .npy files kiln-run wrote agree within a tolerance.

Usage: compare_npy.py A.npy B.npy TOL

Passes when every |a - b| <= TOL * (1 + |a|) and neither file holds a NaN;
prints the largest relative difference either way, and exits non-zero
naming the first element beyond the tolerance. The .npy reader is the one
of test/Integration/CPU/Inputs/check_npy_range.py.
"""
import argparse
import importlib.util
import math
import pathlib
import sys

_READER = (pathlib.Path(__file__).resolve().parents[3] / "Integration" /
           "CPU" / "Inputs" / "check_npy_range.py")
_spec = importlib.util.spec_from_file_location("check_npy_range", _READER)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
read_npy = _module.read_npy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("tolerance", type=float)
    args = parser.parse_args()
    a, b = read_npy(args.a), read_npy(args.b)
    if len(a) != len(b):
        sys.exit(f"{len(a)} values against {len(b)}")
    worst, where = 0.0, None
    for n, (x, y) in enumerate(zip(a, b)):
        if math.isnan(x) or math.isnan(y):
            sys.exit(f"element {n}: NaN ({x!r} against {y!r})")
        error = abs(x - y) / (1 + abs(x))
        if error > worst:
            worst, where = error, n
    print(f"{len(a)} values, largest relative difference {worst:.3g}")
    if worst > args.tolerance:
        sys.exit(f"element {where}: {a[where]!r} against {b[where]!r} "
                 f"differs by more than {args.tolerance}")


if __name__ == "__main__":
    main()
