#!/usr/bin/env python3
"""Compiles every fixture case (test/fixtures/*.json) ahead of time with
kiln-compile (--mcpu native, as the JIT compiles) and checks that the library, called
through scripts/run-aot.py, prints exactly what kiln-run prints for the same
seeded random inputs: the AOT path must link every op's code without
MLIR/LLVM and agree with the JIT.

With --mcpu generic, f32 matmuls (and so attention) may differ in the last
digit: the matmul kernels' llvm.intr.fmuladd is one fused multiply-add on
CPUs with FMA and a multiply then an add without (x86-64 baseline).

Usage: scripts/check-aot-fixtures.py [--build-dir build] [--filter TEXT]
                                     [--mcpu native] [FIXTURE.json ...]

Standard library only. Prints one line per failure and a summary; exits
non-zero on any. Takes minutes on two cores (not a ctest).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fixtures", nargs="*")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--filter", default="")
    parser.add_argument("--mcpu", default="native")
    parser.add_argument("--seed", default="3")
    opts = parser.parse_args()
    tools = os.path.join(opts.build_dir, "bin")
    run_aot = os.path.join(ROOT, "scripts", "run-aot.py")
    files = opts.fixtures or sorted(
        glob.glob(os.path.join(ROOT, "test", "fixtures", "*.json")))
    checked = bad = 0
    with tempfile.TemporaryDirectory(prefix="kiln-aot-") as tmp:
        for file in files:
            for index, case in enumerate(json.load(open(file))["cases"]):
                name, entry = case["name"], case["entry"]
                if opts.filter not in name:
                    continue
                source = os.path.join(tmp, f"{index}.mlir")
                library = os.path.join(tmp, f"lib{index}.so")
                with open(source, "w") as f:
                    f.write(case["source"])
                checked += 1
                compiled = subprocess.run(
                    [os.path.join(tools, "kiln-compile"), source, "-o", library,
                     "--mcpu", opts.mcpu], capture_output=True, text=True)
                if compiled.returncode != 0:
                    bad += 1
                    print(f"COMPILE {name}: {compiled.stderr.strip()[:500]}")
                    continue
                common = ["--seed", opts.seed, "--print-limit", "64"]
                jit = subprocess.run(
                    [os.path.join(tools, "kiln-run"), source, "--entry", entry,
                     "--random-inputs"] + common, capture_output=True, text=True)
                aot = subprocess.run(
                    [sys.executable, run_aot, library, entry] + common,
                    capture_output=True, text=True)
                if aot.returncode != 0 or jit.stdout != aot.stdout:
                    bad += 1
                    print(f"DIFF {name}:\n  jit: {jit.stdout.strip()[:300]}\n"
                          f"  aot: {(aot.stdout + aot.stderr).strip()[:300]}")
                os.remove(library)
    print(f"{checked} cases checked, {bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
