"""The transformer block's training step on the GPU against PyTorch on the
same GPU with the same inputs, plus a smoke test of a few ops.

Libraries (prepare_block.sh): libblock_grad.so (@main: the loss and the
gradients of the 12 float parameters of examples/transformer_block.mlir, the
module scripts/fixtures/gen_block_grad.py builds), libtrain_block.so
(@train_step of examples/train_block.mlir: the loss, and the parameters and
their moments after one Adam step), the same two compiled with attention decomposed into
primitive ops (*_decomposed.so: the generic GPU path instead of the flash
kernels), and libblock_smoke_ops.so (bench/gpu/block_smoke_ops.mlir).

Inputs: gen_block.params() (seeded f32 weights, token ids, labels), on the
GPU. Reference: the PyTorch block of scripts/fixtures/gen_block.py evaluated
in float64 on the GPU, with autograd, from the same f32 values. (On the
emulator, KILN_GPU_EMULATE=1, both run on the CPU.)

Tolerances (Kiln computes in f32, u = 2^-24), not tuned to the results:
- loss: rtol 2e-5, atol 2e-6, as the CPU fixture (gen_block.py);
- gradients: the analysis of gen_block_grad.py: ~60 ops deep, dot products
  of length <= 32, so an error of ~1e-4 of the gradients' scale: tol =
  1e-4 * max|every gradient| + 1e-4 * max|this gradient|;
- Adam step (check_adam_step): how far the float64 update moves when the
  gradient moves by its tol either way, plus a few f32 roundings;
- smoke ops: the standard worst-case bounds of f32 evaluation (Higham):
  elementwise add/mul exact to half an ulp (tol u * max|ref|), exp then mul
  (libdevice expf, <= 2 ulp, then a rounding: tol 8u * max|ref|), a sum or
  dot product of n terms (tol n u * max sum|terms|), max exact, softmax of
  inputs in [-8, 8] (x - max rounded, so exp's argument is off by <= 16u
  relative; exp 2 ulp; a sum of n terms; a division: tol (n + 24) u *
  max|ref|).
The f32 PyTorch result's error against the same reference is printed as INFO
for scale.
"""
import contextlib
import os
import sys

import torch

from kiln_gpu import DEVICE, EMULATE, KilnError, KilnLibrary, artifact, \
    compare, fail, finish, nan_max, run_cases, to_device

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "fixtures"))
from gen_block import block, params  # noqa: E402

U = 2.0 ** -24
WRT = list(range(2, 14))
NAMES = ["embed", "attn_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w_gate",
         "w_up", "w_down", "final_norm", "w_head"]
LR = 0.1


def load(name):
    try:
        return KilnLibrary(artifact(name))
    except (OSError, FileNotFoundError) as error:
        fail(name, str(error))
        return None


def reference(inputs, dtype):
    """The loss and the 12 gradients by PyTorch on the GPU in `dtype`."""
    xs = [t.detach().clone().to(dtype) if t.is_floating_point() else t
          for t in inputs]
    for i in WRT:
        xs[i].requires_grad_(True)
    # gen_block's attention builds its causal mask with torch.arange: on
    # the GPU, make it build there (on the emulator everything is on the
    # CPU, and torch before 2.0 has no device context manager).
    with (contextlib.nullcontext() if EMULATE
          else torch.device(inputs[0].device)):
        loss = block(*xs)
    grads = torch.autograd.grad(loss, [xs[i] for i in WRT])
    return loss.detach(), [g.detach() for g in grads]


class References:
    """The float64 loss and gradients and their tolerances, computed once
    (after a restart, again in the new process)."""

    def __init__(self, inputs):
        loss64, grads64 = reference(inputs, torch.float64)
        loss32, grads32 = reference(inputs, torch.float32)
        scale = nan_max(g.abs().max().item() for g in grads64)
        self.loss64, self.grads64 = loss64, grads64
        self.grad_tols = [1e-4 * scale + 1e-4 * g.abs().max().item()
                          for g in grads64]
        self.loss_tol = 2e-6 + 2e-5 * abs(loss64.item())
        print("INFO block.torch_f32 loss err %.3e, max grad err %.3e" % (
            abs(loss32.item() - loss64.item()),
            nan_max((a.double() - b).abs().max().item()
                    for a, b in zip(grads32, grads64))), flush=True)


def check_value_and_grad(inputs, refs, suffix):
    """@main of libblock_grad<suffix>.so: the loss and the 12 gradients."""
    lib = load("libblock_grad%s.so" % suffix)
    if not lib:
        return
    prefix = "block%s." % suffix
    try:
        loss, *grads = lib.function("main")(*inputs)
        compare(prefix + "loss", loss, refs.loss64, refs.loss_tol)
        for name, got, ref, tol in zip(NAMES, grads, refs.grads64,
                                       refs.grad_tols):
            compare(prefix + "grad_" + name, got, ref, tol)
    except KilnError as error:
        fail(prefix + "value_and_grad", str(error))


def check_train_step(inputs, refs, suffix):
    """@train_step of libtrain_block<suffix>.so."""
    lib = load("libtrain_block%s.so" % suffix)
    if not lib:
        return
    try:
        check_adam_step(lib, inputs, refs.grads64, refs.grad_tols,
                        refs.loss64, refs.loss_tol, "train_step%s." % suffix)
    except KilnError as error:
        fail("train_step%s" % suffix, str(error))


BETA1, BETA2, ADAM_EPS = 0.9, 0.999, 1e-8


def adam_reference(p, m, v, g, t, lr):
    """One torch.optim.Adam step in float64 (examples/train_block.mlir)."""
    m2 = BETA1 * m + (1 - BETA1) * g
    v2 = BETA2 * v + (1 - BETA2) * g * g
    step_size = lr / (1 - BETA1 ** t)
    den = v2.sqrt() / (1 - BETA2 ** t) ** 0.5 + ADAM_EPS
    return p - step_size * m2 / den, m2, v2


def check_adam_step(lib, inputs, grads64, grad_tols, loss64, loss_tol,
                    prefix="train_step."):
    """@train_step: loss, then Adam on non-zero moments at step 4 (t = 5).

    The moments are random, with v of the gradients' own size, so that the
    update is not the sign-like first step. The tolerance of each updated
    value is how far the float64 update moves when the gradient moves by its
    own tolerance either way, plus a few float32 roundings."""
    g = torch.Generator(device=DEVICE).manual_seed(7)
    ms, vs = [], []
    for ref in grads64:
        size = ref.abs().max().item() + 1e-3
        ms.append((torch.rand(ref.shape, generator=g, device=DEVICE) - 0.5)
                  * size)
        vs.append((torch.rand(ref.shape, generator=g, device=DEVICE) + 0.5)
                  * size * size)
    step = torch.tensor(4.0, dtype=torch.float32, device=DEVICE)
    lr = torch.tensor(LR, dtype=torch.float32, device=DEVICE)
    params = [inputs[i] for i in WRT]
    outs = lib.function("train_step")(inputs[0], inputs[1], *params,
                                      *[m.float() for m in ms],
                                      *[v.float() for v in vs], step, lr)
    n = len(WRT)
    loss, new_p, new_m, new_v, new_step = (outs[0], outs[1:1 + n],
                                           outs[1 + n:1 + 2 * n],
                                           outs[1 + 2 * n:1 + 3 * n],
                                           outs[1 + 3 * n])
    compare(prefix + "loss", loss, loss64, loss_tol)
    compare(prefix + "step", new_step, torch.tensor(5.0, dtype=torch.float64), 0.0)
    for i, name in enumerate(NAMES):
        p = params[i].double()
        m, v = ms[i].float().double(), vs[i].float().double()
        ref_p, ref_m, ref_v = adam_reference(p, m, v, grads64[i], 5, LR)
        spread = [adam_reference(p, m, v, grads64[i] + s * grad_tols[i], 5, LR)
                  for s in (1.0, -1.0)]
        def tol(k, ref):
            moved = nan_max((other[k] - ref).abs().max().item()
                            for other in spread)
            return moved + 8 * U * ref.abs().max().item()
        compare(prefix + name, new_p[i], ref_p, tol(0, ref_p) + 8 * U * LR)
        compare(prefix + "m_" + name, new_m[i], ref_m, tol(1, ref_m))
        compare(prefix + "v_" + name, new_v[i], ref_v, tol(2, ref_v))


def smoke_ops():
    """(name, run) of each op of libblock_smoke_ops.so."""
    g = torch.Generator(device=DEVICE).manual_seed(1)

    def rand(*shape):
        return torch.rand(*shape, generator=g, device=DEVICE) * 2 - 1

    def op(name, inputs, ref_fn, tol_fn):
        def run():
            lib = load("libblock_smoke_ops.so")
            if not lib:
                return
            try:
                (got,) = lib.function(name)(*inputs)
            except KilnError as error:
                fail("ops." + name, str(error))
                return
            ref = ref_fn(*[t.double() for t in inputs])
            compare("ops." + name, got, ref,
                    tol_fn(*[t.double() for t in inputs]))
        return "ops." + name, run

    def max_abs(t):
        return t.abs().max().item()

    return [
        op("add_bcast", [rand(64, 128), rand(128)], lambda x, b: x + b,
           lambda x, b: U * max_abs(x + b)),
        op("exp_mul", [rand(4096) * 4], lambda x: torch.exp(x) * x,
           lambda x: 8 * U * max_abs(torch.exp(x) * x)),
        op("row_sum", [rand(64, 300)], lambda x: x.sum(1),
           lambda x: 300 * U * max_abs(x.abs().sum(1))),
        op("col_max", [rand(300, 64)], lambda x: x.max(0).values,
           lambda x: 0.0),
        op("softmax", [rand(32, 200) * 8], lambda x: torch.softmax(x, 1),
           lambda x: (200 + 24) * U * max_abs(torch.softmax(x, 1))),
        op("matmul", [rand(96, 80), rand(80, 112)], lambda a, b: a @ b,
           lambda a, b: 80 * U * max_abs(a.abs() @ b.abs())),
        op("batched_matmul", [rand(4, 32, 48), rand(48, 16)],
           lambda a, b: a @ b,
           lambda a, b: 48 * U * max_abs(a.abs() @ b.abs())),
    ]


def main():
    torch.manual_seed(0)
    inputs = [to_device(t) for t in params()]
    refs = []

    def references():
        if not refs:
            refs.append(References(inputs))
        return refs[0]
    # One case per library call, so that a GPU fault costs that call only
    # (run_cases restarts the script after it). With the attention kernels,
    # and with attention decomposed into primitive ops (the generic path).
    sections = []
    for suffix in ("", "_decomposed"):
        sections += [
            ("block%s" % suffix, lambda s=suffix: check_value_and_grad(
                inputs, references(), s)),
            ("train_step%s" % suffix, lambda s=suffix: check_train_step(
                inputs, references(), s))]
    sections += smoke_ops()
    run_cases(sections, lambda section: section[1](),
              name=lambda section: section[0])
    finish()


if __name__ == "__main__":
    main()
