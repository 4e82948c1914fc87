#!/usr/bin/env python3
"""Kiln's attention against today's peers, each in its own process.

For every case (B=1, H=8 over Hkv kv heads, S, D=64, f32, causal or not,
forward or forward + backward, 1 or 2 threads) it times, in separate
processes and alternating between them round by round:

  kiln           the op compiled ahead of time by kiln-compile (--mcpu native,
                 --openmp for 2 threads), called through ctypes
  torch-sdpa     torch.nn.functional.scaled_dot_product_attention (PyTorch's
                 fused flash kernel for CPU), autograd for the backward
  torch-compile  the same call under torch.compile (Inductor)
  jax            jax.nn.dot_product_attention under jax.jit (XLA CPU), jax.vjp
                 for the backward; left out when JAX is not installed

Each process pins itself to the first N cores (os.sched_setaffinity), caps
every thread pool it knows (OMP/MKL/OpenBLAS, torch.set_num_threads, XLA's
Eigen pool), makes its inputs from one seed, warms up, and reports the median
of --iters calls. The figure of a peer is the median over --rounds such
processes; the table gives Kiln's time over each peer's (below 1: Kiln is
faster) and GFLOP/s against the FMA rate this run measures with a large
torch matmul on as many cores (the "sgemm" column: what the machine's best
BLAS gets, an honest stand-in for the FMA limit). FLOPs count 4 B H Sq Sk D
for the forward (halved when causal) and 2.5 times that for the backward
(FlashAttention's convention: it recomputes P).

With --docs N each sequence is N packed documents of S / N tokens
(self-attention within each, causal inside a document when causal): Kiln's
`cu_seqlens`, and for the peers the same attention run on each document
slice in turn and concatenated (how packed batches run on a CPU without
varlen kernels; torch's varlen_attn is CUDA only). FLOPs then count the
documents' entries only.

Usage: bench/attention_peers.py [--build-dir build] [--seq 1024 2048]
           [--kv-heads 8] [--threads 1 2] [--modes fwd fwdbwd] [--docs 1]
           [--rounds 3] [--iters 5] [--peers kiln torch-sdpa ...]

Needs a built Kiln and a Python with torch 2.x (scripts/python-env.sh makes
one: ~/.cache/kiln/venv); JAX from PyPI (`pip install jax`) for its column.
Sq = Sk, so PyTorch's top-left `is_causal` is Kiln's bottom-right band.
"""
import argparse
import ctypes
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention import MODULE  # noqa: E402  (the forward module, one text)
ALL_PEERS = ["kiln", "torch-sdpa", "torch-compile", "jax"]

# The training step's attention: the forward's O and LSE go to the adjoint
# (bench/attention.py's backward module recomputes them instead).
BACKWARD_MODULE = """\
func.func @attention(%q: {t}, %k: {kv}, %v: {kv}, %do: {t}) -> ({t}, {t}, {kv}, {kv}) {{
  %o, %lse = kiln.attention %q, %k, %v{groups}{attrs} : {t}, {kv}, {kv} -> {t}, {l}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do{groups} out(%o : {t}) lse(%lse : {l}){attrs} : {t}, {kv}, {kv}, {t} -> {t}, {kv}, {kv}
  return %o, %dq, %dk, %dv : {t}, {t}, {kv}, {kv}
}}
"""


def case_name(c):
    docs = f"_docs{c['docs']}" if c.get("docs", 1) > 1 else ""
    return (f"S{c['s']}{docs}_H{c['h']}_Hkv{c['hkv']}_"
            f"{'causal' if c['causal'] else 'full'}_{c['mode']}_t{c['threads']}")


def doc_spans(c):
    """The [begin, end) of each packed document (one span without --docs)."""
    docs = c.get("docs", 1)
    bounds = [c["s"] * n // docs for n in range(docs + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def flops(c):
    forward = sum(4.0 * c["b"] * c["h"] * (e - b) ** 2 * c["d"]
                  for b, e in doc_spans(c))
    if c["causal"]:
        forward /= 2
    return forward * (3.5 if c["mode"] == "fwdbwd" else 1.0)


# ---------------------------------------------------------------------------
# Workers: one process per (peer, case, round)
# ---------------------------------------------------------------------------

def limit_threads(threads):
    os.sched_setaffinity(0, set(range(threads)))
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ["XLA_FLAGS"] = (
        "--xla_cpu_multi_thread_eigen=" + ("true" if threads > 1 else "false")
        + f" intra_op_parallelism_threads={threads}")


def median_time(call, iters):
    call()
    call()  # warm-up: first touch, thread pools, compilation
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def torch_inputs(torch, c):
    g = torch.Generator().manual_seed(0)
    shape = (c["b"], c["h"], c["s"], c["d"])
    kv = (c["b"], c["hkv"], c["s"], c["d"])
    return [torch.rand(x, generator=g, dtype=torch.float32) * 2 - 1
            for x in (shape, kv, kv, shape)]


def worker_torch(c, iters, compiled):
    import torch
    torch.set_num_threads(c["threads"])
    q, k, v, do = torch_inputs(torch, c)
    gqa = c["hkv"] != c["h"]

    def sdpa_one(q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=c["causal"], enable_gqa=gqa)

    spans = doc_spans(c)

    def sdpa(q, k, v):
        if len(spans) == 1:
            return sdpa_one(q, k, v)
        return torch.cat([sdpa_one(q[:, :, b:e], k[:, :, b:e], v[:, :, b:e])
                          for b, e in spans], dim=2)

    fn = torch.compile(sdpa) if compiled else sdpa
    if c["mode"] == "fwd":
        def call():
            with torch.no_grad():
                fn(q, k, v)
    else:
        leaves = [x.detach().requires_grad_() for x in (q, k, v)]

        def call():
            out = fn(*leaves)
            torch.autograd.grad(out, leaves, do)
    return median_time(call, iters)


def worker_jax(c, iters):
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = np.random.default_rng(0)
    # JAX's layout is [B, S, H, D].
    shape = (c["b"], c["s"], c["h"], c["d"])
    kv = (c["b"], c["s"], c["hkv"], c["d"])
    q, k, v, do = (jnp.asarray(rng.random(x, dtype=np.float32) * 2 - 1)
                   for x in (shape, kv, kv, shape))

    def attention_one(q, k, v):
        return jax.nn.dot_product_attention(q, k, v, is_causal=c["causal"],
                                            implementation="xla")

    spans = doc_spans(c)

    def attention(q, k, v):
        if len(spans) == 1:
            return attention_one(q, k, v)
        return jnp.concatenate(
            [attention_one(q[:, b:e], k[:, b:e], v[:, b:e]) for b, e in spans],
            axis=1)

    if c["mode"] == "fwd":
        fn = jax.jit(attention)

        def call():
            fn(q, k, v).block_until_ready()
    else:
        def step(q, k, v, do):
            out, vjp = jax.vjp(attention, q, k, v)
            return (out,) + vjp(do)
        fn = jax.jit(step)

        def call():
            jax.block_until_ready(fn(q, k, v, do))
    return median_time(call, iters)


def worker_kiln(c, iters, library):
    import torch
    q, k, v, do = torch_inputs(torch, c)
    lib = ctypes.CDLL(library)
    function = lib.kiln_attention
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
    if c["mode"] == "fwd":
        inputs, outputs = [q, k, v], [torch.empty_like(q)]
    else:
        inputs = [q, k, v, do]
        outputs = [torch.empty_like(q), torch.empty_like(q),
                   torch.empty_like(k), torch.empty_like(v)]
    ins = (ctypes.c_void_p * len(inputs))(*[t.data_ptr() for t in inputs])
    outs = (ctypes.c_void_p * len(outputs))(*[t.data_ptr() for t in outputs])

    def call():
        if function(ins, outs) != 0:
            raise RuntimeError("kiln_attention returned non-zero")
    return median_time(call, iters)


def worker_sgemm(threads, iters):
    import torch
    torch.set_num_threads(threads)
    n = 2048
    a, b = torch.rand(n, n), torch.rand(n, n)
    seconds = median_time(lambda: torch.mm(a, b), iters)
    return 2.0 * n ** 3 / seconds


def run_worker(args):
    c = json.loads(args.case)
    limit_threads(c["threads"])
    if args.worker == "sgemm":
        value = worker_sgemm(c["threads"], args.iters)
    elif args.worker == "kiln":
        value = worker_kiln(c, args.iters, args.library)
    elif args.worker in ("torch-sdpa", "torch-compile"):
        value = worker_torch(c, args.iters, args.worker == "torch-compile")
    elif args.worker == "jax":
        value = worker_jax(c, args.iters)
    else:
        raise SystemExit(f"unknown worker {args.worker}")
    print(json.dumps({"value": value}))


# ---------------------------------------------------------------------------
# The parent: compile, alternate, report
# ---------------------------------------------------------------------------

def spawn(worker, case, iters, library=None):
    """Runs one worker process; returns its figure, or None with the error."""
    argv = [sys.executable, os.path.abspath(__file__), "--worker", worker,
            "--case", json.dumps(case), "--iters", str(iters)]
    if library:
        argv += ["--library", library]
    env = dict(os.environ)
    if case["threads"] > 1:
        env["OMP_NUM_THREADS"] = str(case["threads"])
    result = subprocess.run(argv, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit {result.returncode}"
    return json.loads(result.stdout.strip().splitlines()[-1])["value"], None


def compile_kiln(opts, workdir, c):
    t = f"tensor<{c['b']}x{c['h']}x{c['s']}x{c['d']}xf32>"
    kv = f"tensor<{c['b']}x{c['hkv']}x{c['s']}x{c['d']}xf32>"
    lse = f"tensor<{c['b']}x{c['h']}x{c['s']}xf32>"
    attrs = " {causal}" if c["causal"] else ""
    groups = ""
    spans = doc_spans(c)
    if len(spans) > 1:
        offsets = [b for b, _ in spans] + [spans[-1][1]]
        cu = f"tensor<{len(offsets)}xi32>"
        groups = f" cu_seqlens(%cu, %cu : {cu}, {cu})"
    if c["mode"] == "fwdbwd":
        text = BACKWARD_MODULE.format(t=t, kv=kv, l=lse, groups=groups,
                                      attrs=attrs)
    else:
        text = MODULE.format(t=t, kv=kv, attrs=groups + attrs)
    if len(spans) > 1:
        first, rest = text.split("\n", 1)
        text = (f"{first}\n  %cu = kiln.constant dense<{offsets}> : {cu}\n"
                + rest)
    name = case_name(c)
    source = os.path.join(workdir, name + ".mlir")
    library = os.path.join(workdir, f"lib{name}.so")
    with open(source, "w") as f:
        f.write(text)
    argv = [os.path.join(opts.build_dir, "bin", "kiln-compile"), source,
            "-o", library, "--mcpu", "native"]
    if c["threads"] > 1:
        argv.append("--openmp")
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"kiln-compile failed on {name}:\n{result.stderr}")
    return library


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--seq", type=int, nargs="+", default=[1024, 2048])
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--kv-heads", type=int, nargs="+", default=[8])
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--causal", choices=["yes", "no", "both"],
                        default="both")
    parser.add_argument("--modes", nargs="+", choices=["fwd", "fwdbwd"],
                        default=["fwd", "fwdbwd"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--docs", type=int, default=1,
                        help="pack each sequence as this many documents")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--peers", nargs="+", choices=ALL_PEERS,
                        default=ALL_PEERS)
    parser.add_argument("--json", help="also write the figures here")
    # Worker mode (internal).
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--library", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.worker:
        return run_worker(opts)

    peers = list(opts.peers)
    if "jax" in peers:
        try:
            import jax  # noqa: F401
        except ImportError:
            print("note: JAX is not installed (pip install jax): no jax column")
            peers.remove("jax")
    causals = {"yes": [True], "no": [False], "both": [False, True]}[opts.causal]
    cases = [dict(b=1, h=opts.heads, hkv=hkv, s=s, d=opts.dim, causal=causal,
                  mode=mode, threads=threads, docs=opts.docs)
             for threads in opts.threads for mode in opts.modes
             for hkv in opts.kv_heads for s in opts.seq for causal in causals]
    figures = {}
    with tempfile.TemporaryDirectory(prefix="kiln-peers-") as workdir:
        libraries = {}
        if "kiln" in peers:
            for c in cases:
                libraries[case_name(c)] = compile_kiln(opts, workdir, c)
        sgemm = {}
        for threads in sorted(set(opts.threads)):
            rates = [spawn("sgemm", dict(threads=threads), opts.iters)[0]
                     for _ in range(opts.rounds)]
            sgemm[threads] = statistics.median(r for r in rates if r)
        for c in cases:
            name = case_name(c)
            times = {p: [] for p in peers}
            errors = {}
            # Alternate: every round runs each peer once, in a rotated order.
            for r in range(opts.rounds):
                order = peers[r % len(peers):] + peers[:r % len(peers)]
                for peer in order:
                    value, error = spawn(peer, c, opts.iters,
                                         libraries.get(name))
                    if value is None:
                        errors[peer] = error
                    else:
                        times[peer].append(value)
            figures[name] = {
                "case": c,
                "median_s": {p: statistics.median(t) for p, t in times.items()
                             if t},
                "errors": errors}

    header = (f"{'case':<36}" + "".join(f"{p:>15}" for p in peers)
              + "".join(f"{'kiln/' + p:>20}" for p in peers if p != "kiln")
              + f"{'kiln GFLOP/s':>14}{'% sgemm':>9}")
    print(f"attention f32, B=1 D={opts.dim}; medians of {opts.rounds} processes "
          f"x median of {opts.iters} calls; sgemm 2048^3 (torch.mm): "
          + ", ".join(f"{t} thread(s) {g / 1e9:.0f} GFLOP/s"
                      for t, g in sgemm.items()))
    print(header)
    print("-" * len(header))
    for name, f in figures.items():
        c, med = f["case"], f["median_s"]
        row = f"{name:<36}"
        row += "".join(f"{med[p] * 1e3:>13.2f}ms" if p in med else f"{'-':>15}"
                       for p in peers)
        for p in peers:
            if p == "kiln":
                continue
            if "kiln" in med and p in med:
                row += f"{med['kiln'] / med[p]:>20.2f}"
            else:
                row += f"{'-':>20}"
        if "kiln" in med:
            rate = flops(c) / med["kiln"]
            row += f"{rate / 1e9:>14.1f}{100 * rate / sgemm[c['threads']]:>8.0f}%"
        print(row)
        for p, e in f["errors"].items():
            print(f"    {p}: {e}")
    if opts.json:
        with open(opts.json, "w") as out:
            json.dump({"sgemm_flops": sgemm, "cases": figures}, out, indent=1)
    return 1 if any(f["errors"] for f in figures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
