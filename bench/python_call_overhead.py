#!/usr/bin/env python3
"""What a kiln.compile call costs over the compiled library's own time.

For a small MLP and for a tiny HF Qwen3 (training step: forward + backward),
times, alternating in one process, medians of --repeat rounds:

  library   the compiled functions called directly through ctypes on
            preallocated tensors (@model_forward then @model_backward);
  kiln      compiled(*inputs) then loss.backward() through torch autograd;

and prints kiln - library: the Python layer's overhead per training step
(argument checks, output and residual allocation, autograd). Needs the
venv of scripts/python-env.sh:

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


def loss_of(out):
    return out.loss if hasattr(out, "loss") else out[0] if isinstance(out, tuple) else out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    torch.set_num_threads(1)
    print("%-12s %12s %12s %12s" % ("model", "library us", "kiln us", "overhead us"))
    for name, model, xs, kw in cases():
        compiled = kiln.compile(model, xs, kw)
        prog = compiled._kiln
        # The direct path: the same library, tensors prepared once.
        entries = prog.arguments(xs, kw)
        prog._what = [w for _, w in entries]
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

        for f in (library, through_kiln):
            f()
        lib_t, kiln_t = [], []
        for _ in range(args.repeat):
            for f, ts in ((library, lib_t), (through_kiln, kiln_t)):
                t = time.perf_counter()
                f()
                ts.append(time.perf_counter() - t)
        lm, km = statistics.median(lib_t) * 1e6, statistics.median(kiln_t) * 1e6
        print("%-12s %12.1f %12.1f %12.1f" % (name, lm, km, km - lm))


if __name__ == "__main__":
    main()
