#!/usr/bin/env python3
"""Checks kiln.attention_grad's GPU kernels on the GPU machine.

    python3 bench/gpu/check_attention_bwd.py [--artifacts DIR] [--quick]
                                             [NAME_FILTER]

Loads the libraries that bench/gpu/prepare_attention_bwd.sh built (one per
case of attention_bwd_cases.py: every mask form of the contract in f32, f16
and bf16, each unpaired, `kiln.attention_grad` alone, and paired, the
forward with its lse then the backward from that O and LSE as kiln-autodiff
emits it), runs each on the GPU with device pointers, and compares dQ, dK,
dV (and d_mask), and for the paired libraries O and LSE, with torch
autograd through scripts/fixtures/attention_ref.py (the one Python
reference of the contract, dropout's Philox mask included) in float64 on
the same rounded inputs (--quick: bf16 only, for a first smoke run of
bench/gpu/run.sh). Prints one line per result, `PASS|FAIL name max_abs_err
tol`, and exits non-zero on any FAIL (kiln_gpu.report: a NaN error
fails; the outputs are NaN until written; a GPU fault fails its case and
restarts the script after it: kiln_gpu.run_cases).

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

The paired libraries: O as above (it is rounded once from f32 too), plus,
for f16/bf16, elementwise, r_id = uh sum_j P'_ij |V_jd| (uh = 2^-11,
2^-8; P' = P Z / (1 - p) the reference's float64 probabilities after
dropout): the tensor-core forward rounds P' to the half type before P' V.
LSE (f32 for every dtype) 1e-4 max(1, max|LSE|), as f32 above, and +inf
exactly on the reference's empty rows. The gradients as above plus the
effect of D: the backward computes D_i = sum_d dO_id O_id from the forward's
O, which for half types is rounded, |O_id - O*_id| <= uh |O*_id| + r_id
(O* the exact value; the f32 part is in the headroom above), so
  |D_i - D*_i| <= delta_i = sum_d |dO_id| (uh |O*_id| + r_id)
(times 1.01 for the second-order terms). D enters only dT_ij = P_ij (dP_ij
- D_i) (dropout's Z does not multiply D), and dS = dT (1 - tanh^2) with the
softcap factor <= 1, so, elementwise,
  dQ_id = scale sum_j dS_ij K_jd    moves by <= scale sum_j P_ij delta_i |K_jd|
  dK_jd = scale sum_i dS_ij Q_id    moves by <= scale sum_i P_ij delta_i |Q_id|
                                       (i over the kv group's query rows)
  d_mask = dT summed to the mask's shape: <= P_ij delta_i summed likewise
and dV does not read D. Each result then passes when every element's error
is within the tolerance above plus its bound; the line reports the element
with the largest error / tolerance. f32 keeps its O unrounded up to 2^-24,
inside the 1e-4.
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
from attention_ref import attention_logits, attention_lse_ref, \
    attention_ref, keep_mask  # noqa: E402
from kiln_gpu import ARTIFACTS, DEVICE, EMULATE, fail, finish, report, \
    run_cases, synchronize, to_device  # noqa: E402

TORCH_DTYPE = {"f32": torch.float32, "f16": torch.float16,
               "bf16": torch.bfloat16}
TOLERANCE = {"f32": 1e-4, "f16": 4 * 2.0 ** -10, "bf16": 4 * 2.0 ** -7}
# The unit roundoff of the stored O: 0 for f32 (its rounding is in the 1e-4).
HALF_ROUNDOFF = {"f32": 0.0, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}
LSE_TOLERANCE = 1e-4
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


def reference_kwargs(case, inputs):
    """attention_ref's keyword arguments of `case` (not the mask)."""
    return dict(
        key_lengths=inputs.get("key_lengths"),
        query_lengths=inputs.get("query_lengths"), scale=case.get("scale"),
        causal=case.get("causal", False), window_left=case.get("window_left"),
        window_right=case.get("window_right"), softcap=case.get("softcap"))


def reference(case, inputs):
    """dQ, dK, dV (and d_mask) by torch autograd in float64, and O."""
    leaves = {n: inputs[n].clone().requires_grad_()
              for n in ("q", "k", "v")}
    mask = inputs.get("mask")
    if case.get("mask") == "additive":
        mask = mask.clone().requires_grad_()
        leaves["mask"] = mask
    out = attention_ref(
        leaves["q"], leaves["k"], leaves["v"], mask=mask,
        dropout_p=case.get("dropout_p", 0.0), seed=case.get("seed"),
        **reference_kwargs(case, inputs))
    out.backward(inputs["dout"])
    grads = [leaves[n].grad for n in ("q", "k", "v")]
    if "mask" in leaves:
        grads.append(leaves["mask"].grad)
    return grads, out.detach()


def paired_reference(case, inputs, out):
    """LSE in float64, and the elementwise bounds of the paired results'
    extra error (see the header) for the reference O `out`: O's, and
    [dQ, dK, dV, d_mask]'s (0 for f32)."""
    mask = inputs.get("mask")
    kwargs = reference_kwargs(case, inputs)
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    lse = attention_lse_ref(q, k, v, mask=mask, **kwargs)
    uh = HALF_ROUNDOFF[case["dtype"]]
    if uh == 0:
        return lse, 0.0, [0.0] * 4
    # P in float64 (empty rows 0) and P' = P Z / (1 - p), as attention_ref.
    t, v_heads = attention_logits(q, k, v, mask, **kwargs)
    empty = (t == -math.inf).all(dim=-1, keepdim=True)
    t = torch.where(empty, torch.zeros((), dtype=torch.float64), t)
    probs = torch.where(empty, torch.zeros((), dtype=torch.float64),
                        torch.softmax(t, dim=-1))
    kept = probs
    if case.get("dropout_p"):
        p = case["dropout_p"]
        kept = probs * keep_mask(case["seed"], list(probs.shape),
                                 p).double() / (1.0 - p)
    B, Hq, Sq, Sk = probs.shape
    Hkv = case["Hkv"]
    R = Hq // Hkv
    # The tensor-core forward's rounding of P': uh sum_j P'_ij |V_jd|.
    o_extra = uh * (kept @ v_heads.abs())
    delta = 1.01 * (inputs["dout"].abs() * (uh * out.abs() + o_extra)).sum(-1)
    weighted = probs * delta.unsqueeze(-1)  # P_ij delta_i
    scale = case.get("scale") or 1.0 / math.sqrt(case["Dk"])
    dq = scale * weighted @ k.repeat_interleave(R, dim=1).abs()
    dk = (scale * weighted.transpose(-1, -2) @ q.abs()).reshape(
        B, Hkv, R, Sk, -1).sum(2)
    extra = [dq, dk, 0.0, 0.0]
    if case.get("mask") == "additive":
        shape = list(case["mask_shape"])
        full = [1] * (4 - len(shape)) + shape
        dims = [d for d in range(4) if full[d] == 1 and probs.shape[d] > 1]
        summed = weighted.sum(dims, keepdim=True) if dims else weighted
        extra[3] = summed.reshape(shape)
    return lse, o_extra, extra


def worst(got, want, tol, extra):
    """(|got - want|, its tolerance tol + extra) at the element where their
    ratio is largest (`extra` an elementwise bound, or a number); an
    infinite error if `got` is not finite."""
    if not torch.isfinite(got).all():
        return math.inf, tol
    if not got.numel():
        return 0.0, tol
    err = (got - want).abs()
    bound = tol + extra if torch.is_tensor(extra) else torch.full_like(
        err, tol + extra)
    index = (err / bound).flatten().argmax()
    return err.flatten()[index].item(), bound.flatten()[index].item()


def run_kiln(lib, case, inputs):
    """Runs @attention_bwd (@attention_paired) of `lib` on device copies of
    `inputs`; returns the results on the CPU (NaN where the library wrote
    nothing): dQ, dK, dV[, d_mask] (after O and LSE when paired)."""
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
    out_types = [dtype] * len(out_shapes)
    if case["paired"]:
        out_shapes = [shapes["dout"], shapes["lse"]] + out_shapes
        out_types = [dtype, torch.float32] + out_types
    outputs = [torch.full(s, math.nan, dtype=t, device=DEVICE)
               for s, t in zip(out_shapes, out_types)]
    ins = (ctypes.c_void_p * len(device_inputs))(
        *[x.data_ptr() for x in device_inputs])
    outs = (ctypes.c_void_p * len(outputs))(*[x.data_ptr() for x in outputs])
    synchronize()
    symbol = "kiln_attention_paired" if case["paired"] else \
        "kiln_attention_bwd"
    rc = getattr(lib, symbol)(ins, outs)
    synchronize()
    if rc != 0:
        lib.kiln_last_error.restype = ctypes.c_char_p
        raise RuntimeError(f"{symbol} returned {rc}: "
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


def check(case, artifacts):
    """Runs one case and reports its results (a GPU fault propagates to
    run_cases, which restarts the script after the case)."""
    name = case["lib"]
    path = artifacts / f"{name}.so"
    if not path.exists():
        fail(f"{name}/missing_library", f"no {path.name}: see the prepare log")
        return
    inputs = make_inputs(case)
    got = run_kiln(ctypes.CDLL(str(path)), case, inputs)
    want, out = reference(case, inputs)
    extra = [0.0] * 4
    if case["paired"]:
        lse, o_extra, extra = paired_reference(case, inputs, out)
        got_out, got_lse = got[:2]
        got = got[2:]
        err, tol = worst(got_out, out, TOLERANCE[case["dtype"]] * max(
            1.0, out.abs().max().item()), o_extra)
        report(f"{name}/o", err, tol)
        empty = lse == math.inf
        err = 0.0 if torch.equal(got_lse.double()[empty], lse[empty]) \
            else math.inf
        report(f"{name}/lse_inf_rows", err, 0.0)
        finite = lse[~empty]
        tol = LSE_TOLERANCE * max(
            1.0, finite.abs().max().item() if finite.numel() else 0.0)
        err = max_error(got_lse.double()[~empty], finite)
        report(f"{name}/lse", err, tol)
    for label, g, w, e in zip(("dq", "dk", "dv", "dmask"), got, want, extra):
        scale = max(1.0, w.abs().max().item() if w.numel() else 0.0)
        err, tol = worst(g, w, TOLERANCE[case["dtype"]] * scale, e)
        report(f"{name}/{label}", err, tol)
    for label, zeros in exact_zero_checks(case, got):
        err = max_error(zeros, torch.zeros_like(zeros))
        report(f"{name}/{label}", err, 0.0)


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
    cases = [case for case in attention_bwd_cases.check_cases()
             if args.filter in case["lib"]
             and not (args.quick and case["dtype"] != "bf16")]
    run_cases(cases, lambda case: check(case, args.artifacts),
              name=lambda case: case["lib"])
    finish()


if __name__ == "__main__":
    sys.exit(main())
