#!/usr/bin/env python3
"""One AOT library, the same values, two placements (issue #26).

Compiles each case with kiln-compile (`backward`: the attention forward +
backward, f32, B=1, H=8, S=2048, D=64, causal, kiln.attention with its lse
then kiln.attention_grad from O and LSE; `forward`: the forward alone;
`matmul`: a 2048 x 2048 x 2048 f32 kiln.matmul), then times it in fresh
processes, alternating:

  fresh   the input arrays NumPy just made
  copied  copies of them (the originals freed before the first call)

Each process prints the fastest of --repeat calls after one warm-up call
and the minor page faults of one steady-state call. Before Kiln's host
allocator (docs/CPUBackend.md, "Host memory") the fresh process mapped and
zero-filled its temporaries on every call: 0.35 s and 103,000 faults per
call against 0.26 s and 0. Reports the medians of --rounds processes per
placement and their ratio.

Usage: bench/placement.py [--build-dir build] [--threads 1 2] [--rounds 3]
                          [--repeat 5] [--case backward forward matmul]
(by default every case at 1 and 2 threads, in one run; exit code 1 when a
fresh / copied ratio is off by 10 % or more)
Needs NumPy (the venv of scripts/python-env.sh has it) and a built Kiln.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

T = "tensor<1x8x2048x64xf32>"
L = "tensor<1x8x2048xf32>"
M = "tensor<2048x2048xf32>"
# case: (module, input shapes, output shapes, description)
CASES = {
    "backward": (f"""\
func.func @run(%q: {T}, %k: {T}, %v: {T}, %do: {T}) -> ({T}, {T}, {T}, {T}) {{
  %o, %lse = kiln.attention %q, %k, %v {{causal}} : {T}, {T}, {T} -> {T}, {L}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do out(%o : {T}) lse(%lse : {L}) {{causal}}
      : {T}, {T}, {T}, {T} -> {T}, {T}, {T}
  return %o, %dq, %dk, %dv : {T}, {T}, {T}, {T}
}}
""", [(1, 8, 2048, 64)] * 4, [(1, 8, 2048, 64)] * 4,
                 "attention forward + backward, f32 B=1 H=8 S=2048 D=64 causal"),
    "forward": (f"""\
func.func @run(%q: {T}, %k: {T}, %v: {T}) -> {T} {{
  %o = kiln.attention %q, %k, %v {{causal}} : {T}, {T}, {T} -> {T}
  return %o : {T}
}}
""", [(1, 8, 2048, 64)] * 3, [(1, 8, 2048, 64)],
                "attention forward, f32 B=1 H=8 S=2048 D=64 causal"),
    "matmul": (f"""\
func.func @run(%a: {M}, %b: {M}) -> {M} {{
  %c = kiln.matmul %a, %b : ({M}, {M}) -> {M}
  return %c : {M}
}}
""", [(2048, 2048)] * 2, [(2048, 2048)], "matmul f32 2048 x 2048 x 2048"),
}

CHILD = r"""
import ctypes, resource, sys, time
import numpy as np
library, placement, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
in_shapes, out_shapes = eval(sys.argv[4]), eval(sys.argv[5])
rng = np.random.default_rng(0)
ins = [rng.standard_normal(s, dtype=np.float32) for s in in_shapes]
if placement == "copied":
    ins = [a.copy() for a in ins]
outs = [np.empty(s, np.float32) for s in out_shapes]
f = ctypes.CDLL(library).kiln_run
ip = (ctypes.c_void_p * len(ins))(*[a.ctypes.data for a in ins])
op = (ctypes.c_void_p * len(outs))(*[a.ctypes.data for a in outs])
assert f(ip, op) == 0
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
assert f(ip, op) == 0
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
best = float("inf")
for _ in range(repeat):
    start = time.perf_counter()
    assert f(ip, op) == 0
    best = min(best, time.perf_counter() - start)
print(best, faults)
"""


def measure(opts, case, threads, workdir):
    """Returns {placement: [(seconds, faults)] per round} for one case."""
    module, in_shapes, out_shapes, _ = CASES[case]
    source = os.path.join(workdir, f"{case}.mlir")
    library = os.path.join(workdir, f"lib{case}{threads}.so")
    with open(source, "w") as f:
        f.write(module)
    args = [os.path.join(opts.build_dir, "bin", "kiln-compile"), source,
            "-o", library, "--mcpu", "native"]
    if threads > 1:
        args.append("--openmp")
    subprocess.run(args, check=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    results = {"fresh": [], "copied": []}
    for _ in range(opts.rounds):
        for placement in results:
            out = subprocess.run(
                [sys.executable, "-c", CHILD, library, placement,
                 str(opts.repeat), repr(in_shapes), repr(out_shapes)],
                env=env, check=True, capture_output=True, text=True)
            seconds, faults = out.stdout.split()
            results[placement].append((float(seconds), int(faults)))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--case", nargs="+", choices=sorted(CASES),
                        default=["backward", "forward", "matmul"])
    opts = parser.parse_args()
    worst = 1.0
    with tempfile.TemporaryDirectory() as workdir:
        for case in opts.case:
            for threads in opts.threads:
                results = measure(opts, case, threads, workdir)
                print(f"{CASES[case][3]}, {threads} thread(s), medians of "
                      f"{opts.rounds} processes")
                medians = {}
                for placement, runs in results.items():
                    medians[placement] = statistics.median(s for s, _ in runs)
                    faults = statistics.median(n for _, n in runs)
                    print(f"  {placement:7s} {medians[placement] * 1e3:8.1f} ms"
                          f"  {faults:8.0f} page faults per call")
                ratio = medians["fresh"] / medians["copied"]
                print(f"  fresh / copied {ratio:.3f}", flush=True)
                worst = max(worst, ratio, 1 / ratio)
    print(f"worst placement ratio {worst:.3f} (the issue's bound: 1.1)")
    return 0 if worst < 1.1 else 1


if __name__ == "__main__":
    sys.exit(main())
