#!/usr/bin/env python3
"""Trains the transformer block for a few dozen Adam steps through a
kiln-compile'd examples/train_block.mlir and prints the loss at each step;
first, optionally, checks a sample of its gradients against central
differences of its own float64 loss.

Usage: scripts/train-aot.py LIB.so [--steps N] [--lr LR] [--seed N]
                            [--grad-check LIB64.so] [--grad-samples N]

@train_step(tokens, labels, 12 parameters, 12 m, 12 v, step, lr) returns the
loss, the 12 updated parameters, m, v and step + 1, which are fed back in;
m, v and step start at 0. The batch (2 sequences of 8 tokens in [0, 32),
2 labels in [0, 5)) is fixed and synthetic, so the loss must fall as the
block fits it. The parameters start like gen_block.py's (normal, scaled by
fan-in; norm weights near 1), from Python's seeded generator.

--grad-check takes the same file compiled in float64 (the demo replaces f32
by f64): on the same batch and initial parameters it calls
@loss_and_grads once and, for --grad-samples random parameter entries,
compares the gradient with (loss(p + h) - loss(p - h)) / 2h of @loss,
h = 1e-5 * max(1, |p|). It prints each pair and the largest relative error
|g - fd| / max(|g|, |fd|, 1e-6) and fails above 1e-6; then it runs one
float64 @train_step (from step 3, random m and v) and compares the new
parameters, m, v and step with Adam computed in Python from Kiln's
gradients, failing above a relative 1e-12. Standard library only (ctypes);
the buffer helpers are scripts/run-aot.py's.
"""
import argparse
import ctypes
import importlib.util
import math
import os
import random
import struct
import sys

spec = importlib.util.spec_from_file_location(
    "run_aot", os.path.join(os.path.dirname(os.path.abspath(__file__)), "run-aot.py"))
aot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(aot)

PARAMS = ["embed", "attn_norm", "wq", "wk", "wv", "wo", "ffn_norm",
          "w_gate", "w_up", "w_down", "final_norm", "w_head"]
NUM_PARAMS = len(PARAMS)


def initial_values(index, shape, rng):
    """Argument `index` of @loss: tokens, labels, then the parameters."""
    count = math.prod(shape)
    if index == 0:  # tokens
        return [float(rng.randrange(32)) for _ in range(count)]
    if index == 1:  # labels
        return [float(rng.randrange(5)) for _ in range(count)]
    if len(shape) == 1:  # RMSNorm weights
        return [1.0 + 0.1 * rng.gauss(0, 1) for _ in range(count)]
    scale = 1.0 if index == 2 else shape[0] ** -0.5  # embedding / fan-in
    return [scale * rng.gauss(0, 1) for _ in range(count)]


class Function:
    """One kiln_<name> entry point of a kiln-compile'd library."""

    def __init__(self, lib, name):
        signature = getattr(lib, f"kiln_{name}_signature")
        signature.restype = ctypes.c_char_p
        self.inputs, self.results = aot.parse_signature(signature().decode())
        self.function = getattr(lib, f"kiln_{name}")
        self.function.restype = ctypes.c_int
        self.name = name
        self.outputs = [ctypes.create_string_buffer(max(math.prod(s) * aot.SIZES[d], 1))
                        for d, s in self.results]

    def buffers(self, values):
        return [ctypes.create_string_buffer(aot.encode(d, v), max(len(v) * aot.SIZES[d], 1))
                for (d, _), v in zip(self.inputs, values)]

    def __call__(self, buffers):
        ins = (ctypes.c_void_p * len(buffers))(*[ctypes.addressof(b) for b in buffers])
        outs = (ctypes.c_void_p * len(self.outputs))(
            *[ctypes.addressof(b) for b in self.outputs])
        status = self.function(ins, outs)
        if status != 0:
            sys.exit(f"kiln_{self.name} returned {status}")

    def result(self, i):
        dtype, shape = self.results[i]
        return aot.decode(dtype, self.outputs[i].raw[:math.prod(shape) * aot.SIZES[dtype]])


def check_gradients(library, seed, samples):
    lib = ctypes.CDLL(os.path.abspath(library))
    loss, grads = Function(lib, "loss"), Function(lib, "loss_and_grads")
    assert len(loss.inputs) == 2 + NUM_PARAMS and loss.results[0][0] == "f64", \
        "--grad-check needs the f64 @loss"
    rng = random.Random(seed)
    values = [initial_values(i, s, rng) for i, (_, s) in enumerate(loss.inputs)]
    grads(grads.buffers(values))

    def loss_at(values):
        loss(loss.buffers(values))
        return loss.result(0)[0]

    pick = random.Random(seed + 1)
    print(f"gradient check (f64): {samples} random parameter entries, Kiln's "
          "gradient vs central difference of Kiln's loss")
    worst = 0.0
    for _ in range(samples):
        p = pick.randrange(NUM_PARAMS)
        shape = loss.inputs[2 + p][1]
        k = pick.randrange(math.prod(shape))
        g = grads.result(1 + p)[k]
        x = values[2 + p][k]
        h = 1e-5 * max(1.0, abs(x))
        plus = [list(v) for v in values]
        plus[2 + p][k] = x + h
        minus = [list(v) for v in values]
        minus[2 + p][k] = x - h
        fd = (loss_at(plus) - loss_at(minus)) / (2 * h)
        rel = abs(g - fd) / max(abs(g), abs(fd), 1e-6)
        worst = max(worst, rel)
        index = list(unravel(k, shape))
        print(f"  {PARAMS[p]:>10}{index!s:<9} kiln {g: .10e}  fd {fd: .10e}  rel err {rel:.1e}")
    print(f"max relative error {worst:.1e}")
    if not worst <= 1e-6:
        sys.exit("gradient check failed: relative error above 1e-6")
    check_adam(lib, values, grads, rng)


def check_adam(lib, values, grads, rng):
    """One f64 @train_step from step 3 with random moments against Adam
    computed here from Kiln's gradients (torch.optim.Adam's formula)."""
    step = Function(lib, "train_step")
    n, lr, b1, b2, eps, t0 = NUM_PARAMS, 0.01, 0.9, 0.999, 1e-8, 3.0
    m = [[0.01 * rng.gauss(0, 1) for _ in v] for v in values[2:]]
    v = [[1e-4 * rng.random() for _ in x] for x in values[2:]]
    step(step.buffers(values + m + v + [[t0], [lr]]))
    t = t0 + 1
    worst = 0.0
    for p in range(n):
        g = grads.result(1 + p)
        new_p, new_m, new_v = step.result(1 + p), step.result(1 + n + p), step.result(1 + 2 * n + p)
        for k, (x, gk) in enumerate(zip(values[2 + p], g)):
            mk = b1 * m[p][k] + (1 - b1) * gk
            vk = b2 * v[p][k] + (1 - b2) * gk * gk
            xk = x - lr / (1 - b1 ** t) * mk / (math.sqrt(vk) / math.sqrt(1 - b2 ** t) + eps)
            for got, want in ((new_p[k], xk), (new_m[k], mk), (new_v[k], vk)):
                worst = max(worst, abs(got - want) / max(abs(want), 1e-12))
    (t_out,) = step.result(1 + 3 * n)
    print(f"Adam step (f64, step {t0:g} -> {t_out:g}, random m, v): max relative "
          f"difference from the formula {worst:.1e}")
    if not (worst <= 1e-12 and t_out == t):
        sys.exit("Adam check failed")


def unravel(k, shape):
    index = []
    for size in reversed(shape):
        index.append(k % size)
        k //= size
    return reversed(index)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grad-check", metavar="LIB64.so")
    parser.add_argument("--grad-samples", type=int, default=8)
    opts = parser.parse_args()

    if opts.grad_check:
        check_gradients(opts.grad_check, opts.seed, opts.grad_samples)
        print()

    lib = ctypes.CDLL(os.path.abspath(opts.library))
    step = Function(lib, "train_step")
    n = NUM_PARAMS
    assert len(step.inputs) == 2 + 3 * n + 2 and len(step.results) == 1 + 3 * n + 1, \
        "unexpected @train_step"

    rng = random.Random(opts.seed)
    values = [initial_values(i, s, rng) for i, (_, s) in enumerate(step.inputs[:2 + n])]
    values += [[0.0] * math.prod(s) for _, s in step.inputs[2 + n:2 + 3 * n]]  # m, v
    values += [[0.0], [opts.lr]]  # step, lr
    buffers = step.buffers(values)

    losses = []
    print(f"training: Adam, lr {opts.lr}, {opts.steps} steps on a fixed synthetic batch")
    for i in range(opts.steps):
        step(buffers)
        (loss,) = step.result(0)
        losses.append(loss)
        print(f"step {i:3d}  loss {loss:.6f}")
        # The parameters, moments and step count become the next step's inputs.
        for k in range(3 * n + 1):
            ctypes.memmove(buffers[2 + k], step.outputs[1 + k], len(step.outputs[1 + k].raw))
    if not all(math.isfinite(x) for x in losses) or losses[-1] >= losses[0]:
        sys.exit(f"the loss did not fall: {losses[0]:.6f} -> {losses[-1]:.6f}")
    print(f"loss {losses[0]:.6f} -> {losses[-1]:.6f} in {opts.steps} steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
