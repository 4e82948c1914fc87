#!/usr/bin/env python3
"""Times kiln.attention's GPU forward against PyTorch's flash attention.

Runs on the GPU machine. For each bench case of
bench/gpu/artifacts/attention_fwd/cases.json (B=4, 16 query heads over 16
or 4 kv heads, S in 1024..8192, D in 64 and 128, causal and not, bf16) it
times the AOT library's `kiln_attn` and
`torch.nn.functional.scaled_dot_product_attention` under
`sdpa_kernel(SDPBackend.FLASH_ATTENTION)` on the same inputs with CUDA
events (the kiln call is synchronous, so the events bracket all of its
work), after one warm-up call, for up to --iters calls or --budget seconds
per case. It prints per case the mean times, TFLOP/s with FlashAttention's
count (4 * B * Hq * S * S * D, halved when causal) and Kiln's TFLOP/s over
torch's, and the largest |kiln - torch| relative to max |torch| of the
output, which is NaN until kiln writes it (a timing of a wrong kernel
does not count: above 2e-2, the bf16 tolerance of check_attention_fwd.py,
or NaN, the row says WRONG and the script exits non-zero). It first prints
the host overhead of one kiln call (kiln_gpu.call_overhead_us), and each
row its share of the kiln time (`ovh`: large at S=1024). A GPU fault fails
its case and restarts the script after it (kiln_gpu.run_cases).
The `_pipelined` and `_unpipelined` cases are the same shapes compiled
with the other choice of convert-kiln-attention-to-gpu's software-pipeline
than the default's (auto: on for head dims in (64, 128]); a last table
gives the default kernel's speed-up over each, measured in the same run
(above 1: auto chose right); the `_min4blocks` cases (D=64) are the
default kernels with the occupancy hint forward-min-blocks-per-sm=4, in
the same table.

Usage: bench_attention_fwd.py [--artifacts DIR] [--iters N] [--budget S]
                              [--filter SUBSTRING] [--quick]

--quick: S <= 2048 only (bench/gpu/run.sh --quick passes it).
"""
import argparse
import ctypes
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kiln_gpu import KilnError, call_overhead_us, carried, failed_cases, \
    is_sticky, relative_error, run_cases, within  # noqa: E402


def time_calls(fn, iters, budget):
    """Mean milliseconds of fn() over up to `iters` calls after a warm-up,
    stopping early once `budget` seconds are spent."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    total, count, deadline = 0.0, 0, time.monotonic() + budget
    while count < iters:
        start.record()
        fn()
        end.record()
        end.synchronize()
        total += start.elapsed_time(end)
        count += 1
        if time.monotonic() > deadline:
            break
    return total / count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--artifacts", default=os.path.join(
        os.environ.get("KILN_GPU_ARTIFACTS",
                       os.path.join(ROOT, "bench", "gpu", "artifacts")),
        "attention_fwd"))
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--filter", default="")
    parser.add_argument("--quick", action="store_true",
                        help="S <= 2048 only")
    args = parser.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with open(os.path.join(args.artifacts, "cases.json")) as f:
        cases = [c for c in json.load(f)["bench"] if args.filter in c["name"]
                 and not (args.quick and c["Sq"] > 2048)]
    # Kept across a restart after a GPU fault (kiln_gpu.run_cases).
    kiln_times = carried.setdefault("kiln_ms", {})
    torch_times = carried.setdefault("torch_ms", {})
    wrong = carried.setdefault("wrong", [])
    if "overhead_us" not in carried:
        carried["overhead_us"] = call_overhead_us()
        overhead = carried["overhead_us"]
        print("# per-call host overhead of a kiln call: " +
              (f"{overhead:.1f} us" if overhead else "unknown") +
              " (libruntime_smoke.so: stream, alloc, memset, copy, launch, "
              "free, sync), part of every kiln time; ovh = its share",
              flush=True)
        print(f"{'case':40s} {'kiln ms':>9s} {'torch ms':>9s} "
              f"{'kiln TF/s':>9s} {'torch TF/s':>10s} {'ratio':>6s} "
              f"{'error':>8s} {'ovh':>5s}", flush=True)
    overhead = carried["overhead_us"]

    def bench(case):
        B, Hq, Hkv, S, D = (case[n] for n in ("B", "Hq", "Hkv", "Sq", "Dk"))
        causal = bool(case.get("causal"))
        gen = torch.Generator(device="cuda").manual_seed(case["input_seed"])
        q = torch.randn(B, Hq, S, D, generator=gen, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, Hkv, S, D, generator=gen, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, Hkv, S, D, generator=gen, device="cuda", dtype=torch.bfloat16)
        # NaN until kiln writes it: an unwritten element cannot pass.
        out = torch.full((B, Hq, S, D), math.nan, device="cuda",
                         dtype=torch.bfloat16)
        flops = 4.0 * B * Hq * S * S * D / (2.0 if causal else 1.0)

        kiln_ms = float("nan")
        lib_path = os.path.join(args.artifacts, case["name"] + ".so")
        if os.path.exists(lib_path):
            lib = ctypes.CDLL(lib_path)
            fn = lib.kiln_attn
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
            fn.restype = ctypes.c_int
            lib.kiln_last_error.restype = ctypes.c_char_p
            ins = (ctypes.c_void_p * 3)(q.data_ptr(), k.data_ptr(), v.data_ptr())
            outs = (ctypes.c_void_p * 1)(out.data_ptr())

            def kiln():
                if fn(ins, outs) != 0:
                    raise KilnError("kiln_attn failed: " + (
                        lib.kiln_last_error() or b"").decode(errors="replace"))
            try:
                kiln_ms = time_calls(kiln, args.iters, args.budget)
            except KilnError as e:
                print(f"{case['name']}: {e}", flush=True)
                if is_sticky(e):
                    raise

        # Grouped K/V: enable_gqa where this torch has it, else repeated K/V
        # (the repeat outside the timed call).
        kt, vt, extra = k, v, {}
        if Hkv != Hq:
            try:
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
                extra = {"enable_gqa": True}
            except (RuntimeError, TypeError):
                kt = k.repeat_interleave(Hq // Hkv, dim=1)
                vt = v.repeat_interleave(Hq // Hkv, dim=1)

        def ref():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(q, kt, vt, is_causal=causal, **extra)
        # A variant's torch time is its baseline's (same shapes).
        torch_ms = torch_times.get(case.get("baseline"))
        if torch_ms is None:
            torch_ms = time_calls(ref, args.iters, args.budget)
        torch_times[case["name"]] = torch_ms
        kiln_tf = flops / (kiln_ms * 1e-3) / 1e12
        torch_tf = flops / (torch_ms * 1e-3) / 1e12
        # Kiln's last output against torch's, relative to max |torch| (NaN,
        # hence WRONG, if kiln failed or left a NaN).
        error = float("nan")
        if kiln_ms == kiln_ms:
            error = relative_error(out, ref())
        verdict = "" if within(error, 2e-2) else " WRONG"
        if verdict:
            wrong.append(case["name"])
        share = f"{overhead * 1e-3 / kiln_ms:5.0%}" if overhead and \
            kiln_ms == kiln_ms else "    -"
        print(f"{case['name']:40s} {kiln_ms:9.3f} {torch_ms:9.3f} {kiln_tf:9.1f} "
              f"{torch_tf:10.1f} {kiln_tf / torch_tf:6.2f} {error:8.1e} "
              f"{share}{verdict}", flush=True)
        kiln_times[case["name"]] = kiln_ms
    run_cases(cases, bench, name=lambda case: case["name"], rerun=False)

    variants = [c for c in cases if c.get("baseline") in kiln_times
                and c["name"] in kiln_times]
    if variants:
        print(f"\n{'software-pipeline (default: auto)':40s} "
              f"{'default ms':>10s} {'other':>5s} {'other ms':>9s} "
              f"{'default speed-up':>16s}", flush=True)
    for case in variants:
        base, other = kiln_times[case["baseline"]], kiln_times[case["name"]]
        print(f"{case['baseline']:40s} {base:10.3f} {case['variant']:>5s} "
              f"{other:9.3f} {other / base:16.2f}", flush=True)
    wrong = wrong + [name for name in failed_cases() if name not in wrong]
    if wrong:
        print(f"WRONG or failed (error above 2e-2, NaN, or a GPU fault): "
              f"{' '.join(wrong)}", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
