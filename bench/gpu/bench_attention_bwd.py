#!/usr/bin/env python3
"""Times kiln's attention backward (and forward + backward) on the GPU
against torch SDPA's flash backend.

    python3 bench/gpu/bench_attention_bwd.py [--artifacts DIR] [--budget S]
                                             [--quick] [NAME_FILTER]

The configurations are attention_bwd_cases.bench_configs(): bf16, B=4,
H=16 (and 16 query heads over 4 kv heads), S in 1024..8192, D in {64, 128},
causal and not, in order of increasing cost; once --budget seconds (default
80) are spent, the rest are printed as SKIP. --quick: S <= 2048 only.

FLOP counts are FlashAttention's: the forward F = 4 * B * Hq * S^2 * D
(two matmuls), halved when causal; the backward 2.5 F (five matmuls, the
recomputation of P counted once); forward + backward 3.5 F. TFLOP/s are
these counts over the measured times. kiln's forward + backward is the sum of
`fwd_<config>` (bench_fwd.so) and `bwd_<config>` (bench_bwd.so) (the backward recomputes its statistics
itself, so running them in sequence is what a training step does);
torch's is one `scaled_dot_product_attention` forward and `backward` under
`sdpa_kernel(SDPBackend.FLASH_ATTENTION)`. ratio = torch time / kiln time
(above 1: kiln is faster).
"""
import argparse
import ctypes
import pathlib
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import attention_bwd_cases  # noqa: E402


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
            raise RuntimeError(f"{symbol}: {lib.kiln_last_error()}")
    return call


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifacts", type=pathlib.Path,
                        default=HERE / "artifacts" / "attention_bwd")
    parser.add_argument("--budget", type=float, default=80.0)
    parser.add_argument("--quick", action="store_true",
                        help="S <= 2048 only")
    parser.add_argument("filter", nargs="?", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    began = time.perf_counter()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; "
          "ms and TFLOP/s (FLOPs: fwd 4BHS^2D, bwd 2.5x, fwd+bwd 3.5x, "
          "halved when causal)")
    print("# config kiln_bwd_ms kiln_bwd_TFLOPs kiln_fwdbwd_ms "
          "kiln_fwdbwd_TFLOPs torch_bwd_ms torch_fwdbwd_ms "
          "torch_fwdbwd_TFLOPs ratio_bwd ratio_fwdbwd")
    for cfg in attention_bwd_cases.bench_configs():
        name = cfg["name"]
        if args.filter not in name or (args.quick and cfg["Sq"] > 2048):
            continue
        if time.perf_counter() - began > args.budget:
            print(f"SKIP {name} (budget)")
            continue
        B, Hq, Hkv, S, D = cfg["B"], cfg["Hq"], cfg["Hkv"], cfg["Sq"], cfg["Dk"]
        flops = 4.0 * B * Hq * S * S * D * (0.5 if cfg["causal"] else 1.0)
        dt = torch.bfloat16
        q = torch.randn(B, Hq, S, D, dtype=dt, device="cuda")
        k = torch.randn(B, Hkv, S, D, dtype=dt, device="cuda")
        v = torch.randn(B, Hkv, S, D, dtype=dt, device="cuda")
        dout = torch.randn(B, Hq, S, D, dtype=dt, device="cuda")
        dq, dk, dv = (torch.empty_like(x) for x in (q, k, v))
        out = torch.empty_like(q)

        row = [name]
        bwd_lib = args.artifacts / "bench_bwd.so"
        fwd_lib = args.artifacts / "bench_fwd.so"
        t_bwd = t_fwd = None
        try:
            t_bwd = measure(kiln_call(bwd_lib, f"kiln_bwd_{name}",
                                      [q, k, v, dout], [dq, dk, dv]))
        except (OSError, AttributeError, RuntimeError) as error:
            print(f"# {name} bwd: {error}")
        try:
            t_fwd = measure(kiln_call(fwd_lib, f"kiln_fwd_{name}",
                                      [q, k, v], [out]))
        except (OSError, AttributeError, RuntimeError) as error:
            print(f"# {name} fwd: {error}")

        qr, kr, vr = (x.clone().requires_grad_() for x in (q, k, v))
        gqa = Hq != Hkv

        def torch_fwd():
            with torch.no_grad(), sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, is_causal=cfg["causal"],
                                               enable_gqa=gqa)

        def torch_fwdbwd():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                o = F.scaled_dot_product_attention(
                    qr, kr, vr, is_causal=cfg["causal"], enable_gqa=gqa)
            o.backward(dout)
        try:
            t_torch_fwd = measure(torch_fwd)
            t_torch = measure(torch_fwdbwd)
        except RuntimeError as error:
            print(f"# {name} torch: {error}")
            t_torch_fwd = t_torch = None

        def ms(t):
            return f"{t * 1e3:.3f}" if t else "-"

        def tflops(count, t):
            return f"{count / t / 1e12:.1f}" if t else "-"

        def ratio(a, b):
            return f"{a / b:.3f}" if a and b else "-"
        t_kiln = t_fwd + t_bwd if t_fwd and t_bwd else None
        t_torch_bwd = t_torch - t_torch_fwd if t_torch else None
        row += [ms(t_bwd), tflops(2.5 * flops, t_bwd), ms(t_kiln),
                tflops(3.5 * flops, t_kiln), ms(t_torch_bwd), ms(t_torch),
                tflops(3.5 * flops, t_torch), ratio(t_torch_bwd, t_bwd),
                ratio(t_torch, t_kiln)]
        print(" ".join(row), flush=True)
        del q, k, v, dout, dq, dk, dv, out, qr, kr, vr
        torch.cuda.empty_cache()
    print(f"# {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
