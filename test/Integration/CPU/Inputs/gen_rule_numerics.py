#!/usr/bin/env python3
"""Prints the expected values of test/Integration/CPU/half-rule-numerics.mlir,
nan-gradients.mlir and attention-lse-save-all.mlir, from PyTorch's autograd in float64.

Run with Debian's torch: /usr/bin/python3 gen_rule_numerics.py

Half-type cases: the rules compute in f32 and round each gradient once, so
the expected value is the float64 gradient rounded once to f16 or bf16. A
value whose float64 gradient lies within 2^-18 (relative) of a rounding
boundary of the half type is refused: f32's error could then round it the
other way. Values are printed as kiln-run prints them (%.6g of the value as
a double).
"""
import math
import sys

import torch
import torch.nn.functional as F

f64 = torch.float64


def fmt(v):
    if math.isnan(v):
        return "nan"
    return "%.6g" % v


def rounded(t, dtype):
    """`t` (float64) rounded once to `dtype`, checked to be far from a tie."""
    bits, min_exponent = {torch.float16: (11, -14),
                          torch.bfloat16: (8, -126)}[dtype]
    out = []
    for v in t.flatten().tolist():
        r = torch.tensor(v, dtype=f64).to(dtype).double().item()
        if math.isfinite(v) and v != 0:
            exponent = max(math.floor(math.log2(abs(v))), min_exponent)
            ulp = 2.0 ** (exponent - (bits - 1))
            distance = 0.5 - abs(v - r) / ulp  # to the boundary, in ulps
            if distance < 2.0 ** -18 * abs(v) / ulp:
                sys.exit(f"{v} is too close to a rounding boundary")
        out.append(r)
    return out


def line(name, values):
    print(f"// {name}: [" + ", ".join(fmt(v) for v in values) + "]")


def grads(f, *args):
    xs = [torch.tensor(a, dtype=f64, requires_grad=True) for a in args]
    f(*xs).backward()
    return [x.grad for x in xs]


def half_cases():
    x = [[300.0, -200.0, 100.0, -250.0], [1.0, 2.0, 4.0, 5.0]]
    w = [1.0, 0.5, 2.0, -1.5]
    b = [0.25, 0.0, 0.0, 0.0]
    c = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=f64)

    dx, dw, db = grads(
        lambda x, w, b: (F.layer_norm(x, (4,), w, b, 1e-5) * c).sum(), x, w, b)
    for name, t in (("layer_norm dx", dx), ("layer_norm dw", dw),
                    ("layer_norm db", db)):
        line(name, rounded(t, torch.float16))

    def rms_norm(x, w):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w
    dx, dw = grads(lambda x, w: (rms_norm(x, w) * c).sum(), x, w)
    line("rms_norm dx", rounded(dx, torch.float16))
    line("rms_norm dw", rounded(dw, torch.float16))

    xb = [[100.0, 100.5, 101.0, 101.5]]
    cb = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=f64)
    (dx,) = grads(lambda x: (F.layer_norm(x, (4,), eps=1e-5) * cb).sum(), xb)
    line("bf16 layer_norm dx", rounded(dx, torch.bfloat16))

    xg = [1.0, 3.0, 100.0, 300.0, -300.0]
    (dx,) = grads(lambda x: F.gelu(x, approximate="tanh").sum(), xg)
    line("gelu tanh dx", rounded(dx, torch.float16))
    (dx,) = grads(lambda x: F.gelu(x).sum(), xg)
    line("gelu dx", rounded(dx, torch.float16))

    (dx,) = grads(lambda x: torch.log10(x).sum(), [30000.0, 10.0])
    line("log10 dx", rounded(dx, torch.float16))


def nan_cases():
    nan = math.nan
    a, b = [nan, 1.0, 2.0, nan, 3.0], [1.0, nan, 2.0, nan, -math.inf]
    da, db = grads(lambda a, b: torch.maximum(a, b).sum(), a, b)
    line("maximum da", da.tolist())
    line("maximum db", db.tolist())
    da, db = grads(lambda a, b: torch.minimum(a, b).sum(), a, b)
    line("minimum da", da.tolist())
    line("minimum db", db.tolist())
    x = [nan, 1.0, 0.0, -1.0]
    (dx,) = grads(lambda x: torch.relu(x).sum(), x)
    line("relu dx", dx.tolist())
    (dx,) = grads(lambda x: F.elu(x, 0.7).sum(), x)
    line("elu dx", dx.tolist())
    (dx,) = grads(lambda x: (x.abs() + F.leaky_relu(x, 0.1)
                             + x.clamp(-1.0, 1.0)).sum(), x)
    line("abs + leaky_relu + clamp dx", dx.tolist())

    logits = [[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]]
    xs = torch.tensor(logits, dtype=f64, requires_grad=True)
    loss = F.cross_entropy(xs, torch.tensor([-100, -100]))
    loss.backward()
    line("cross_entropy loss", [loss.item()])
    line("cross_entropy dx", xs.grad.flatten().tolist())

    weight = torch.tensor([[[[1.0, 2.0, 3.0]]]], dtype=f64)
    (dx,) = grads(lambda x: (F.max_pool2d(x, (1, 2), (1, 2), (0, 1))
                             * weight).sum(),
                  [[[[-math.inf, 1.0, 2.0, -math.inf]]]])
    line("max_pool2d dx", dx.flatten().tolist())

    # Windows holding NaN: tiled (stride = kernel) and overlapping with
    # padding (stride 1, padding 1).
    weight = torch.tensor([[[[1.0, 2.0]]]], dtype=f64)
    (dx,) = grads(lambda x: (F.max_pool2d(x, 2) * weight).sum(),
                  [[[[1.0, nan, nan, 2.0], [3.0, nan, nan, 1.0]]]])
    line("max_pool2d nan tiled dx", dx.flatten().tolist())
    weight = torch.arange(1.0, 17.0, dtype=f64).reshape(1, 1, 4, 4)
    (dx,) = grads(lambda x: (F.max_pool2d(x, 2, 1, 1) * weight).sum(),
                  [[[[nan, 1.0, 2.0], [3.0, 4.0, nan], [0.0, 1.0, 2.0]]]])
    line("max_pool2d nan overlapping dx", dx.flatten().tolist())

    (dx,) = grads(lambda x: torch.amax(x, 0), [nan, 1.0, 2.0])
    line("amax dx", dx.tolist())


def lse_cases():
    # d(sum(lse))/dq for self-attention on q = k = v, scale 1/sqrt(2).
    q = [[[[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]]]]
    (dq,) = grads(lambda q: torch.logsumexp(
        q @ q.transpose(-1, -2) / math.sqrt(2.0), -1).sum(), q)
    line("lse dq", dq.flatten().tolist())


if __name__ == "__main__":
    print("// half-rule-numerics.mlir")
    half_cases()
    print("// nan-gradients.mlir")
    nan_cases()
    print("// attention-lse-save-all.mlir")
    lse_cases()
