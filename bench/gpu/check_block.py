"""The transformer block's training step on the GPU against PyTorch on the
same GPU with the same inputs, plus a smoke test of a few ops.

Libraries (prepare_block.sh): libblock_grad.so (@main: the loss and the
gradients of the 12 float parameters of examples/transformer_block.mlir, the
module scripts/fixtures/gen_block_grad.py builds), libtrain_block.so
(@train_step of examples/train_block.mlir: the loss and the parameters after
one SGD step) and libblock_smoke_ops.so (bench/gpu/block_smoke_ops.mlir).

Inputs: gen_block.params() (seeded f32 weights, token ids, labels), on the
GPU. Reference: the PyTorch block of scripts/fixtures/gen_block.py evaluated
in float64 on the GPU, with autograd, from the same f32 values.

Tolerances (Kiln computes in f32, u = 2^-24), not tuned to the results:
- loss: rtol 2e-5, atol 2e-6, as the CPU fixture (gen_block.py);
- gradients: the analysis of gen_block_grad.py: ~60 ops deep, dot products
  of length <= 32, so an error of ~1e-4 of the gradients' scale: tol =
  1e-4 * max|every gradient| + 1e-4 * max|this gradient|;
- SGD step p - lr * g: lr times the gradient's tol, plus one rounding of p;
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
import os
import sys

import torch

from kiln_gpu import KilnError, KilnLibrary, artifact, compare, fail, finish

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
    # gen_block's attention builds its causal mask with torch.arange.
    with torch.device(inputs[0].device):
        loss = block(*xs)
    grads = torch.autograd.grad(loss, [xs[i] for i in WRT])
    return loss.detach(), [g.detach() for g in grads]


def check_training_step(inputs):
    loss64, grads64 = reference(inputs, torch.float64)
    loss32, grads32 = reference(inputs, torch.float32)
    scale = max(g.abs().max().item() for g in grads64)
    grad_tols = [1e-4 * scale + 1e-4 * g.abs().max().item() for g in grads64]
    loss_tol = 2e-6 + 2e-5 * abs(loss64.item())
    print("INFO block.torch_f32 loss err %.3e, max grad err %.3e" % (
        abs(loss32.item() - loss64.item()),
        max((a.double() - b).abs().max().item()
            for a, b in zip(grads32, grads64))), flush=True)

    lib = load("libblock_grad.so")
    if lib:
        try:
            loss, *grads = lib.function("main")(*inputs)
            compare("block.loss", loss, loss64, loss_tol)
            for name, got, ref, tol in zip(NAMES, grads, grads64, grad_tols):
                compare("block.grad_" + name, got, ref, tol)
        except KilnError as error:
            fail("block.value_and_grad", str(error))

    lib = load("libtrain_block.so")
    if lib:
        try:
            lr = torch.tensor(LR, dtype=torch.float32, device="cuda")
            loss, *new = lib.function("train_step")(*inputs, lr)
            compare("train_step.loss", loss, loss64, loss_tol)
            for i, (name, got) in enumerate(zip(NAMES, new)):
                p = inputs[WRT[i]].double()
                ref = p - LR * grads64[i]
                tol = LR * grad_tols[i] + 2 * U * p.abs().max().item()
                compare("train_step." + name, got, ref, tol)
        except KilnError as error:
            fail("train_step", str(error))


def check_smoke_ops():
    lib = load("libblock_smoke_ops.so")
    if not lib:
        return
    g = torch.Generator(device="cuda").manual_seed(1)

    def rand(*shape):
        return torch.rand(*shape, generator=g, device="cuda") * 2 - 1

    def run(name, inputs, ref_fn, tol_fn):
        try:
            (got,) = lib.function(name)(*inputs)
        except KilnError as error:
            fail("ops." + name, str(error))
            return
        ref = ref_fn(*[t.double() for t in inputs])
        compare("ops." + name, got, ref, tol_fn(*[t.double() for t in inputs]))

    def max_abs(t):
        return t.abs().max().item()

    run("add_bcast", [rand(64, 128), rand(128)], lambda x, b: x + b,
        lambda x, b: U * max_abs(x + b))
    run("exp_mul", [rand(4096) * 4], lambda x: torch.exp(x) * x,
        lambda x: 8 * U * max_abs(torch.exp(x) * x))
    run("row_sum", [rand(64, 300)], lambda x: x.sum(1),
        lambda x: 300 * U * max_abs(x.abs().sum(1)))
    run("col_max", [rand(300, 64)], lambda x: x.max(0).values,
        lambda x: 0.0)
    run("softmax", [rand(32, 200) * 8], lambda x: torch.softmax(x, 1),
        lambda x: (200 + 24) * U * max_abs(torch.softmax(x, 1)))
    run("matmul", [rand(96, 80), rand(80, 112)], lambda a, b: a @ b,
        lambda a, b: 80 * U * max_abs(a.abs() @ b.abs()))
    run("batched_matmul", [rand(4, 32, 48), rand(48, 16)], lambda a, b: a @ b,
        lambda a, b: 48 * U * max_abs(a.abs() @ b.abs()))


def main():
    torch.manual_seed(0)
    inputs = [t.cuda() for t in params()]
    check_training_step(inputs)
    check_smoke_ops()
    finish()


if __name__ == "__main__":
    main()
