#!/usr/bin/env python3
"""Usage: extract-ptx.py [NAME] < FILE.mlir

Prints the PTX of `gpu.binary @NAME` (default: the first gpu.binary) in
the MLIR read from stdin, serialized with format `isa`: its
`assembly = "..."` string with MLIR's escapes (\\XX hex bytes, \\\\,
\\") decoded, so that FileCheck and ptxas can read it."""
import re
import sys

text = sys.stdin.read()
name = sys.argv[1] if len(sys.argv) > 1 else r"[\w$.]+"
match = re.search(r'gpu\.binary @' + name + r' .*?assembly = "((?:[^"\\]|\\.)*)"',
                  text, re.S)
if not match:
    sys.exit("extract-ptx: no gpu.binary with an `assembly` in the input")
out = bytearray()
s = match.group(1)
i = 0
while i < len(s):
    if s[i] == "\\":
        nxt = s[i + 1]
        if nxt in '\\"':
            out += nxt.encode()
            i += 2
        else:
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
    else:
        out += s[i].encode()
        i += 1
sys.stdout.write(out.decode())
