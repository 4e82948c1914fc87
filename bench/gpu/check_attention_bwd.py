#!/usr/bin/env python3
"""Checks kiln.attention_grad's GPU kernels on the GPU machine.

    python3 bench/gpu/check_attention_bwd.py [--artifacts DIR] [--quick]
                                             [NAME_FILTER]

Loads the libraries that bench/gpu/prepare_attention_bwd.sh built (one per
case of attention_bwd_cases.py: every mask form of the contract in f32, f16
and bf16), runs each on the GPU with device pointers, and compares dQ, dK,
dV (and d_mask) with torch autograd through scripts/fixtures/attention_ref.py
(the one Python reference of the contract, dropout's Philox mask included)
in float64 on the same rounded inputs (--quick: bf16 only, for a first
smoke run of bench/gpu/run.sh). Prints one line per result,
`PASS|FAIL name max_abs_err tol`, and exits non-zero on any FAIL.

Tolerances are relative to max(1, max |reference|):
  f32   1e-4    the kernels compute in f32 (unit roundoff 6e-8) over at most
                131 keys and 128-long dot products, with the approximate
                ex2 of the NVVM lowering (2 ulp): errors stay below 1e-5,
                while any indexing or masking error is of order 1.
  f16   4 * 2^-10, bf16 4 * 2^-7: the results are rounded once from f32
                (at most half an ulp, 2^-11 resp. 2^-8 relative); the
                reference gets the same rounded inputs, so 8x the rounding
                error is headroom enough for the f32 compute.
Masked keys, padded keys and empty rows must be exactly 0 (tolerance 0).
The reference runs on the CPU in float64: attention_ref builds its index
tensors there.
"""
import argparse
import ctypes
import math
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "scripts" / "fixtures"))

import attention_bwd_cases  # noqa: E402
from attention_ref import attention_ref  # noqa: E402
from kiln_gpu import ARTIFACTS, DEVICE, EMULATE, synchronize, \
    to_device  # noqa: E402

TORCH_DTYPE = {"f32": torch.float32, "f16": torch.float16,
               "bf16": torch.bfloat16}
TOLERANCE = {"f32": 1e-4, "f16": 4 * 2.0 ** -10, "bf16": 4 * 2.0 ** -7}
LENGTHS_DTYPE = {"i32": torch.int32, "i64": torch.int64}


def make_inputs(case):
    """The case's inputs: float64 values already rounded to the dtype."""
    gen = torch.Generator().manual_seed(20261130)
    dtype = TORCH_DTYPE[case["dtype"]]
    shapes = attention_bwd_cases.shapes(case)

    def rounded(shape, factor=1.0):
        x = torch.randn(shape, generator=gen, dtype=torch.float64) * factor
        return x.to(dtype).double()

    inputs = {name: rounded(shapes[name]) for name in ("q", "k", "v", "dout")}
    mask = case.get("mask")
    if mask == "additive":
        inputs["mask"] = rounded(case["mask_shape"], 0.5)
    elif mask in ("bool", "bool_empty_rows"):
        visible = torch.rand(case["mask_shape"], generator=gen) < 0.8
        if mask == "bool_empty_rows":
            visible[..., 3::7, :] = False
        inputs["mask"] = visible
    for key in ("key_lengths", "query_lengths"):
        if key in case:
            inputs[key] = torch.tensor(case[key],
                                       dtype=LENGTHS_DTYPE[case["lengths_type"]])
    if case.get("dropout_p"):
        inputs["seed"] = torch.tensor(case["seed"], dtype=torch.int64)
    return inputs


def reference(case, inputs):
    """dQ, dK, dV (and d_mask) by torch autograd in float64."""
    leaves = {n: inputs[n].clone().requires_grad_()
              for n in ("q", "k", "v")}
    mask = inputs.get("mask")
    if case.get("mask") == "additive":
        mask = mask.clone().requires_grad_()
        leaves["mask"] = mask
    out = attention_ref(
        leaves["q"], leaves["k"], leaves["v"], mask=mask,
        key_lengths=inputs.get("key_lengths"),
        query_lengths=inputs.get("query_lengths"), scale=case.get("scale"),
        causal=case.get("causal", False), window_left=case.get("window_left"),
        window_right=case.get("window_right"), softcap=case.get("softcap"),
        dropout_p=case.get("dropout_p", 0.0), seed=case.get("seed"))
    out.backward(inputs["dout"])
    grads = [leaves[n].grad for n in ("q", "k", "v")]
    if "mask" in leaves:
        grads.append(leaves["mask"].grad)
    return grads


def run_kiln(lib, case, inputs):
    """Runs @attention_bwd of `lib` on device copies of `inputs`; returns
    the results on the CPU (NaN where the library wrote nothing)."""
    dtype = TORCH_DTYPE[case["dtype"]]
    order = ["q", "k", "v", "dout", "mask", "key_lengths", "query_lengths",
             "seed"]
    device_inputs = []
    for name in order:
        if name not in inputs:
            continue
        x = inputs[name]
        if x.is_floating_point():
            x = x.to(dtype)
        device_inputs.append(to_device(x.contiguous()))
    shapes = attention_bwd_cases.shapes(case)
    out_shapes = [shapes["q"], shapes["k"], shapes["v"]]
    if case.get("mask") == "additive":
        out_shapes.append(case["mask_shape"])
    outputs = [torch.full(s, math.nan, dtype=dtype, device=DEVICE)
               for s in out_shapes]
    ins = (ctypes.c_void_p * len(device_inputs))(
        *[x.data_ptr() for x in device_inputs])
    outs = (ctypes.c_void_p * len(outputs))(*[x.data_ptr() for x in outputs])
    synchronize()
    rc = lib.kiln_attention_bwd(ins, outs)
    synchronize()
    if rc != 0:
        lib.kiln_last_error.restype = ctypes.c_char_p
        raise RuntimeError(f"kiln_attention_bwd returned {rc}: "
                           f"{lib.kiln_last_error()}")
    return [x.double().cpu() for x in outputs]


def max_error(got, want):
    if not torch.isfinite(got).all():
        return math.inf
    return (got - want).abs().max().item() if got.numel() else 0.0


def exact_zero_checks(case, got):
    """(label, tensor that must be exactly 0) of the case."""
    dq, dk, dv = got[:3]
    checks = []
    if case["name"] == "key_padding":
        checks += [("padded_dk", dk[1, :, 50:]), ("padded_dv", dv[1, :, 50:])]
    if case["name"] == "query_lengths":
        checks.append(("dq_past_length", dq[0, :, 40:]))
    if case["name"] == "empty_rows":
        checks += [("dq_empty_rows", dq[:, :, 3::7]), ("dq_no_keys", dq[1]),
                   ("dk_no_keys", dk[1]), ("dv_no_keys", dv[1])]
    return checks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifacts", type=pathlib.Path,
                        default=pathlib.Path(ARTIFACTS) / "attention_bwd")
    parser.add_argument("--quick", action="store_true",
                        help="the bf16 cases only")
    parser.add_argument("filter", nargs="?", default="")
    args = parser.parse_args()
    if not EMULATE:
        torch.cuda.init()
    failures = 0

    def report(ok, name, err, tol):
        nonlocal failures
        failures += 0 if ok else 1
        print(f"{'PASS' if ok else 'FAIL'} {name} {err:.3e} {tol:.3e}",
              flush=True)

    for case in attention_bwd_cases.check_cases():
        name = case["lib"]
        if args.filter not in name or (args.quick and case["dtype"] != "bf16"):
            continue
        path = args.artifacts / f"{name}.so"
        if not path.exists():
            report(False, f"{name}/missing_library", math.inf, 0.0)
            continue
        inputs = make_inputs(case)
        try:
            got = run_kiln(ctypes.CDLL(str(path)), case, inputs)
        except Exception as error:  # noqa: BLE001 - reported as a FAIL
            print(f"# {name}: {error}")
            report(False, f"{name}/run", math.inf, 0.0)
            continue
        want = reference(case, inputs)
        for label, g, w in zip(("dq", "dk", "dv", "dmask"), got, want):
            scale = max(1.0, w.abs().max().item() if w.numel() else 0.0)
            tol = TOLERANCE[case["dtype"]] * scale
            err = max_error(g, w)
            report(err <= tol, f"{name}/{label}", err, tol)
        for label, zeros in exact_zero_checks(case, got):
            err = max_error(zeros, torch.zeros_like(zeros))
            report(err == 0.0, f"{name}/{label}", err, 0.0)
    print(f"# {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
