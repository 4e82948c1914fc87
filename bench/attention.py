#!/usr/bin/env python3
"""Times Kiln's attention forward against PyTorch, side by side.

For B=1, H=8, D=64 and each sequence length S (512, 1024, 2048 by default),
causal and not, it compiles a one-op module

    func.func @attention(%q, %k, %v : tensor<1x8xSx64xf32>) -> tensor<1x8xSx64xf32>
      kiln.attention %q, %k, %v {causal}

(with --kv-heads Hkv < H, grouped-query attention: K and V are
tensor<1xHkvxSx64xf32>, and PyTorch repeats each kv head H / Hkv times)

ahead of time with kiln-compile (a shared library loaded with ctypes; the
default) or runs it with the JIT (kiln-run --time), and times PyTorch's
attention written out: softmax(Q K^T / sqrt(D) + causal mask) V, the
reference of the float64 checks (the AOT path checks Kiln's output against
it). Both see the same inputs, in one process. For the fused peers
(scaled_dot_product_attention, torch.compile, JAX), each in its own process,
see bench/attention_peers.py. Each time is
the fastest of --repeat runs after one warm-up run; the ratio is Kiln's time
over PyTorch's (below 1: Kiln is faster). The AOT path times Kiln twice,
on the tensors as made and on copies of them (a different placement in
memory, issue #26), and reports the worse, both in parentheses with the
minor page faults per steady-state call (the worse of the two).

With --backward it times a training step's attention instead: Kiln's
kiln.attention then kiln.attention_grad on dO (O, dQ, dK, dV; the adjoint
recomputes P), against PyTorch's forward and autograd backward of the same
math; the AOT path checks all four results against float64 autograd.

Threads: with --threads 1 (the default) both run on one thread. With
--threads N > 1, Kiln is compiled with OpenMP (OMP_NUM_THREADS=N) and
PyTorch uses torch.set_num_threads(N).

Usage: bench/attention.py [--build-dir build] [--seq 512 1024 2048]
                          [--heads H] [--kv-heads Hkv] [--via aot|jit]
                          [--threads N] [--repeat N]
                          [--mcpu native|generic] [--backward]

Needs PyTorch (the venv of scripts/python-env.sh, ~/.cache/kiln/venv/bin/python,
or Debian's python3-torch with /usr/bin/python3) and a built Kiln. If Kiln fails to compile or run a shape, it prints PyTorch's
time and Kiln's error for that row and exits 1.
"""
import argparse
import ctypes
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODULE = """\
func.func @attention(%q: {t}, %k: {kv}, %v: {kv}) -> {t} {{
  %o = kiln.attention %q, %k, %v{attrs} : {t}, {kv}, {kv} -> {t}
  return %o : {t}
}}
"""

BACKWARD_MODULE = """\
func.func @attention(%q: {t}, %k: {kv}, %v: {kv}, %do: {t}) -> ({t}, {t}, {kv}, {kv}) {{
  %o = kiln.attention %q, %k, %v{attrs} : {t}, {kv}, {kv} -> {t}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do{attrs} : {t}, {kv}, {kv}, {t} -> {t}, {kv}, {kv}
  return %o, %dq, %dk, %dv : {t}, {t}, {kv}, {kv}
}}
"""


def module_text(b, h, hkv, s, d, causal, backward=False):
    t = f"tensor<{b}x{h}x{s}x{d}xf32>"
    kv = f"tensor<{b}x{hkv}x{s}x{d}xf32>"
    return (BACKWARD_MODULE if backward else MODULE).format(
        t=t, kv=kv, attrs=" {causal}" if causal else "")


def torch_step(torch, q, k, v, do, causal):
    """O and autograd's dQ, dK, dV of torch_attention for the cotangent dO."""
    q, k, v = (x.detach().requires_grad_() for x in (q, k, v))
    out = torch_attention(torch, q, k, v, causal)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), do)
    return out.detach(), dq, dk, dv


def torch_attention(torch, q, k, v, causal):
    """softmax(scale * Q K^T + mask) V, as kiln.attention defines it; query
    head h reads kv head h / R (K and V repeated R = Hq / Hkv times)."""
    groups = q.shape[1] // k.shape[1]
    if groups > 1:
        k = k.repeat_interleave(groups, dim=1)
        v = v.repeat_interleave(groups, dim=1)
    scale = 1.0 / math.sqrt(q.shape[-1])
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    if causal:
        sq, sk = q.shape[-2], k.shape[-2]
        # bottom-right alignment: query i sees keys j <= i + sk - sq.
        mask = torch.ones(sq, sk, dtype=torch.bool).triu(sk - sq + 1)
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def best_of(repeat, function):
    function()  # warm-up: first-touch pages, thread pools
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


class KilnError(Exception):
    pass


def run_tool(args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        # The first error line says what went wrong (e.g. no CPU lowering).
        lines = [l for l in result.stderr.splitlines() if "error" in l]
        raise KilnError(lines[0] if lines else result.stderr.strip())
    return result.stdout


def kiln_aot(opts, workdir, name, text, inputs, output):
    """Compiles `text` with kiln-compile, returns (compile s, run s)."""
    source = os.path.join(workdir, name + ".mlir")
    library = os.path.join(workdir, "lib" + name + ".so")
    with open(source, "w") as f:
        f.write(text)
    args = [os.path.join(opts.build_dir, "bin", "kiln-compile"), source,
            "-o", library, "--mcpu", opts.mcpu]
    if opts.threads > 1:
        args.append("--openmp")
    start = time.perf_counter()
    run_tool(args)
    compile_seconds = time.perf_counter() - start
    lib = ctypes.CDLL(library)
    function = lib.kiln_attention
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2

    def timed(inputs, output):
        ins = (ctypes.c_void_p * len(inputs))(*[t.data_ptr() for t in inputs])
        outs = (ctypes.c_void_p * len(output))(*[t.data_ptr() for t in output])

        def call():
            if function(ins, outs) != 0:
                raise KilnError("kiln_attention returned non-zero")

        call()  # first touch of the outputs, outside the fault count
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        best = best_of(opts.repeat, call)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        return best, faults / (opts.repeat + 1)

    # Two placements of the same values (issue #26): the tensors as the
    # caller made them, then copies with fresh outputs, which the allocator
    # places elsewhere after the first ones. The worse time is the figure;
    # both are returned. `output` keeps the first placement's results.
    # The page faults per call (the worse placement's) tell what time alone
    # may hide: a call that maps and zero-fills its temporaries afresh
    # (malloc's state, not the placement, decided that before Kiln's host
    # allocator; docs/CPUBackend.md, "Host memory").
    as_made, faults = timed(inputs, output)
    copies, copy_faults = timed([t.clone() for t in inputs],
                                [t.new_empty(t.shape) for t in output])
    return compile_seconds, as_made, copies, max(faults, copy_faults)


def kiln_jit(opts, workdir, name, text):
    """Runs `text` with kiln-run --time; returns (compile s, run s)."""
    source = os.path.join(workdir, name + ".mlir")
    with open(source, "w") as f:
        f.write(text)
    args = [os.path.join(opts.build_dir, "bin", "kiln-run"), source,
            "--entry", "attention", "--random-inputs", "--time",
            "--repeat", str(opts.repeat + 1), "--print-limit", "0"]
    if opts.threads > 1:
        args.append("--openmp")
    out = run_tool(args)
    match = re.search(r"compile: ([0-9.]+) ms, run: ([0-9.]+) ms", out)
    if not match:
        raise KilnError("no timings in kiln-run's output: " + out)
    return float(match.group(1)) / 1e3, float(match.group(2)) / 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--seq", type=int, nargs="+", default=[512, 1024, 2048])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--kv-heads", type=int,
                        help="Hkv, dividing --heads (default: --heads)")
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--via", choices=["aot", "jit"], default="aot")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mcpu", default="native",
                        help="kiln-compile --mcpu (AOT only)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backward", action="store_true",
                        help="time attention and its adjoint (O, dQ, dK, dV)")
    opts = parser.parse_args()
    if opts.threads > 1:
        # libomp reads it when the first library that needs it loads.
        os.environ["OMP_NUM_THREADS"] = str(opts.threads)
    try:
        import torch
    except ImportError:
        sys.exit("bench/attention.py needs PyTorch: run it with "
                 "~/.cache/kiln/venv/bin/python (scripts/python-env.sh)")
    torch.set_num_threads(opts.threads)
    generator = torch.Generator().manual_seed(opts.seed)

    b, h, d = opts.batch, opts.heads, opts.dim
    hkv = opts.kv_heads or h
    if hkv <= 0 or h % hkv:
        sys.exit("--kv-heads must divide --heads")
    what = "forward + backward" if opts.backward else "forward"
    heads = f"H={h}" if hkv == h else f"H={h} Hkv={hkv}"
    print(f"attention {what}, B={b} {heads} D={d} f32, {opts.threads} thread(s), "
          f"Kiln via {opts.via}, best of {opts.repeat}")
    header = (f"{'S':>6} {'causal':>6} {'kiln compile':>13} {'kiln run':>10} "
              f"{'torch run':>10} {'kiln/torch':>10} {'max |err|':>10}")
    print(header)
    print("-" * len(header))
    failures = 0
    with tempfile.TemporaryDirectory(prefix="kiln-bench-") as workdir:
        for s in opts.seq:
            for causal in (False, True):
                shape, kv_shape = (b, h, s, d), (b, hkv, s, d)
                q, k, v, do = (torch.rand(x, generator=generator,
                                          dtype=torch.float32) * 2 - 1
                               for x in (shape, kv_shape, kv_shape, shape))
                if opts.backward:
                    torch_seconds = best_of(
                        opts.repeat,
                        lambda: torch_step(torch, q, k, v, do, causal))
                else:
                    torch_seconds = best_of(
                        opts.repeat,
                        lambda: torch_attention(torch, q, k, v, causal))
                name = f"attention_s{s}_{'causal' if causal else 'full'}"
                text = module_text(b, h, hkv, s, d, causal, opts.backward)
                row = f"{s:>6} {str(causal).lower():>6} "
                try:
                    if opts.via == "aot":
                        shapes = ([shape, shape, kv_shape, kv_shape]
                                  if opts.backward else [shape])
                        outs = [torch.empty(x, dtype=torch.float32)
                                for x in shapes]
                        ins = (q, k, v, do) if opts.backward else (q, k, v)
                        compile_s, as_made, copies, faults = kiln_aot(
                            opts, workdir, name, text, ins, outs)
                        run_s = max(as_made, copies)
                        placement = (f" (as made {as_made * 1e3:.2f}ms, "
                                     f"copies {copies * 1e3:.2f}ms, "
                                     f"{faults:.0f} page faults/call)")
                        if opts.backward:
                            wants = torch_step(torch, q.double(), k.double(),
                                               v.double(), do.double(), causal)
                        else:
                            wants = [torch_attention(torch, q.double(),
                                                     k.double(), v.double(),
                                                     causal)]
                        worst = max((o.double() - w).abs().max().item()
                                    for o, w in zip(outs, wants))
                        err = f"{worst:10.2e}"
                    else:
                        compile_s, run_s = kiln_jit(opts, workdir, name, text)
                        err = f"{'n/a':>10}"
                        placement = ""
                except KilnError as error:
                    failures += 1
                    print(row + f"{'-':>13} {'-':>10} "
                          f"{torch_seconds * 1e3:>8.2f}ms {'-':>10} {'-':>10}")
                    print(f"       kiln: {error}")
                    continue
                print(row + f"{compile_s * 1e3:>11.1f}ms {run_s * 1e3:>8.2f}ms "
                      f"{torch_seconds * 1e3:>8.2f}ms "
                      f"{run_s / torch_seconds:>10.2f} {err}{placement}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
