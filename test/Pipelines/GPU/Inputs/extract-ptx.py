#!/usr/bin/env python3
"""Writes the PTX of each `#gpu.object` in MLIR text (stdin) to
<prefix>0.ptx, <prefix>1.ptx, ...: the objects of gpu.binary ops that
kiln-lower-to-nvvm{format=isa} produced, with MLIR's string escapes undone.
Exits non-zero when there is none."""
import re
import sys

prefix = sys.argv[1]
text = sys.stdin.read()
# #gpu.object<#nvvm.target<...>, ..., "PTX">: the last string of the object.
objects = re.findall(r'#gpu\.object<#nvvm\.target<[^>]*>,(?:[^"]|"(?:[^"\\]|\\.)*")*?"((?:[^"\\]|\\.)*)">', text)
if not objects:
    sys.exit("no #gpu.object in the input")


def unescape(s):
    # MLIR prints non-printable bytes and quotes as \XX (two hex digits).
    return re.sub(r'\\([0-9A-Fa-f]{2}|\\)',
                  lambda m: '\\' if m.group(1) == '\\' else chr(int(m.group(1), 16)), s)


for i, ptx in enumerate(objects):
    with open(f"{prefix}{i}.ptx", "w") as f:
        f.write(unescape(ptx))
