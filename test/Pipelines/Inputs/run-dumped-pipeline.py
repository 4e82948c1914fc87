"""Checks that the textual pipeline which `kiln-opt INPUT FLAG
--dump-pass-pipeline` prints parses back and does what FLAG does: the
outputs of `kiln-opt INPUT FLAG` and `kiln-opt INPUT --pass-pipeline=<dumped>`
are the same, but for the compile times that gpu-module-to-binary records.

Usage: run-dumped-pipeline.py KILN_OPT INPUT FLAG
"""

import re
import subprocess
import sys

kiln_opt, source, flag = sys.argv[1:]


def run(*args):
    return subprocess.run([kiln_opt, source, *args], capture_output=True,
                          text=True, check=True)


# "Pass Manager with N passes:\n<pipeline>\n" on stderr.
header, pipeline = run(flag, "--dump-pass-pipeline").stderr.split("\n", 1)
if not header.startswith("Pass Manager with"):
    sys.exit(f"unexpected --dump-pass-pipeline header: {header!r}")
try:
    dumped = run("--pass-pipeline=" + pipeline.strip()).stdout
except subprocess.CalledProcessError as error:
    sys.exit(f"the dumped pipeline of {flag} fails:\n{error.stderr}")
named = run(flag).stdout


def normalize(text):
    return re.sub(r"LLVMIRToISATimeInMs = \d+", "LLVMIRToISATimeInMs = 0",
                  text)


if normalize(named) != normalize(dumped):
    sys.exit(f"the dumped pipeline of {flag} gives another output")
print(f"{flag}: same output")
