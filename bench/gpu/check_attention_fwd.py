#!/usr/bin/env python3
"""Checks kiln.attention's GPU forward kernels against the contract.

Runs on the GPU machine (torch with CUDA, no LLVM/MLIR, no Kiln build):
for each case of bench/gpu/artifacts/attention_fwd/cases.json (written by
prepare_attention_fwd.sh) it draws the inputs (seeded, on the CPU), calls
the AOT library `<name>.so` on device copies through its C ABI
(`kiln_attn(inputs, outputs)` with device pointers), and compares the
result with scripts/fixtures/attention_ref.py, the contract in float64
(on the CPU: it builds its index grids there; the inputs are the same
values). It prints one line per case

    PASS|FAIL name max_abs_err tol

and exits non-zero on any FAIL (kiln_gpu.report; the output is poisoned
with NaN first, and a NaN error fails; a GPU fault fails its case and
restarts the script after it: kiln_gpu.run_cases). Tolerances are relative to max|O_ref|:
f32 1e-5 (an f32 computation: the online softmax and the dot products add
rounding errors of a few ulp of the largest terms), f16 2e-3 and bf16 2e-2
(the output is rounded to 2^-11 and 2^-8 relative, and the tensor-core
kernel multiplies P rounded to the same type with V: a few half-ulps).
Rows the reference leaves empty (exactly 0) must be exactly 0.

Usage: check_attention_fwd.py [--artifacts DIR] [--filter SUBSTRING] [--quick]

--quick: the bf16 cases only (a first smoke run of bench/gpu/run.sh).
"""
import argparse
import ctypes
import json
import math
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "fixtures"))
from attention_ref import attention_ref  # noqa: E402
from kiln_gpu import ARTIFACTS, DEVICE, fail, finish, report, run_cases, \
    synchronize, to_device, within  # noqa: E402

TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
TOLERANCES = {"f32": 1e-5, "f16": 2e-3, "bf16": 2e-2}


def make_inputs(case):
    """Returns the operands in the module's order (CPU tensors) and the
    keyword arguments of attention_ref."""
    gen = torch.Generator().manual_seed(case["input_seed"])
    dtype = TORCH_DTYPES[case["dtype"]]
    B, Hq, Hkv, Sq, Sk = (case[n] for n in ("B", "Hq", "Hkv", "Sq", "Sk"))
    q = torch.randn(B, Hq, Sq, case["Dk"], generator=gen).to(dtype)
    k = torch.randn(B, Hkv, Sk, case["Dk"], generator=gen).to(dtype)
    v = torch.randn(B, Hkv, Sk, case["Dv"], generator=gen).to(dtype)
    operands = [q, k, v]
    kwargs = {}
    if "mask" in case:
        kind, shape = case["mask"]
        if kind == "bool":
            mask = torch.rand(*shape, generator=gen) < 0.7
            for row in case.get("empty_rows", []):
                mask[..., row, :] = False
        else:
            mask = 2.0 * torch.randn(*shape, generator=gen)
            mask[torch.rand(*shape, generator=gen) < 0.2] = -math.inf
            mask = mask.to(dtype)
        operands.append(mask)
        kwargs["mask"] = mask
    for key in ("key_lengths", "query_lengths"):
        if key in case:
            itype, values = case[key]
            lengths = torch.tensor(values, dtype=torch.int32 if itype == "i32" else torch.int64)
            operands.append(lengths)
            kwargs[key] = lengths
    if case.get("dropout_p", 0.0) > 0:
        operands.append(torch.tensor(case["seed"], dtype=torch.int64))
        kwargs["dropout_p"] = case["dropout_p"]
        kwargs["seed"] = case["seed"]
    for key in ("scale", "softcap", "window_left", "window_right", "alignment"):
        if key in case:
            kwargs[key] = case[key]
    kwargs["causal"] = bool(case.get("causal"))
    return operands, kwargs


def run_kiln(lib_path, operands, out_shape, dtype):
    """Calls kiln_attn on device copies of `operands`; returns the output
    (on the device) or raises."""
    lib = ctypes.CDLL(lib_path)
    fn = lib.kiln_attn
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    fn.restype = ctypes.c_int
    device = [to_device(x).contiguous() for x in operands]
    out = torch.full(out_shape, float("nan"), dtype=dtype, device=DEVICE)
    ins = (ctypes.c_void_p * len(device))(*[x.data_ptr() for x in device])
    outs = (ctypes.c_void_p * 1)(out.data_ptr())
    synchronize()
    rc = fn(ins, outs)
    synchronize()
    if rc != 0:
        err = getattr(lib, "kiln_last_error", None)
        msg = ""
        if err is not None:
            err.restype = ctypes.c_char_p
            msg = (err() or b"").decode(errors="replace")
        raise RuntimeError(f"kiln_attn returned {rc}: {msg}")
    return out


def check(case, artifacts):
    """Runs one case and reports it (a GPU fault propagates to run_cases,
    which restarts the script after the case)."""
    name = case["name"]
    lib_path = os.path.join(artifacts, name + ".so")
    dtype = TORCH_DTYPES[case["dtype"]]
    tol_rel = TOLERANCES[case["dtype"]]
    operands, kwargs = make_inputs(case)
    ref = attention_ref(*operands[:3], **kwargs)
    out_shape = [case["B"], case["Hq"], case["Sq"], case["Dv"]]
    tol = tol_rel * max(ref.abs().max().item(), 1e-30)
    if not os.path.exists(lib_path):
        fail(name, f"(no {name}.so: see prepare log)")
        return
    out = run_kiln(lib_path, operands, out_shape, dtype).double().cpu()
    # NaN if the kernel wrote a NaN or left a poisoned element.
    err = (out - ref).abs().max().item()
    ok = within(err, tol)
    # Empty rows: exactly 0 in the reference, and exactly 0 here.
    empty = (ref == 0).all(dim=-1)
    note = ""
    if empty.any():
        exact = bool((out[empty] == 0).all())
        ok = ok and exact
        note = f"({int(empty.sum())} empty rows{'' if exact else ' NOT exactly 0'})"
    report(name, err, tol, ok=ok, note=note)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--artifacts", default=os.path.join(
        ARTIFACTS, "attention_fwd"))
    parser.add_argument("--filter", default="")
    parser.add_argument("--quick", action="store_true",
                        help="the bf16 cases only")
    args = parser.parse_args()
    with open(os.path.join(args.artifacts, "cases.json")) as f:
        cases = [c for c in json.load(f)["check"] if args.filter in c["name"]
                 and not (args.quick and c["dtype"] != "bf16")]
    run_cases(cases, lambda case: check(case, args.artifacts),
              name=lambda case: case["name"])
    finish()


if __name__ == "__main__":
    main()
