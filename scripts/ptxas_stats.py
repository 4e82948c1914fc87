#!/usr/bin/env python3
"""Registers, spills and shared memory of every kernel of a GPU module.

Reads MLIR whose gpu.binary ops hold PTX text (gpu-module-to-binary
format=isa, e.g. `kiln-lower-to-nvvm="format=isa"`) on stdin, runs
`ptxas -v` on each kernel for the PTX's own target and prints one line per
kernel: ptxas's registers, spills, barriers and shared memory, and the
number of PTX instructions. Usage (bench/gpu/kernel_stats.sh runs it on
the benchmark's shapes):

  kiln-opt case.mlir --kiln-lower-to-nvvm="format=isa" \\
    | PATH=/usr/local/cuda/bin:$PATH scripts/ptxas_stats.py
"""

import os
import re
import subprocess
import sys
import tempfile


def main():
    text = sys.stdin.read()
    ptxas = os.environ.get("PTXAS", "ptxas")
    pattern = re.compile(
        r'gpu\.binary @(\w+)\s.*?assembly = "((?:[^"\\]|\\.)*)"', re.S)
    found = False
    for match in pattern.finditer(text):
        found = True
        name, body = match.group(1), match.group(2)
        # MLIR string escapes: \XX hex bytes and \\.
        body = re.sub(r"\\([0-9A-Fa-f]{2})",
                      lambda m: chr(int(m.group(1), 16)), body)
        body = body.replace("\\\\", "\\")
        target = re.search(r"^\.target (sm_\w+)", body, re.M)
        with tempfile.NamedTemporaryFile("w", suffix=".ptx") as ptx:
            ptx.write(body)
            ptx.flush()
            result = subprocess.run(
                [ptxas, "-v", "-arch", target.group(1) if target else "sm_90",
                 ptx.name, "-o", os.devnull],
                capture_output=True, text=True)
        info = " ".join(line.split("ptxas info    :")[-1].strip()
                        for line in result.stderr.splitlines()
                        if "registers" in line or "spill" in line)
        if result.returncode != 0:
            info = "ptxas failed: " + result.stderr.strip()
        # PTX instructions: the indented lines that start with an opcode
        # or a predicate (directives start with a dot, labels with $).
        count = sum(1 for line in body.splitlines()
                    if re.match(r"\s+[@a-z]", line))
        print(f"{name}: {info}, {count} PTX instructions")
    if not found:
        sys.exit("no gpu.binary with PTX text on stdin (use format=isa)")


if __name__ == "__main__":
    main()
