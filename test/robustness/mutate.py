#!/usr/bin/env python3
"""kiln-opt must never crash: mutate the numbers in valid kiln functions
(shapes, attribute values, sizes) and check that every mutant either passes
or is rejected with exit code 1 — never a signal or an assertion.

Deterministic (fixed seed); usage: mutate.py KILN_OPT SRC_ROOT [COUNT] [SEED]
"""
import glob
import os
import random
import re
import subprocess
import sys

kiln_opt, src_root = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
random.seed(int(sys.argv[4]) if len(sys.argv) > 4 else 0)

sources = sorted(glob.glob(os.path.join(src_root, "test/Dialect/Kiln/roundtrip-*.mlir")))
sources.append(os.path.join(src_root, "examples/transformer_block.mlir"))
funcs = []
for path in sources:
    funcs += re.findall(r"func\.func.*?\n}\n", open(path).read(), re.S)
if not funcs:
    sys.exit("no functions found under " + src_root)

number = re.compile(r"(?<![%#\w])-?\d+(\.\d+)?")
replacements = ["0", "1", "-1", "2", "3", "7", "-5", "65", "4294967296",
                "9223372036854775807", "-9223372036854775808", "0.0", "1.0e+300"]
failures = 0
for i in range(count):
    text = random.choice(funcs)
    for _ in range(random.randint(1, 3)):
        matches = list(number.finditer(text))
        if not matches:
            break
        m = random.choice(matches)
        text = text[:m.start()] + random.choice(replacements) + text[m.end():]
    run = subprocess.run([kiln_opt, "-", "--canonicalize", "--cse", "-o", os.devnull],
                         input=text.encode(), capture_output=True, timeout=120)
    if run.returncode not in (0, 1):
        failures += 1
        print(f"mutant {i}: exit code {run.returncode}\n{text}\n{run.stderr.decode()[-2000:]}")
print(f"{count - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
