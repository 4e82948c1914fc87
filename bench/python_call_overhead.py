#!/usr/bin/env python3
"""What a kiln.compile call costs over the compiled library's own time.

For a small MLP and for a tiny HF Qwen3 (training step: forward + backward),
times, alternating in one process, medians of --repeat rounds:

  library   the compiled functions called directly through ctypes on
            preallocated tensors (@model_forward then @model_backward);
  kiln      compiled(*inputs) then loss.backward() through torch autograd;

and prints kiln - library: the Python layer's overhead per training step
(argument checks, output and residual allocation, autograd). For scale it
also times an empty torch.autograd.Function over the same tensors, forward
and backward: torch's own share of that overhead. Needs the venv of
scripts/python-env.sh:

    PYTHONPATH=python KILN_BUILD_DIR=build ~/.cache/kiln/venv/bin/python \\
        bench/python_call_overhead.py [--repeat 200]
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "tests"))
import kiln  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 32)
        self.b = nn.Linear(32, 4)

    def forward(self, x, y):
        return F.cross_entropy(self.b(torch.tanh(self.a(x))), y)


def cases():
    yield "mlp", MLP(), (torch.randn(8, 16), torch.randint(0, 4, (8,))), {}
    try:
        from hf_models import make_batch, make_model
        yield "qwen3-tiny", make_model("qwen3"), (), make_batch()
    except ImportError:
        pass


class _Empty(torch.autograd.Function):
    """Does nothing: what torch's autograd costs for a Function of these
    inputs, forward and backward."""

    @staticmethod
    def forward(ctx, *args):
        ctx.n = len(args)
        return torch.zeros(())

    @staticmethod
    def backward(ctx, grad):
        return (None,) * ctx.n


def loss_of(out):
    return out.loss if hasattr(out, "loss") else out[0] if isinstance(out, tuple) else out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    torch.set_num_threads(1)
    print("%-12s %12s %12s %12s %16s" % ("model", "library us", "kiln us", "overhead us",
                                         "empty Function us"))
    for name, model, xs, kw in cases():
        compiled = kiln.compile(model, xs, kw)
        prog = compiled._kiln
        # The direct path: the same library, tensors prepared once.
        entries = prog.arguments(xs, kw)
        ins = prog.check(entries, prog.fwd.inputs)
        fouts = prog.fwd.new_outputs()
        cots = [torch.ones(s, dtype=d) for d, s in prog.plain.outputs]
        bins = fouts[prog.n_out:] + cots
        bouts = prog.bwd.new_outputs()

        def library():
            prog.fwd(ins, fouts)
            prog.bwd(bins, bouts)

        def through_kiln():
            loss_of(compiled(*xs, **kw)).backward()

        tensors = [t for t, _ in entries]

        def empty_function():
            _Empty.apply(*tensors).backward()

        fns = (library, through_kiln, empty_function)
        for f in fns:
            f()
        times = [[] for _ in fns]
        for _ in range(args.repeat):
            for f, ts in zip(fns, times):
                t = time.perf_counter()
                f()
                ts.append(time.perf_counter() - t)
        lm, km, em = (statistics.median(ts) * 1e6 for ts in times)
        print("%-12s %12.1f %12.1f %12.1f %16.1f" % (name, lm, km, km - lm, em))


if __name__ == "__main__":
    main()
