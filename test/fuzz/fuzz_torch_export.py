#!/usr/bin/env python3
"""Fuzzes kiln.importer with malformed torch.export programs.

torch.export only writes well-formed ATen graphs, but a program can be
edited, built by hand or come from another torch version, and the importer
promises one clean error for whatever it cannot import: a `kiln.KilnError`
(an `UnsupportedError` that lists the nodes), never another exception and
its traceback. This driver exports a few small modules (seeds: an MLP with
a cross-entropy loss, attention through SDPA and written out, mask and
position ops), then mutates their FX graphs in place, one to three edits per
mutant, imports each mutant and undoes the edits. The edits:

  value    a constant argument (int, float, bool, None, a list of ints)
           becomes another (0, -1, 2**62, nan, None, [], a string, ...)
  node     a tensor argument becomes another node of the graph, or a
           constant
  drop     the last positional argument is dropped
  extra    an argument is appended
  kwarg    a keyword argument (one of the schema's, or unknown) is set
  target   the ATen overload becomes another one of the seeds'
  meta     the node's `meta["val"]` is dropped, or gets another dtype,
           shape or rank

An import that returns, or raises a KilnError, is fine (the rejections by
the importer's last guard, "the importer failed on this node", are counted
apart and listed: each is a handler that trusted a malformed node, turned
into a clean error); any other exception is a finding: it is printed with the mutation and the innermost frame of
python/kiln, deduplicated by exception type and that frame. Exit code 1 when
there is a finding.

Usage: fuzz_torch_export.py [--mutants N] [--seed S] [--verbose]
(ctest `fuzz-torch-export` runs a fixed-seed slice; test/robustness/README.md
says how to run it long.)
"""
import argparse
import math
import os
import random
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from kiln.errors import KilnError  # noqa: E402
from kiln.importer import import_program  # noqa: E402


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.norm = torch.nn.LayerNorm(16)
        self.fc2 = torch.nn.Linear(16, 5)

    def forward(self, x, labels):
        h = self.norm(F.gelu(self.fc1(x), approximate="tanh"))
        logits = self.fc2(h).pow(2).rsqrt().tanh() * 3 - 1
        return F.cross_entropy(logits, labels, ignore_index=1, label_smoothing=0.1)


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.out = torch.nn.Linear(16, 16)

    def forward(self, x, mask):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).split(16, dim=-1)
        q, k, v = (t.view(b, s, 2, 8).transpose(1, 2) for t in (q, k, v))
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, None, :])
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(8)
        scores = scores.masked_fill(torch.triu(torch.ones(s, s, dtype=torch.bool), 1),
                                    float("-inf"))
        p = torch.softmax(scores, dim=-1)
        o2 = torch.matmul(p, v)
        y = (o + o2).transpose(1, 2).reshape(b, s, 16)
        return self.out(y).mean(dim=-1).sum()


class Positions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(10, 8)

    def forward(self, ids, keep):
        positions = torch.cumsum(keep.to(torch.int64), dim=-1) - 1
        positions = torch.where(keep, positions, torch.zeros_like(positions))
        h = self.embed(ids) + self.embed(positions.clamp(0, 9))
        h = torch.cat([h, h.flip(1)], dim=-1).permute(0, 2, 1).unsqueeze(0).squeeze(0)
        picked = h[:, :, torch.tensor([0, 2])]
        return F.log_softmax(picked, dim=1).amax(dim=-1).mean(), ids.ne(0).sum()


def seeds():
    torch.manual_seed(0)
    ids = torch.tensor([[1, 2, 3, 0], [4, 5, 0, 0]])
    cases = [
        (Mlp(), (torch.randn(4, 8), torch.tensor([0, 1, 4, 2]))),
        (Attention(), (torch.randn(2, 4, 16), torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]],
                                                           dtype=torch.bool))),
        (Positions(), (ids, ids != 0)),
    ]
    programs = []
    for module, args in cases:
        programs.append(torch.export.export(module.train(), args, strict=False))
    return programs


VALUES = [0, 1, -1, 2, 3, -7, 2**31, 2**62, -2**63, 0.5, -0.0, float("nan"),
          float("inf"), None, True, False, [], [0], [-1, 2], [2**40], "x",
          torch.float16, torch.int64]


def call_nodes(program):
    return [n for n in program.graph.nodes if n.op == "call_function"]


class Mutator:
    """Edits nodes of a program in place and remembers how to undo them."""

    def __init__(self, rng, program, targets):
        self.rng = rng
        self.program = program
        self.targets = targets
        self.undo = []
        self.log = []

    def set(self, node, field, value):
        if field == "meta":
            old = node.meta.get("val", _MISSING)
            self.undo.append(lambda: _restore_meta(node, old))
            if value is _MISSING:
                node.meta.pop("val", None)
            else:
                node.meta["val"] = value
            return
        old = getattr(node, field)
        self.undo.append(lambda: setattr(node, field, old))
        setattr(node, field, value)

    def restore(self):
        for undo in reversed(self.undo):
            undo()
        self.undo.clear()

    def mutate(self):
        nodes = call_nodes(self.program)
        node = self.rng.choice(nodes)
        kind = self.rng.choice(["value", "value", "node", "node", "drop", "extra",
                                "kwarg", "target", "meta", "meta"])
        getattr(self, "mutate_" + kind)(node, nodes)

    def mutate_value(self, node, nodes):
        spots = [i for i, a in enumerate(node.args)
                 if not isinstance(a, torch.fx.Node)
                 and not (isinstance(a, (list, tuple))
                          and any(isinstance(x, torch.fx.Node) for x in a))]
        if not spots:
            return self.mutate_extra(node, nodes)
        self.replace_arg(node, self.rng.choice(spots), self.rng.choice(VALUES))

    def replace_arg(self, node, i, value):
        args = list(node.args)
        args[i] = value
        self.log.append("%s: args[%d] %s -> %s" % (node.name, i, node.args[i], value))
        self.set(node, "args", tuple(args))

    def mutate_node(self, node, nodes):
        spots = [i for i, a in enumerate(node.args) if isinstance(a, torch.fx.Node)]
        if not spots:
            return self.mutate_value(node, nodes)
        i = self.rng.choice(spots)
        # Any other node, later ones too (a use before the value exists).
        others = [m for m in self.program.graph.nodes
                  if m is not node and m.op in ("placeholder", "call_function")]
        if others and self.rng.random() < 0.8:
            value = self.rng.choice(others)
        else:
            value = self.rng.choice(VALUES)
        self.replace_arg(node, i, value)

    def mutate_drop(self, node, nodes):
        if not node.args:
            return self.mutate_extra(node, nodes)
        self.log.append("%s: drop args[%d]" % (node.name, len(node.args) - 1))
        self.set(node, "args", tuple(node.args[:-1]))

    def mutate_extra(self, node, nodes):
        value = self.rng.choice(VALUES)
        self.log.append("%s: append %r" % (node.name, value))
        self.set(node, "args", tuple(node.args) + (value,))

    def mutate_kwarg(self, node, nodes):
        schema = getattr(node.target, "_schema", None)
        names = [a.name for a in schema.arguments] if schema else []
        name = self.rng.choice(names + ["bogus"])
        value = self.rng.choice(VALUES)
        self.log.append("%s: kwargs[%s] = %r" % (node.name, name, value))
        kwargs = dict(node.kwargs)
        kwargs[name] = value
        self.set(node, "kwargs", kwargs)

    def mutate_target(self, node, nodes):
        target = self.rng.choice(self.targets)
        self.log.append("%s: target %s -> %s" % (node.name, node.target, target))
        self.set(node, "target", target)

    def mutate_meta(self, node, nodes):
        val = node.meta.get("val")
        choice = self.rng.randrange(4)
        if choice == 0 or not isinstance(val, torch.Tensor):
            self.log.append("%s: drop meta['val']" % node.name)
            self.set(node, "meta", _MISSING)
            return
        shape = list(val.shape)
        dtype = val.dtype
        if choice == 1:
            dtype = self.rng.choice([torch.float32, torch.float64, torch.float16,
                                     torch.bfloat16, torch.int64, torch.int32,
                                     torch.bool, torch.complex64, torch.uint8])
        elif choice == 2 and shape:
            j = self.rng.randrange(len(shape))
            shape[j] = self.rng.choice([0, 1, shape[j] + 1, 2**40])
        else:
            shape = shape[:-1] if shape and self.rng.random() < 0.5 else shape + [3]
        try:
            new = torch.empty(shape, dtype=dtype, device="meta")
        except RuntimeError:  # torch refuses the shape (its bytes overflow)
            return
        self.log.append("%s: meta['val'] %s%s -> %s%s" % (node.name, val.dtype,
                                                         list(val.shape), dtype, shape))
        self.set(node, "meta", new)


_MISSING = object()
# The reason kiln.importer gives for a node it failed on (_internal_error).
GUARD = "the importer failed on this node"


def _restore_meta(node, old):
    if old is _MISSING:
        node.meta.pop("val", None)
    else:
        node.meta["val"] = old


def innermost_kiln_frame(tb):
    frames = [f for f in traceback.extract_tb(tb)
              if os.sep + "kiln" + os.sep in f.filename]
    if not frames:
        return "(no frame in kiln)"
    f = frames[-1]
    return "%s:%d (%s)" % (os.path.relpath(f.filename, ROOT), f.lineno, f.name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mutants", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    programs = seeds()
    targets = sorted({n.target for p in programs for n in call_nodes(p)
                      if isinstance(n.target, torch._ops.OpOverload)}, key=str)
    # The seeds import as they are.
    for p in programs:
        import_program(p)
    start = time.time()
    counts = {"imported": 0, "rejected": 0, "guarded": 0, "finding": 0}
    findings, guarded = {}, {}
    for i in range(args.mutants):
        program = programs[i % len(programs)]
        mutator = Mutator(rng, program, targets)
        for _ in range(rng.randint(1, 3)):
            mutator.mutate()
        try:
            import_program(program)
            counts["imported"] += 1
        except KilnError as e:
            counts["rejected"] += 1
            # Caught by the importer's last guard (a node it failed on):
            # clean, but counted apart, with one example per frame.
            for line in str(e).splitlines():
                if GUARD in line:
                    counts["guarded"] += 1
                    frame = line.split(", at ")[-1].split(")")[0]
                    guarded.setdefault(frame, (i, list(mutator.log), line.strip()))
                    break
        except Exception as e:  # a finding: the importer let it escape
            counts["finding"] += 1
            key = (type(e).__name__, innermost_kiln_frame(e.__traceback__))
            if key not in findings:
                findings[key] = (i, list(mutator.log), "".join(
                    traceback.format_exception(type(e), e, e.__traceback__)))
        finally:
            mutator.restore()
        if args.verbose:
            print(i, mutator.log)
    for (kind, frame), (i, log, text) in sorted(findings.items()):
        print("FINDING %s at %s (mutant %d: %s)\n%s" % (kind, frame, i, "; ".join(log), text))
    for frame, (i, log, line) in sorted(guarded.items()):
        print("guarded at %s (mutant %d: %s): %s" % (frame, i, "; ".join(log), line))
    print("fuzz-torch-export: %d mutants (seed %d) in %.1f s: %d imported, %d rejected "
          "with a KilnError (%d of them by the importer's guard, %d distinct frames), "
          "%d findings (%d distinct)" % (
              args.mutants, args.seed, time.time() - start, counts["imported"],
              counts["rejected"], counts["guarded"], len(guarded), counts["finding"],
              len(findings)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
