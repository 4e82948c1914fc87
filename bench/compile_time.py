#!/usr/bin/env python3
"""Compile time of Hugging Face training graphs against their depth.

For each depth L (2, 4, 8, 24 by default) it builds a random-init Qwen3
(transformers' Qwen3Config: hidden size --hidden, intermediate 2x hidden,
4 heads, 2 kv heads, vocabulary 64, a 2x8 padded batch as in
python/tests/hf_models.py), exports it with torch.export, imports it with
kiln.importer (parameters lifted to arguments), raises attention and then

  AOT: `kiln-autodiff mode=split` (forward + backward, every parameter),
       `kiln-compile --mcpu native --time`: pipeline / LLVM / link times;
  JIT: `kiln-autodiff` combined (@loss_value_and_grad of @loss, the
       model's loss: @model inlined, its logits dropped),
       `kiln-run --time --mlir-timing --random-inputs`: the compile time,
       split into the kiln pipeline (the pass manager's total) and the rest
       (LLVM: translation, optimization, code generation, lookup), and the
       run time of one training step (best of --run-repeat).

Each time is the median of --repeat compiles. At the end it prints the
growth with depth: t(L) / t(L0) against L / L0 (linear growth gives the same
ratio), and the exponent k of t ~ L^k fitted between the smallest and the
largest depth.

Usage: bench/compile_time.py [--build-dir build] [--layers 2 4 8 24]
                             [--hidden 64] [--repeat 3] [--run-repeat 5]
                             [--modes aot jit] [--work-dir DIR]
                             [--python /root/.cache/kiln/venv/bin/python]
                             [--opt-level N] [--bin-dir DIR]

The graphs are made by --python (a Python with torch and transformers; the
rest of this script needs only the standard library) and cached in
--work-dir (default /tmp/kiln-compile-time), so a second run only compiles.
Another engineer's build on the same cores skews the times: the script
prints the load average before and after.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GRAPH_SCRIPT = r"""
import sys, torch
sys.path.insert(0, {python_dir!r}); sys.path.insert(0, {tests_dir!r})
from transformers import AutoModelForCausalLM, Qwen3Config
import hf_models
from kiln.importer import import_program
layers, hidden, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
cfg = Qwen3Config(vocab_size=hf_models.VOCAB, hidden_size=hidden,
                  intermediate_size=2 * hidden, num_hidden_layers=layers,
                  num_attention_heads=4, num_key_value_heads=2,
                  head_dim=hidden // 4, max_position_embeddings=64,
                  use_cache=False)
torch.manual_seed(0)
model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa").train()
program = torch.export.export(model, (), hf_models.make_batch(), strict=False)
with open(out, "w") as f:
    f.write(import_program(program, name="model").graph.dumps())
"""


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        sys.exit("command failed (%d): %s\n%s%s" % (
            proc.returncode, " ".join(cmd), proc.stdout[-4000:], proc.stderr[-4000:]))
    return proc


def load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def prepare(args, layers):
    """The split-mode and value_and_grad modules of an L-layer Qwen3."""
    stem = os.path.join(args.work_dir, "qwen3-h%d-l%d" % (args.hidden, layers))
    graph, imported = stem + ".json", stem + ".mlir"
    split, vag = stem + "-split.mlir", stem + "-vag.mlir"
    if not os.path.exists(graph):
        script = GRAPH_SCRIPT.format(python_dir=os.path.join(REPO, "python"),
                                     tests_dir=os.path.join(REPO, "python", "tests"))
        run([args.python, "-c", script, str(layers), str(args.hidden), graph + ".tmp"])
        os.replace(graph + ".tmp", graph)
    bin_dir = os.path.join(args.build_dir, "bin")
    if not os.path.exists(imported):
        run([os.path.join(bin_dir, "kiln-translate"), "--import-graph-json", graph,
             "--lift-parameters", "-o", imported])
    with open(imported) as f:
        header = f.readline() + f.readline()
    signature = header[header.index("@model("):]
    signature = signature[:signature.index("->")]
    arguments = re.findall(r"%arg(\d+): tensor<([^>]*)>( \{kiln\.parameter)?", signature)
    wrt = ",".join(i for i, _, p in arguments if p)
    integers = [i for i, t, _ in arguments if re.search(r"x?i(1|8|32|64)$", t)]
    opt = os.path.join(bin_dir, "kiln-opt")
    raise_ = ["--canonicalize", "--kiln-raise-attention", "--canonicalize"]
    if not os.path.exists(split):
        run([opt, imported] + raise_ + [
            "--kiln-autodiff=function=model mode=split wrt=" + wrt, "-o", split])
    if not os.path.exists(vag):
        # value_and_grad wants one scalar result: @loss returns @model's
        # first (the loss, the logits dropped), and @model, private, is
        # inlined into it.
        results = re.search(r"-> \(([^)]*)\)", header).group(1)
        types = ["tensor<%s>" % t for _, t, _ in arguments]
        params = ", ".join("%%a%s: %s" % (i, t) for (i, _, _), t in zip(arguments, types))
        names = ", ".join("%%a%s" % i for i, _, _ in arguments)
        with open(imported) as f:
            text = f.read().replace("func.func @model(", "func.func private @model(", 1)
        end = text.rindex("}")
        wrapper = ("  func.func @loss(%s) -> tensor<f32> {\n"
                   "    %%r:%d = call @model(%s) : (%s) -> (%s)\n"
                   "    return %%r#0 : tensor<f32>\n  }\n") % (
                       params, results.count("tensor<"), names, ", ".join(types), results)
        loss = stem + "-loss.mlir"
        with open(loss, "w") as f:
            f.write(text[:end] + wrapper + text[end:])
        run([opt, loss, "--inline"] + raise_ + ["--kiln-autodiff=function=loss wrt=" + wrt,
                                                "-o", vag])
    return split, vag, integers


def aot(args, split):
    times = []
    out = os.path.join(args.work_dir, "lib.so")
    for _ in range(args.repeat):
        start = time.monotonic()
        proc = run([os.path.join(args.bin_dir, "kiln-compile"), split, "-o", out,
                    "--mcpu", "native", "--time", "--opt-level", str(args.opt_level)])
        wall = time.monotonic() - start
        m = re.search(r"pipeline: ([\d.]+) ms, llvm: ([\d.]+) ms, link: ([\d.]+) ms",
                      proc.stdout)
        times.append((float(m.group(1)) / 1e3, float(m.group(2)) / 1e3,
                      float(m.group(3)) / 1e3, wall))
    return [statistics.median(t[i] for t in times) for i in range(4)]


def jit(args, vag, integers):
    cmd = [os.path.join(args.bin_dir, "kiln-run"), vag, "--entry",
           "loss_value_and_grad", "--random-inputs", "--seed", "0", "--time",
           "--repeat", str(args.run_repeat), "--mlir-timing",
           "--opt-level", str(args.opt_level)]
    # Token ids, attention mask and labels: ids in the vocabulary, a mask
    # of 0/1 (PyTorch's padded batch).
    for n, i in enumerate(integers):
        cmd += ["--random-range", "%s:%d:%d" % (i, 0, 2 if n == 1 else 64)]
    times = []
    for _ in range(args.repeat):
        proc = run(cmd)
        m = re.search(r"compile: ([\d.]+) ms, run: ([\d.]+) ms", proc.stdout)
        # --mlir-timing's report: the passes, and "Rest" (the time of the
        # root timer outside them: LLVM).
        total = re.search(r"Total Execution Time: ([\d.]+) seconds", proc.stderr)
        rest = re.search(r"^\s*([\d.]+) \(\s*[\d.]+%\)\s+Rest$", proc.stderr, re.M)
        compile_s, run_s = float(m.group(1)) / 1e3, float(m.group(2)) / 1e3
        pipeline = (float(total.group(1)) - float(rest.group(1))
                    if total and rest else float("nan"))
        times.append((pipeline, compile_s - pipeline, compile_s, run_s))
    return [statistics.median(t[i] for t in times) for i in range(4)]


def growth(name, depths, values):
    base_l, base = depths[0], values[0]
    ratios = "  ".join("L=%d: %.1fx" % (l, v / base) for l, v in zip(depths, values))
    k = (math.log(values[-1] / base) / math.log(depths[-1] / base_l)
         if len(depths) > 1 and base > 0 and values[-1] > 0 else float("nan"))
    print("  %-12s %s   (depth %.0fx; t ~ L^%.2f)" % (
        name, ratios, depths[-1] / base_l, k))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    parser.add_argument("--bin-dir", help="where kiln-compile and kiln-run are "
                        "(default: BUILD_DIR/bin; another build's to compare)")
    parser.add_argument("--layers", type=int, nargs="+", default=[2, 4, 8, 24])
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--run-repeat", type=int, default=5)
    parser.add_argument("--opt-level", type=int, default=2)
    parser.add_argument("--modes", nargs="+", choices=["aot", "jit"], default=["aot", "jit"])
    parser.add_argument("--work-dir", default="/tmp/kiln-compile-time")
    parser.add_argument("--python", default="/root/.cache/kiln/venv/bin/python")
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    args.build_dir = os.path.abspath(args.build_dir)
    args.bin_dir = os.path.abspath(args.bin_dir or os.path.join(args.build_dir, "bin"))

    print("Qwen3, hidden %d, depths %s, median of %d; %s" % (
        args.hidden, args.layers, args.repeat, load()))
    rows = {"aot": [], "jit": []}
    for layers in args.layers:
        split, vag, integers = prepare(args, layers)
        if "aot" in args.modes:
            p, l, k, w = aot(args, split)
            rows["aot"].append((p, l, k, w))
            print("L=%-3d AOT  pipeline %7.2f s  llvm %7.2f s  link %6.2f s  wall %7.2f s" % (
                layers, p, l, k, w), flush=True)
        if "jit" in args.modes:
            p, l, c, r = jit(args, vag, integers)
            rows["jit"].append((p, l, c, r))
            print("L=%-3d JIT  pipeline %7.2f s  llvm %7.2f s  compile %6.2f s  "
                  "run %8.3f ms" % (layers, p, l, c, r * 1e3), flush=True)
    print("growth with depth (%s):" % load())
    if rows["aot"]:
        growth("AOT llvm", args.layers, [r[1] for r in rows["aot"]])
        growth("AOT wall", args.layers, [r[3] for r in rows["aot"]])
    if rows["jit"]:
        growth("JIT compile", args.layers, [r[2] for r in rows["jit"]])
        growth("JIT run", args.layers, [r[3] for r in rows["jit"]])


if __name__ == "__main__":
    main()
