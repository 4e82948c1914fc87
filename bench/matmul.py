#!/usr/bin/env python3
"""Times kiln's CPU matmul (kiln-run, JIT) against torch.matmul on the same
square shapes and prints the throughput ratio.

  ~/.cache/kiln/venv/bin/python bench/matmul.py [--build build]
      [--sizes 256 512 1024 2048] [--repeats 3] [--dtype f32|f64|f16|bf16]
      [--threads N] [--rounds R] [--amx on|off|both]

The venv's torch (2.x from PyPI; scripts/python-env.sh makes it) brings its
own BLAS. Debian's torch 1.13 also works (/usr/bin/python3), but needs
`apt-get install libopenblas0-pthread`, else it uses the reference BLAS.

f16 and bf16 inputs are f32 normals rounded to the type; kiln accumulates in
f32 and rounds the result once. For f16 the torch column is torch.matmul on
the same (exactly representable) values in f32 when torch has no f16 CPU
matmul (1.13).

Kiln, torch with its default threads and torch on one thread run in turns,
`--rounds` times per size, each round in processes of its own (kiln-run,
and a child for one-thread torch); a figure is the median over the rounds
of each process's faster of two calls (kiln-run --time --repeat 2: the
first touches the output's pages and starts libomp's threads); the ratio
columns are Kiln time / torch time (below 1: Kiln is faster), against
torch on one thread ("/t1") and on its default threads ("/t"). kiln runs on one thread, or with
`--threads N` (N > 1) under `kiln-run --openmp` with OMP_NUM_THREADS=N on
the first N cores (its column tiles in parallel, docs/CPUBackend.md
"Threads"). The one-thread torch figure comes from a child process pinned
to one core with every BLAS thread pool capped before torch loads
(OMP/OpenBLAS/MKL_NUM_THREADS): torch.set_num_threads(1) alone does not
reach OpenBLAS, whose pool kept running on every core. kiln-run is pinned to
the same core. The kiln result of every size is checked against torch's in
float64.

bf16 on a CPU with AMX-BF16: `--amx both` (the default there) times Kiln's
AMX kernels and its vector kernels (kiln-run --amx=false) side by side, and
the "% AMX" column is Kiln's rate against one core's tdpbf16ps limit,
measured by bench/amx_peak.c in the same run (times the thread count).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kiln_inputs(n, dtype, tmp):
    """Writes a.npy/b.npy for an n x n matmul; returns them as arrays."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n))
    b = rng.standard_normal((n, n))
    if dtype == "bf16":
        # Rounded to bf16 by torch; kiln reads bf16 as .npy descr V2.
        a, b = (torch.from_numpy(x).to(torch.bfloat16) for x in (a, b))
        for name, x in (("a", a), ("b", b)):
            np.save(os.path.join(tmp, f"{name}.npy"),
                    x.view(torch.int16).numpy().view("V2"))
        a, b = a.float().numpy(), b.float().numpy()
    else:
        npdt = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[dtype]
        a, b = a.astype(npdt), b.astype(npdt)
        np.save(os.path.join(tmp, "a.npy"), a)
        np.save(os.path.join(tmp, "b.npy"), b)
    src = os.path.join(tmp, f"mm{n}.mlir")
    ty = f"tensor<{n}x{n}x{dtype}>"
    with open(src, "w") as f:
        f.write(f"func.func @mm(%a: {ty}, %b: {ty}) -> {ty} {{\n"
                f"  %0 = kiln.matmul %a, %b : ({ty}, {ty}) -> {ty}\n"
                f"  return %0 : {ty}\n}}\n")
    return src, a, b


def kiln_time(kiln_run, src, tmp, threads=1, amx=True):
    """One kiln-run process: the faster of two calls, in seconds."""
    out_dir = os.path.join(tmp, "amx" if amx else "vector")
    cmd = [kiln_run, src, "--entry", "mm", "--input", os.path.join(tmp, "a.npy"),
           "--input", os.path.join(tmp, "b.npy"), "--time", "--repeat", "2",
           f"--amx={'true' if amx else 'false'}", "--output-dir", out_dir]
    env = dict(os.environ)
    if threads > 1:
        cmd.append("--openmp")
        env["OMP_NUM_THREADS"] = str(threads)
    out = subprocess.run(
        cmd, check=True, capture_output=True, text=True, env=env,
        preexec_fn=lambda: pin_to_cores(threads))
    run_ms = float(re.search(r"run: ([0-9.]+) ms", out.stdout + out.stderr).group(1))
    return run_ms / 1e3


def kiln_error(tmp, amx, dtype, a, b):
    """Kiln's last result against float64, relative to its largest entry."""
    got = np.load(os.path.join(tmp, "amx" if amx else "vector", "result0.npy"))
    if dtype == "bf16":
        got = (got.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    got = got.astype(np.float64)
    want = a.astype(np.float64) @ b.astype(np.float64)
    return np.abs(got - want).max() / np.abs(want).max()


def host_has_amx():
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f
                          if l.startswith("flags")), [])
    except OSError:
        return False
    return "amx_bf16" in flags and "amx_tile" in flags


def amx_peak(tmp):
    """One core's tdpbf16ps rate (bench/amx_peak.c), FLOP/s; None if it
    cannot be built or run."""
    exe = os.path.join(tmp, "amx_peak")
    try:
        subprocess.run(["cc", "-O2", "-mamx-tile", "-mamx-bf16",
                        os.path.join(ROOT, "bench", "amx_peak.c"), "-o", exe],
                       check=True, capture_output=True)
        out = subprocess.run([exe], check=True, capture_output=True, text=True,
                             preexec_fn=pin_to_one_core)
    except (OSError, subprocess.CalledProcessError):
        return None
    return float(out.stdout.strip()) * 1e9


def one_thread_env():
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def pin_to_one_core():
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def pin_to_cores(count):
    os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:count]))


def torch_time_one_thread(a, b, dtype, repeats, tmp):
    """torch_time(..., 1) in a child pinned to one core, its pools capped."""
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--torch-worker", tmp,
         "--dtype", dtype, "--repeats", str(repeats)],
        check=True, capture_output=True, text=True, env=one_thread_env(),
        preexec_fn=pin_to_one_core)
    return float(out.stdout.strip().splitlines()[-1])


def torch_time(a, b, dtype, repeats, threads):
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    if dtype == "bf16":
        ta, tb = ta.to(torch.bfloat16), tb.to(torch.bfloat16)
    elif dtype == "f16" and torch.__version__.startswith("1."):
        ta, tb = ta.float(), tb.float()
    torch.matmul(ta, tb)
    best = float("inf")
    for _ in range(max(repeats, 3)):
        t = time.perf_counter()
        torch.matmul(ta, tb)
        best = min(best, time.perf_counter() - t)
    torch.set_num_threads(old)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", "--build", dest="build",
                   default=os.path.join(ROOT, "build"))
    p.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048])
    p.add_argument("--rounds", type=int, default=5,
                   help="turns of kiln / torch / torch on one thread per size")
    p.add_argument("--repeat", "--repeats", dest="repeats", type=int, default=3,
                   help="torch calls per process (the fastest counts)")
    p.add_argument("--dtype", default="f32", choices=["f32", "f64", "f16", "bf16"])
    p.add_argument("--threads", type=int, default=1,
                   help="kiln's threads (above 1: kiln-run --openmp)")
    p.add_argument("--amx", choices=["on", "off", "both"],
                   help="bf16: Kiln's AMX kernels, its vector kernels or both "
                        "(default: both where the CPU has AMX-BF16, else off)")
    p.add_argument("--torch-worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.torch_worker:
        a = np.load(os.path.join(args.torch_worker, "ta.npy"))
        b = np.load(os.path.join(args.torch_worker, "tb.npy"))
        print(torch_time(a, b, args.dtype, args.repeats, 1))
        return
    kiln_run = os.path.join(args.build, "bin", "kiln-run")
    amx = args.amx or ("both" if host_has_amx() and args.dtype == "bf16" else "off")
    variants = {"on": [True], "off": [False], "both": [True, False]}[amx]
    default_threads = torch.get_num_threads()
    with tempfile.TemporaryDirectory() as tmp:
        peak = amx_peak(tmp) if True in variants else None
        print(f"torch {torch.__version__}, default threads {default_threads}, "
              f"{os.cpu_count()} CPUs; {args.dtype}; medians of {args.rounds} "
              f"rounds; kiln on {args.threads} thread(s)"
              + (f"; AMX limit {peak / 1e9:.0f} GFLOP/s per core "
                 "(bench/amx_peak.c)" if peak else ""))
        names = {True: "amx", False: "vector"}
        header = f"{'n':>5}"
        for v in variants:
            header += f" {names[v] + ' ms':>10} {'GFLOP/s':>8}"
            if v and peak:
                header += f" {'% AMX':>6}"
        header += (f" {'torch ms':>9} {'torch1 ms':>9}"
                   + "".join(f" {names[v] + '/t1':>9} {names[v] + '/t':>9}"
                             for v in variants)
                   + "".join(f" {'err ' + names[v]:>10}" for v in variants))
        if variants == [False]:
            header = header.replace("vector", "kiln")
        print(header)
        for n in args.sizes:
            src, a, b = kiln_inputs(n, args.dtype, tmp)
            np.save(os.path.join(tmp, "ta.npy"), a)
            np.save(os.path.join(tmp, "tb.npy"), b)
            times = {v: [] for v in variants}
            torch_times, torch1_times = [], []
            for _ in range(args.rounds):
                for v in variants:
                    times[v].append(kiln_time(kiln_run, src, tmp, args.threads, v))
                torch_times.append(torch_time(a, b, args.dtype, args.repeats,
                                              default_threads))
                torch1_times.append(torch_time_one_thread(a, b, args.dtype,
                                                          args.repeats, tmp))
            flop = 2.0 * n ** 3
            k = {v: statistics.median(times[v]) for v in variants}
            t = statistics.median(torch_times)
            t1 = statistics.median(torch1_times)
            row = f"{n:>5}"
            for v in variants:
                row += f" {k[v] * 1e3:>10.2f} {flop / k[v] / 1e9:>8.1f}"
                if v and peak:
                    row += f" {100 * flop / k[v] / (peak * args.threads):>5.0f}%"
            row += f" {t * 1e3:>9.2f} {t1 * 1e3:>9.2f}"
            row += "".join(f" {k[v] / t1:>9.2f} {k[v] / t:>9.2f}" for v in variants)
            row += "".join(f" {kiln_error(tmp, v, args.dtype, a, b):>10.1e}"
                           for v in variants)
            print(row)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
