"""Self-test of the harness the other checks rely on (kiln_gpu.py), without
any library or GPU, so that bench/gpu/run.sh (and `run.sh --emulate` here)
proves that a NaN result cannot pass and that a GPU fault costs one case:

- within, nan_max, relative_error, report and compare flag NaN (a plain
  `err > tol` test and Python's max() let it through), and poison fills
  outputs with NaN;
- is_sticky tells the CUDA errors that lose the context (Kiln's and
  torch's messages) from the others;
- run_cases, in child processes: a sticky fault fails its case once,
  restarts the script in place (same PID) to re-run the case with
  KILN_CUDA_SYNC_LAUNCHES=1, then resumes after it with the counts carried;
  a fault that does not recur still fails the case; an ordinary exception
  fails its case without a restart.
On the emulator (KILN_GPU_EMULATE=1) also check_attention_fwd.py itself
with a simulated fault (KILN_GPU_FAKE_FAULT) in its first case.
"""
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import contextlib

import torch

import kiln_gpu
from kiln_gpu import EMULATE, finish, is_sticky, nan_max, poison, report, \
    relative_error, within

HERE = os.path.dirname(os.path.abspath(__file__))
NAN = math.nan


def quietly(fn):
    """(result of fn(), its output) without counting the cases it reports."""
    cases, failures = kiln_gpu._cases[0], list(kiln_gpu._failures)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn()
    kiln_gpu._cases[0], kiln_gpu._failures[:] = cases, failures
    return result, out.getvalue()


def expect(name, ok, note=""):
    report("harness." + name, 0.0 if ok else 1.0, 0.0, ok=ok, note=note)


def check_comparisons():
    expect("within_nan", not within(NAN, 2e-2) and within(1e-3, 2e-2)
           and not within(3e-2, 2e-2))
    expect("nan_max", math.isnan(nan_max([1e-3, NAN, 2e-3]))
           and math.isnan(nan_max([NAN, 1.0])) and math.isnan(nan_max([]))
           and nan_max([1e-3, 2e-3]) == 2e-3,
           "python max([1e-3, nan, 2e-3]) = %g" % max([1e-3, NAN, 2e-3]))
    want = torch.tensor([1.0, -2.0, 4.0])
    got = torch.tensor([1.0, -2.0, 4.5])
    expect("relative_error",
           relative_error(got, want) == 0.125
           and math.isnan(relative_error(torch.tensor([1.0, NAN, 4.0]), want))
           and math.isnan(relative_error(torch.tensor([1.0, math.inf, 4.0]),
                                         want)))
    f, i, b = poison(torch.zeros(3, dtype=torch.bfloat16),
                     torch.zeros(2, dtype=torch.int32),
                     torch.zeros(2, dtype=torch.bool))
    expect("poison", bool(f.isnan().all()) and
           bool((i == torch.iinfo(torch.int32).min).all()) and bool(b.all()))
    ok, line = quietly(lambda: report("nan_case", NAN, 1.0))
    expect("report_nan", not ok and line.startswith("FAIL nan_case nan"),
           line.strip())
    ok, line = quietly(lambda: kiln_gpu.compare(
        "nan_case", torch.tensor([1.0, NAN]), torch.tensor([1.0, 2.0]), 1e9))
    expect("compare_nan", not ok and line.startswith("FAIL"), line.strip())


def check_sticky():
    sticky = [
        "kernel `attn_fwd` (grid 2x4x1, block 128x1x1, 0 bytes of shared "
        "memory) failed: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory "
        "access was encountered",
        "cuStreamSynchronize failed: CUDA_ERROR_MISALIGNED_ADDRESS: "
        "misaligned address",
        "CUDA error: an illegal memory access was encountered",
        "CUDA error: unspecified launch failure",
        "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure",
        "CUDA error: an illegal instruction was encountered"]
    other = ["cuMemAllocAsync(1048576 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY:"
             " out of memory", "kiln_attn returned 1: NULL inputs",
             "CUDA error: invalid argument"]
    wrong = [m for m in sticky if not is_sticky(m)] + \
        [m for m in other if is_sticky(m)]
    expect("is_sticky", not wrong, "; ".join(wrong))


CHILD = r"""
import os, sys
sys.path.insert(0, %(here)r)
import kiln_gpu
mode = sys.argv[1]
sync = os.environ.get("KILN_CUDA_SYNC_LAUNCHES", "")

def body(case):
    print("# pid", os.getpid(), "case", case, "sync", sync, flush=True)
    if case == "b" and mode == "sticky":
        raise RuntimeError("CUDA error: an illegal memory access was "
                           "encountered (sync %%s)" %% sync)
    if case == "b" and mode == "flaky" and not sync:
        kiln_gpu.fail("b/kiln", "kernel failed: CUDA_ERROR_LAUNCH_FAILED")
        return
    if case == "b" and mode == "plain":
        raise ValueError("an ordinary bug")
    kiln_gpu.report(case, 0.0, 0.0)
kiln_gpu.run_cases(["a", "b", "c", "d"], body)
kiln_gpu.finish()
"""


def run_child(script, mode, **extra):
    env = dict(os.environ, **extra)
    env.pop("KILN_CUDA_SYNC_LAUNCHES", None)
    result = subprocess.run([sys.executable, script, mode], env=env,
                            capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout + result.stderr


def check_restarts():
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "child.py")
        with open(script, "w") as f:
            f.write(CHILD % {"here": HERE})
        expected = {
            # Faults twice (the re-run too): FAIL once, with the re-run's
            # message; c and d run after the restarts.
            "sticky": ("4 cases, 1 failed: b$", ["a", "b", "b", "c", "d"],
                       ["FAIL b nan nan RuntimeError: CUDA error: an "
                        "illegal memory access was encountered (sync 1)"]),
            # Faults without synchronous launches only: the re-run's own
            # results, and b/first_run FAILs.
            "flaky": ("5 cases, 1 failed: b/first_run$",
                      ["a", "b", "b", "c", "d"],
                      ["PASS b ", "FAIL b/first_run nan nan the first run "
                       "faulted (kernel failed: CUDA_ERROR_LAUNCH_FAILED)"]),
            # Not a GPU fault: no restart.
            "plain": ("4 cases, 1 failed: b$", ["a", "b", "c", "d"],
                      ["FAIL b nan nan ValueError: an ordinary bug"]),
        }
        for mode, (summary, order, lines) in expected.items():
            rc, out = run_child(script, mode)
            runs = re.findall(r"^# pid (\d+) case (\w+)", out, re.M)
            pids = {pid for pid, _ in runs}
            last = out.strip().splitlines()[-1] if out.strip() else ""
            ok = (rc == 1 and re.search(summary, last) is not None
                  and [case for _, case in runs] == order and len(pids) == 1
                  and all(line in out for line in lines))
            expect("restart_" + mode, ok, "" if ok else
                   "rc %d, output:\n%s" % (rc, out))
        # Under run.sh's compute-sanitizer step (KILN_GPU_NO_RESTART=1): no
        # restart, so the sanitizer's summary covers the faulting image.
        rc, out = run_child(script, "sticky", KILN_GPU_NO_RESTART="1")
        runs = re.findall(r"^# pid (\d+) case (\w+)", out, re.M)
        last = out.strip().splitlines()[-1] if out.strip() else ""
        ok = (rc == 1 and [case for _, case in runs] == ["a", "b"]
              and last.endswith("3 cases, 2 failed: b restarts"))
        expect("no_restart", ok, "" if ok else
               "rc %d, output:\n%s" % (rc, out))


def check_fwd_fault():
    """check_attention_fwd.py on the emulator with a simulated fault in
    its first case: FAIL once, the rest run, one process."""
    with open(os.path.join(kiln_gpu.ARTIFACTS, "attention_fwd",
                           "cases.json")) as f:
        names = [c["name"] for c in json.load(f)["check"]
                 if "plain" in c["name"]]
    env = dict(os.environ, KILN_GPU_FAKE_FAULT=names[0])
    env.pop("KILN_CUDA_SYNC_LAUNCHES", None)
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "check_attention_fwd.py"),
         "--filter", "plain"], env=env, capture_output=True, text=True,
        timeout=300)
    out = result.stdout + result.stderr
    last = out.strip().splitlines()[-1] if out.strip() else ""
    ok = (result.returncode == 1 and
          last.endswith("%d cases, 1 failed: %s" % (len(names), names[0]))
          and "KILN_CUDA_SYNC_LAUNCHES=1)" in out
          and all(("PASS %s " % n) in out for n in names[1:]))
    expect("restart_check_attention_fwd", ok, "" if ok else
           "rc %d, output:\n%s" % (result.returncode, out))


def main():
    check_comparisons()
    check_sticky()
    check_restarts()
    if EMULATE:
        check_fwd_fault()
    finish()


if __name__ == "__main__":
    main()
