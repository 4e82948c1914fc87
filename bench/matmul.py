#!/usr/bin/env python3
"""Times kiln's CPU matmul (kiln-run, JIT) against torch.matmul on the same
square shapes and prints the throughput ratio.

  ~/.cache/kiln/venv/bin/python bench/matmul.py [--build build]
      [--sizes 256 512 1024 2048] [--repeats 5] [--dtype f32|f64|f16|bf16]
      [--threads N]

The venv's torch (2.x from PyPI; scripts/python-env.sh makes it) brings its
own BLAS. Debian's torch 1.13 also works (/usr/bin/python3), but needs
`apt-get install libopenblas0-pthread`, else it uses the reference BLAS.

f16 and bf16 inputs are f32 normals rounded to the type; kiln accumulates in
f32 and rounds the result once. For f16 the torch column is torch.matmul on
the same (exactly representable) values in f32 when torch has no f16 CPU
matmul (1.13).

Each kiln figure is the best of `--repeats` runs of `kiln-run --time
--repeat 2` (the faster of two calls, without compilation); each torch figure the best of as many
torch.matmul calls, with torch's default thread count and with one thread.
kiln runs on one thread, or with `--threads N` (N > 1) under `kiln-run
--openmp` with OMP_NUM_THREADS=N on the first N cores (its column tiles in
parallel, docs/CPUBackend.md "Threads"). The one-thread torch figure comes from a
child process pinned to one core with every BLAS thread pool capped before
torch loads (OMP/OpenBLAS/MKL_NUM_THREADS): torch.set_num_threads(1) alone
does not reach OpenBLAS, whose pool kept running on every core. kiln-run is
pinned to the same core. The kiln result of every size is checked against
torch's in float64.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kiln_time(kiln_run, n, dtype, repeats, tmp, threads=1):
    ty = f"tensor<{n}x{n}x{dtype}>"
    src = os.path.join(tmp, f"mm{n}.mlir")
    with open(src, "w") as f:
        f.write(f"func.func @mm(%a: {ty}, %b: {ty}) -> {ty} {{\n"
                f"  %0 = kiln.matmul %a, %b : ({ty}, {ty}) -> {ty}\n"
                f"  return %0 : {ty}\n}}\n")
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n))
    b = rng.standard_normal((n, n))
    if dtype == "bf16":
        # Rounded to bf16 by torch; kiln reads bf16 as .npy descr V2.
        a, b = (torch.from_numpy(x).to(torch.bfloat16) for x in (a, b))
        for name, x in (("a", a), ("b", b)):
            np.save(os.path.join(tmp, f"{name}.npy"),
                    x.view(torch.int16).numpy().view("V2"))
    else:
        npdt = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[dtype]
        a, b = a.astype(npdt), b.astype(npdt)
        np.save(os.path.join(tmp, "a.npy"), a)
        np.save(os.path.join(tmp, "b.npy"), b)
    best = float("inf")
    # The faster of two calls: the first touches the output's pages (and
    # starts libomp's threads).
    cmd = [kiln_run, src, "--entry", "mm", "--input", os.path.join(tmp, "a.npy"),
           "--input", os.path.join(tmp, "b.npy"), "--time", "--repeat", "2",
           "--output-dir", tmp]
    env = dict(os.environ)
    if threads > 1:
        cmd.append("--openmp")
        env["OMP_NUM_THREADS"] = str(threads)
    for i in range(repeats):
        out = subprocess.run(
            cmd, check=True, capture_output=True, text=True, env=env,
            preexec_fn=lambda: pin_to_cores(threads))
        run_ms = float(re.search(r"run: ([0-9.]+) ms", out.stdout + out.stderr).group(1))
        best = min(best, run_ms / 1e3)
    got = np.load(os.path.join(tmp, "result0.npy"))
    if dtype == "bf16":
        got = (got.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        a, b = a.float().numpy(), b.float().numpy()
    got = got.astype(np.float64)
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs(got - want).max() / np.abs(want).max()
    return best, a, b, err


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
    np.save(os.path.join(tmp, "ta.npy"), a)
    np.save(os.path.join(tmp, "tb.npy"), b)
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
    p.add_argument("--repeat", "--repeats", dest="repeats", type=int, default=5)
    p.add_argument("--dtype", default="f32", choices=["f32", "f64", "f16", "bf16"])
    p.add_argument("--threads", type=int, default=1,
                   help="kiln's threads (above 1: kiln-run --openmp)")
    p.add_argument("--torch-worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.torch_worker:
        a = np.load(os.path.join(args.torch_worker, "ta.npy"))
        b = np.load(os.path.join(args.torch_worker, "tb.npy"))
        print(torch_time(a, b, args.dtype, args.repeats, 1))
        return
    kiln_run = os.path.join(args.build, "bin", "kiln-run")
    default_threads = torch.get_num_threads()
    print(f"torch {torch.__version__}, default threads {default_threads}, "
          f"{os.cpu_count()} CPUs; {args.dtype}; best of {args.repeats}; "
          f"kiln on {args.threads} thread(s)")
    print(f"{'n':>5} {'kiln ms':>9} {'GFLOP/s':>8} {'torch ms':>9} {'GFLOP/s':>8} "
          f"{'ratio':>6} {'torch1 ms':>9} {'ratio1':>6} {'rel err':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            k, a, b, err = kiln_time(kiln_run, n, args.dtype, args.repeats, tmp,
                                     args.threads)
            t = torch_time(a, b, args.dtype, args.repeats, default_threads)
            t1 = torch_time_one_thread(a, b, args.dtype, args.repeats, tmp)
            flop = 2.0 * n ** 3
            print(f"{n:>5} {k * 1e3:>9.2f} {flop / k / 1e9:>8.1f} {t * 1e3:>9.2f} "
                  f"{flop / t / 1e9:>8.1f} {t / k:>6.2f} {t1 * 1e3:>9.2f} {t1 / k:>6.2f} "
                  f"{err:>8.1e}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
