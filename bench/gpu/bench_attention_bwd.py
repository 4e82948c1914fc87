#!/usr/bin/env python3
"""Times kiln's attention backward (and forward + backward) on the GPU
against torch SDPA's flash backend.

    python3 bench/gpu/bench_attention_bwd.py [--artifacts DIR] [--budget S]
                                             [--quick] [--unpaired]
                                             [NAME_FILTER]

The configurations are attention_bwd_cases.bench_configs(): bf16, B=4,
H=16 (and 16 query heads over 4 kv heads), S in 1024..8192, D in {64, 128},
causal and not, in order of increasing cost; once --budget seconds (default
80) are spent (or would be, at the previous configuration's pace), the
rest are printed as SKIP. --quick: S <= 2048 only.

FLOP counts are FlashAttention's: the forward F = 4 * B * Hq * S^2 * D
(two matmuls), halved when causal; the backward 2.5 F (five matmuls, the
recomputation of P counted once); forward + backward 3.5 F. TFLOP/s are
these counts over the measured times. kiln's row is what kiln-autodiff
generates for a training step: `fwd_<config>` of bench_paired.so (the
forward with its lse result) and `bwd_<config>` of bench_paired.so (the
backward from that O and LSE: the D-only preprocess, then the main kernel);
its forward + backward is the sum of the two (the backward is timed on the
O and LSE the forward wrote, so that no row looks empty). --unpaired adds a
second row per configuration, `<config>(unpaired)`, with bench_fwd.so's
forward without lse and bench_bwd.so's backward that recomputes its row
statistics (and repeats torch's timing): off by default, because it
roughly doubles the time per configuration, so that the --budget covers
fewer of them. torch's is one `scaled_dot_product_attention` forward and
`backward` under `sdpa_kernel(SDPBackend.FLASH_ATTENTION)`, which clears
the inputs' .grad first (else it also times the accumulation into the
previous gradients). ratio = torch time / kiln time (above 1: kiln is
faster). The host overhead of one kiln call (kiln_gpu.call_overhead_us) is
printed first, and each row's ovh_fwdbwd is its share (twice: two calls)
of kiln's forward + backward time. error: the largest of kiln's
dQ, dK and dV errors against one flash-backend backward on the same
inputs, each relative to that gradient's max |torch|, NaN if any of them
is (kiln's outputs are NaN until written, again before the unpaired row);
above 4 * 2^-7 (check_attention_bwd.py's bf16 tolerance), or NaN, the row
says WRONG and the script exits non-zero (a timing of a wrong kernel does
not count). A GPU fault fails its configuration and restarts the script
after it (kiln_gpu.run_cases; the --budget counts from the first start).
At D=64, when bench_paired_occupancy.so was prepared, a row
`<config>(occupancy)` times the same pair compiled with the occupancy hints
of attention_bwd_cases.OCCUPANCY_PIPELINE_OPTIONS (forward at least 4
blocks per SM, backward main kernel 3), in the same run as the default.
"""
import argparse
import ctypes
import math
import pathlib
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import attention_bwd_cases  # noqa: E402
from kiln_gpu import call_overhead_us, carried, failed_cases, is_sticky, \
    nan_max, poison, relative_error, run_cases, within  # noqa: E402


def measure(fn, target=0.3, max_reps=20):
    """Mean seconds of one synchronous call of `fn`, after one warm-up."""
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    once = time.perf_counter() - start
    if once >= target:
        return once
    reps = max(1, min(max_reps, int(target / max(once, 1e-6))))
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / reps


def kiln_call(path, symbol, inputs, outputs):
    lib = ctypes.CDLL(str(path))
    fn = getattr(lib, symbol)
    ins = (ctypes.c_void_p * len(inputs))(*[x.data_ptr() for x in inputs])
    outs = (ctypes.c_void_p * len(outputs))(*[x.data_ptr() for x in outputs])

    def call():
        if fn(ins, outs) != 0:
            lib.kiln_last_error.restype = ctypes.c_char_p
            raise RuntimeError(f"{symbol}: " + (
                lib.kiln_last_error() or b"").decode(errors="replace"))
    return call


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifacts", type=pathlib.Path,
                        default=HERE / "artifacts" / "attention_bwd")
    parser.add_argument("--budget", type=float, default=80.0)
    parser.add_argument("--quick", action="store_true",
                        help="S <= 2048 only")
    parser.add_argument("--unpaired", action="store_true",
                        help="also time the backward without the forward's "
                        "O and LSE (a second row)")
    parser.add_argument("filter", nargs="?", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    # Kept across a restart after a GPU fault (kiln_gpu.run_cases): the
    # budget counts from the first start.
    began = carried.setdefault("began", time.time())
    wrong = carried.setdefault("wrong", [])
    if "overhead_us" not in carried:
        carried["overhead_us"] = call_overhead_us()
        overhead = carried["overhead_us"]
        print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; "
              "ms and TFLOP/s (FLOPs: fwd 4BHS^2D, bwd 2.5x, fwd+bwd 3.5x, "
              "halved when causal)")
        print("# per-call host overhead of a kiln call: " +
              (f"{overhead:.1f} us" if overhead else "unknown") +
              " (libruntime_smoke.so: stream, alloc, memset, copy, launch, "
              "free, sync), part of every kiln time (a forward + backward "
              "pays it twice); ovh_fwdbwd = its share of kiln_fwdbwd_ms")
        print("# config kiln_bwd_ms kiln_bwd_TFLOPs kiln_fwdbwd_ms "
              "kiln_fwdbwd_TFLOPs torch_bwd_ms torch_fwdbwd_ms "
              "torch_fwdbwd_TFLOPs ratio_bwd ratio_fwdbwd error ovh_fwdbwd",
              flush=True)
    overhead = carried["overhead_us"]
    configs = [cfg for cfg in attention_bwd_cases.bench_configs()
               if args.filter in cfg["name"]
               and not (args.quick and cfg["Sq"] > 2048)]

    def bench(cfg):
        name = cfg["name"]
        B, Hq, Hkv, S, D = cfg["B"], cfg["Hq"], cfg["Hkv"], cfg["Sq"], cfg["Dk"]
        flops = 4.0 * B * Hq * S * S * D * (0.5 if cfg["causal"] else 1.0)
        elapsed = time.time() - began
        # Skipped when it would not finish within the budget at the
        # previous configuration's pace.
        if elapsed + carried.get("seconds_per_flop", 0.0) * flops > \
                args.budget:
            print(f"SKIP {name} (budget)", flush=True)
            return
        config_began = time.perf_counter()
        dt = torch.bfloat16
        q = torch.randn(B, Hq, S, D, dtype=dt, device="cuda")
        k = torch.randn(B, Hkv, S, D, dtype=dt, device="cuda")
        v = torch.randn(B, Hkv, S, D, dtype=dt, device="cuda")
        dout = torch.randn(B, Hq, S, D, dtype=dt, device="cuda")
        # NaN until kiln writes them: an unwritten element cannot pass.
        dq, dk, dv = poison(*(torch.empty_like(x) for x in (q, k, v)))
        out, lse = poison(torch.empty_like(q), torch.empty(
            B, Hq, S, dtype=torch.float32, device="cuda"))

        def kiln_times(paired, variant=""):
            """(backward, forward) seconds of kiln, None where it failed;
            `variant`: those of bench_paired_<variant>.so."""
            paired_lib = "bench_paired" + (f"_{variant}" if variant else "")
            fwd_lib = args.artifacts / (paired_lib + ".so" if paired
                                        else "bench_fwd.so")
            bwd_lib = args.artifacts / (paired_lib + ".so" if paired
                                        else "bench_bwd.so")
            t_bwd = t_fwd = None
            try:
                fwd = kiln_call(fwd_lib, f"kiln_fwd_{name}", [q, k, v],
                                [out, lse] if paired else [out])
                # The paired backward reads the forward's O and LSE.
                fwd()
                t_fwd = measure(fwd)
            except (OSError, AttributeError, RuntimeError) as error:
                print(f"# {name} fwd: {error}", flush=True)
                if is_sticky(error):
                    raise
            if paired and t_fwd is None:
                return None, None
            try:
                t_bwd = measure(kiln_call(
                    bwd_lib, f"kiln_bwd_{name}",
                    [q, k, v, dout] + ([out, lse] if paired else []),
                    [dq, dk, dv]))
            except (OSError, AttributeError, RuntimeError) as error:
                print(f"# {name} bwd: {error}", flush=True)
                if is_sticky(error):
                    raise
            return t_bwd, t_fwd

        def torch_times(gqa, qt, kt, vt, grad):
            """(forward, forward + backward) seconds of SDPA's flash backend;
            `gqa` passes enable_gqa, else K and V have Hq heads."""
            qr, kr, vr = (x.clone().requires_grad_() for x in (qt, kt, vt))
            extra = {"enable_gqa": True} if gqa else {}

            def fwd():
                with torch.no_grad(), sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    F.scaled_dot_product_attention(qt, kt, vt,
                                                   is_causal=cfg["causal"],
                                                   **extra)

            def fwdbwd():
                # Fresh gradients, as a training step's zero_grad(None):
                # else backward also adds into the previous .grad.
                qr.grad = kr.grad = vr.grad = None
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    o = F.scaled_dot_product_attention(
                        qr, kr, vr, is_causal=cfg["causal"], **extra)
                o.backward(grad)
            return measure(fwd), measure(fwdbwd)
        t_torch_fwd = t_torch = None
        torch_note = ""
        try:
            t_torch_fwd, t_torch = torch_times(Hq != Hkv, q, k, v, dout)
        except RuntimeError as error:
            print(f"# {name} torch: {error}", flush=True)
            if is_sticky(error):
                raise
            if Hq != Hkv:
                # A flash backend without GQA: K and V repeated to Hq heads
                # (what a caller would do), stated in the row's name.
                R = Hq // Hkv
                try:
                    t_torch_fwd, t_torch = torch_times(
                        False, q, k.repeat_interleave(R, dim=1),
                        v.repeat_interleave(R, dim=1), dout)
                    torch_note = "(torch:repeated-kv)"
                except RuntimeError as error2:
                    print(f"# {name} torch: {error2}", flush=True)
                    if is_sticky(error2):
                        raise

        def ms(t):
            return f"{t * 1e3:.3f}" if t else "-"

        def tflops(count, t):
            return f"{count / t / 1e12:.1f}" if t else "-"

        def ratio(a, b):
            return f"{a / b:.3f}" if a and b else "-"
        t_torch_bwd = t_torch - t_torch_fwd if t_torch else None

        def reference_grads():
            """dQ, dK, dV of one flash-backend backward (None if torch has
            none for this configuration)."""
            R = Hq // Hkv
            for gqa in ((True, False) if R > 1 else (False,)):
                kt = k if gqa or R == 1 else k.repeat_interleave(R, dim=1)
                vt = v if gqa or R == 1 else v.repeat_interleave(R, dim=1)
                qr, kr, vr = (x.clone().requires_grad_() for x in (q, kt, vt))
                try:
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        o = F.scaled_dot_product_attention(
                            qr, kr, vr, is_causal=cfg["causal"],
                            **({"enable_gqa": True} if gqa else {}))
                    o.backward(dout)
                except RuntimeError as error:
                    if is_sticky(error):
                        raise
                    continue
                gk, gv = kr.grad, vr.grad
                if kt is not k:  # repeated K/V: sum each group's gradients
                    gk = gk.view(B, Hkv, R, S, D).sum(2)
                    gv = gv.view(B, Hkv, R, S, D).sum(2)
                return qr.grad, gk, gv
            return None

        def error(reference):
            """The largest relative error of dQ, dK and dV: NaN if any is
            NaN (an unwritten or non-finite result), or without a
            reference."""
            if reference is None:
                return math.nan
            return nan_max(relative_error(got, want)
                           for got, want in zip((dq, dk, dv), reference))
        reference = None
        runs = [(True, "")]
        if args.unpaired:
            runs.append((False, ""))
        if D == 64 and (args.artifacts / "bench_paired_occupancy.so").exists():
            runs.append((True, "occupancy"))
        for paired, variant in runs:
            label = name + ("" if paired else "(unpaired)") + \
                (f"({variant})" if variant else "")
            if not paired or variant:
                # Not the first run's results: NaN until written again.
                poison(dq, dk, dv, out, lse)
            t_bwd, t_fwd = kiln_times(paired, variant)
            t_kiln = t_fwd + t_bwd if t_fwd and t_bwd else None
            err = float("nan")
            if t_bwd:
                if reference is None:
                    reference = reference_grads()
                err = error(reference)
            verdict = "" if within(err, 4 * 2.0 ** -7) else " WRONG"
            if verdict:
                wrong.append(label)
            row = [label + torch_note,
                   ms(t_bwd), tflops(2.5 * flops, t_bwd), ms(t_kiln),
                   tflops(3.5 * flops, t_kiln), ms(t_torch_bwd), ms(t_torch),
                   tflops(3.5 * flops, t_torch), ratio(t_torch_bwd, t_bwd),
                   ratio(t_torch, t_kiln), f"{err:.1e}{verdict}",
                   f"{overhead * 2e-6 / t_kiln:.0%}" if overhead and t_kiln
                   else "-"]
            print(" ".join(row), flush=True)
        carried["seconds_per_flop"] = (
            time.perf_counter() - config_began) / flops
    run_cases(configs, bench, name=lambda cfg: cfg["name"], rerun=False)
    print(f"# {time.time() - began:.1f} s")
    wrong = wrong + [name for name in failed_cases() if name not in wrong]
    if wrong:
        print(f"WRONG or failed (error above 4 * 2^-7, NaN, or a GPU "
              f"fault): {' '.join(wrong)}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
