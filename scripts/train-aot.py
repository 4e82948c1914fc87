#!/usr/bin/env python3
"""Trains the transformer block for a few dozen SGD steps through a
kiln-compile'd examples/train_block.mlir and prints the loss at each step.

Usage: scripts/train-aot.py LIB.so [--steps N] [--lr LR] [--seed N]

@train_step(tokens, labels, 12 parameters, lr) returns the loss and the 12
updated parameters, which are fed back in; the batch (2 sequences of 8 tokens
in [0, 32), 2 labels in [0, 5)) is fixed and synthetic, so the loss must fall
as the block fits it. The parameters start like gen_block.py's (normal, scaled
by fan-in; norm weights near 1), from Python's seeded generator. Standard
library only (ctypes); the buffer helpers are scripts/run-aot.py's.
"""
import argparse
import ctypes
import importlib.util
import math
import os
import random
import sys

spec = importlib.util.spec_from_file_location(
    "run_aot", os.path.join(os.path.dirname(os.path.abspath(__file__)), "run-aot.py"))
aot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(aot)


def initial_values(index, dtype, shape, rng):
    count = math.prod(shape)
    if index == 0:  # tokens
        return [float(rng.randrange(32)) for _ in range(count)]
    if index == 1:  # labels
        return [float(rng.randrange(5)) for _ in range(count)]
    if index == 14:  # lr, set by the caller
        return [0.0]
    if len(shape) == 1:  # RMSNorm weights
        return [1.0 + 0.1 * rng.gauss(0, 1) for _ in range(count)]
    scale = 1.0 if index == 2 else shape[0] ** -0.5  # embedding / fan-in
    return [scale * rng.gauss(0, 1) for _ in range(count)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--lr", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()

    lib = ctypes.CDLL(os.path.abspath(opts.library))
    signature = lib.kiln_train_step_signature
    signature.restype = ctypes.c_char_p
    input_specs, result_specs = aot.parse_signature(signature().decode())
    assert len(input_specs) == 15 and len(result_specs) == 13, "unexpected @train_step"

    rng = random.Random(opts.seed)
    values = [initial_values(i, dtype, shape, rng)
              for i, (dtype, shape) in enumerate(input_specs)]
    values[14] = [opts.lr]
    buffers = [ctypes.create_string_buffer(aot.encode(dtype, v), max(len(v) * aot.SIZES[dtype], 1))
               for (dtype, _), v in zip(input_specs, values)]
    outputs = [ctypes.create_string_buffer(max(math.prod(shape) * aot.SIZES[dtype], 1))
               for dtype, shape in result_specs]
    ins = (ctypes.c_void_p * len(buffers))(*[ctypes.addressof(b) for b in buffers])
    outs = (ctypes.c_void_p * len(outputs))(*[ctypes.addressof(b) for b in outputs])
    step = lib.kiln_train_step
    step.restype = ctypes.c_int

    losses = []
    for i in range(opts.steps):
        status = step(ins, outs)
        if status != 0:
            sys.exit(f"kiln_train_step returned {status}")
        (loss,) = aot.decode(result_specs[0][0], outputs[0].raw[:aot.SIZES[result_specs[0][0]]])
        losses.append(loss)
        print(f"step {i:3d}  loss {loss:.6f}")
        # The updated parameters become the next step's inputs.
        for k in range(12):
            ctypes.memmove(buffers[k + 2], outputs[k + 1], len(outputs[k + 1].raw))
    if not all(math.isfinite(x) for x in losses) or losses[-1] >= losses[0]:
        sys.exit(f"the loss did not fall: {losses[0]:.6f} -> {losses[-1]:.6f}")
    print(f"loss {losses[0]:.6f} -> {losses[-1]:.6f} in {opts.steps} steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
