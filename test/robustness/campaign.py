#!/usr/bin/env python3
"""Crash-hunting campaign over kiln-opt's passes and pipelines, kiln-translate's
graph JSON import and export, and the tools' own inputs (offline; ctest runs
two small fixed-seed slices of it with --ctest: --kinds opt and --kinds tools).

Seeds are the kiln modules of the lit tests that verify (every `// -----`
chunk of roundtrip-*, canonicalize-*, Transforms/, Conversion/, Integration/,
Examples/, Pipelines/) and examples/*.mlir, plus each public function
rewritten into the autodiff entry forms (its first float result summed to a
rank-0 loss; a caller of `kiln.value_and_grad` on it). Jobs, in turn:

  IR mutants    one to three mutations (element types, ranks, `?` and zero
                dims, dims, attributes dropped/duplicated/swapped, array
                attributes, unit and bool attributes, attention attributes
                and GQA head counts, operands, function signatures, numbers;
                on a fifth of them the generic form, where properties change
                kind and operand or result counts change). Type
                inconsistencies that a mutation leaves are repaired from
                kiln-opt's own diagnostics, so that mutants reach the passes.
                `kiln-opt` alone must exit 0 or 1; a mutant that verifies
                goes through every entry of PIPELINES (the NVVM ones with
                format=isa or emulate, so no ptxas, and sampled).
  options       an unmutated seed through a pass or pipeline with mutated
                options (OPTION_VALUES: chips, PTX versions, wrt lists, ...).
  JSON mutants  graph JSON (test/Translate/Inputs, and every seed exported)
                mutated as JSON (values of other kinds, keys deleted, wrong
                nesting, huge numbers, shapes) into `--import-graph-json`.

The tool jobs (--kinds tools), in turn:

  run           kiln-run on a seed (a fifth of them mutated) with sampled
                options (--target, --opt-level, --repeat, --random-range,
                --output-dir writable or not, ...) and inputs: random, none,
                or .npy files of which some are broken (truncated, wrong
                dtype, shape or rank, bad magic, version, header length,
                descr, fortran_order, shape text or keys, missing, a
                directory, empty, /dev/zero).
  gpu_host      one to three kiln-gpu-* passes alone on a mutant (constants,
                memref types, lines, operands) of their input: the GPUHost
                lit tests and the IR that kiln-lower-to-nvvm (format=isa and
                emulate) hands each of them, dumped for some seeds with
                --mlir-print-ir-before.
  weights       --export-graph-json into a weights directory (writable or
                not, --graph-json-export-min-file-elements sampled), then
                --import-graph-json with some of its .npy files broken as
                above (or --lift-parameters, which reads none).
  compile       kiln-compile with sampled targets (cpu, cuda, cuda-emulator),
                --gpu-* values, --mcpu, --opt-level, --openmp, --cc, and
                outputs (-o, --header, --emit-object) writable or not.
  gpu_bin       kiln-lower-to-nvvm with format=bin or fatbin (ptxas and
                fatbinary run: slow, so one job in eight) and sampled chips,
                PTX versions, opt-levels and kernel options.

A tool job knows when its input was clearly bad; exit 0 then is a finding
("accepted: ..."), and so is exit 0 without the library, header or result
file the tool was asked to write. Crashes of upstream MLIR on IR that only a
mutation of its text reaches (UPSTREAM) are counted apart.

Anything but exit 0/1 (a signal, an abort, a fatal error's exit code), or an
"LLVM ERROR", "UNREACHABLE", "Assertion", or a stack dump in the output, or a
timeout, is a finding. Findings are deduplicated by the assertion / error
message and the innermost kiln frame of the stack, and written to OUT_DIR
(the smallest reproducer, its command and output per signature); the summary
also lists the most frequent rejections per pipeline.

  campaign.py --build BUILD_DIR [--budget SECONDS] [-j N] [--seed N]
              [--kinds opt|tools|all|JOB,...] [--out OUT_DIR]
  campaign.py --build BUILD_DIR --minimize FILE --pipeline NAME
              [--pass-args ARGS]   (shrinks a reproducer line by line,
                                    keeping its signature)

Each mutant draws from its own random.Random(seed, index), so a run with
--max-mutants is deterministic whatever -j is.
"""
import argparse
import collections
import copy
import functools
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

# name -> kiln-opt arguments. "autodiff-fn" is filled in per mutant.
PIPELINES = collections.OrderedDict([
    ("canonicalize", ["--canonicalize", "--cse"]),
    ("autodiff", ["--kiln-autodiff"]),
    ("autodiff-fn", None),
    ("decompose-attention", ["--kiln-decompose-attention"]),
    ("raise-attention", ["--kiln-raise-attention"]),
    ("raise-attention-empty-rows",
     ["--kiln-raise-attention=empty-rows-as-zero=true"]),
    ("kiln-to-linalg", ["--convert-kiln-to-linalg"]),
    ("lower-to-cpu", ["--kiln-lower-to-cpu"]),
    ("lower-to-cpu-omp",
     ["--kiln-lower-to-cpu=enable-openmp=true fuse-elementwise=false"]),
    ("graph-summary", ["--kiln-graph-summary=output=-"]),
    ("attention-to-gpu", ["--convert-kiln-attention-to-gpu"]),
    ("attention-to-gpu-simt",
     ["--convert-kiln-attention-to-gpu=tensor-cores=false"]),
    ("attention-to-gpu-pipe",
     ["--convert-kiln-attention-to-gpu=software-pipeline=true"]),
    ("attention-to-gpu-bwd-simt",
     ["--convert-kiln-attention-to-gpu=backward-tensor-cores=false"]),
    ("attention-to-gpu-deterministic",
     ["--convert-kiln-attention-to-gpu=deterministic=true"]),
    ("lower-to-nvvm", ["--kiln-lower-to-nvvm=format=isa"]),
    ("lower-to-nvvm-pipe",
     ["--kiln-lower-to-nvvm=format=isa software-pipeline=true "
      "tensor-cores=true"]),
    ("lower-to-nvvm-emulate", ["--kiln-lower-to-nvvm=emulate=true"]),
    ("export-graph-json", None),
])
# The NVVM pipelines run the NVPTX backend: a second or more per module.
SAMPLE = {"lower-to-cpu-omp": 0.2, "lower-to-nvvm": 0.25, "lower-to-nvvm-pipe": 0.1,
          "lower-to-nvvm-emulate": 0.1}

# ctest's small deterministic run (--ctest): fewer seeds, taken unchecked.
CTEST_SEED_GLOBS = [
    "test/Dialect/Kiln/roundtrip-*.mlir",
    "test/Transforms/DecomposeAttention/*.mlir",
    "examples/*.mlir",
]

SEED_GLOBS = [
    "test/Dialect/Kiln/roundtrip-*.mlir",
    "test/Dialect/Kiln/canonicalize-*.mlir",
    "test/Transforms/**/*.mlir",
    "test/Conversion/**/*.mlir",
    "test/Integration/**/*.mlir",
    "test/Examples/*.mlir",
    "test/Pipelines/**/*.mlir",
    "examples/*.mlir",
]

ELEMENT_TYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64"]
TENSOR = re.compile(r"tensor<((?:[0-9?]+x)*)([a-z][a-z0-9]*)>")
NUMBER = re.compile(r"(?<![%#\w.])-?\d+(\.\d+)?(e[+-]?\d+)?")
NUMBERS = ["0", "1", "-1", "2", "3", "7", "-5", "65", "4294967296",
           "9223372036854775807", "-9223372036854775808", "0.0", "1.0e+300",
           "-0.5", "1.0e-300"]
UNIT_ATTRS = ["causal"]
ATTENTION_ATTRS = {
    "window_left": ["-5", "-1", "0", "1", "2", "1000", "9223372036854775807"],
    "window_right": ["-5", "-1", "0", "1", "3", "1000"],
    "scale": ["0.0", "-1.0", "0.5", "1.0e+300", "1.0e-300"],
    "softcap": ["0.0", "-1.0", "30.0", "1.0e-30", "1.0e+300"],
    "dropout_p": ["0.0", "0.5", "1.0", "1.5", "-0.1", "0.999999"],
}
ATTR_TYPES = {"window_left": "i64", "window_right": "i64", "scale": "f64",
              "softcap": "f64", "dropout_p": "f64"}

# Crashes in upstream MLIR/LLVM on inputs that only the mutation of their
# textual IR reaches (no Kiln code involved): counted apart, reported to
# upstream rather than fixed here.
UPSTREAM = [
    # llvm.insertvalue/extractvalue with a position >= 2^32 crashes the LLVM
    # dialect's parser (getInsertExtractValueElementType).
    r"custom op parser 'llvm\.(insert|extract)value'",
]

CRASH_MARKERS = ["LLVM ERROR", "UNREACHABLE", "Assertion", "Stack dump",
                 "PLEASE submit a bug report", "Segmentation fault",
                 "terminate called"]


# ------------------------------------------------------------------ seeds


def split_chunks(text):
    for chunk in re.split(r"^// -----\s*$", text, flags=re.M):
        lines = [l for l in chunk.splitlines()
                 if not l.lstrip().startswith("//")]
        chunk = "\n".join(lines).strip() + "\n"
        if "kiln." in chunk and "func.func" in chunk:
            yield chunk


def body_end(text, open_brace):
    depth = 0
    for i in range(open_brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def loss_forms(chunk):
    """The autodiff entry forms of a seed's functions: @f returning the sum
    of its first floating-point result as a rank-0 loss, and a caller of
    `kiln.value_and_grad @f` with respect to its floating-point arguments."""
    for m in FUNC.finditer(chunk):
        name, args = m.group(1), split_top(m.group(2))
        if not m.group(3) or "private" in m.group(0):
            continue
        end = body_end(chunk, m.end() - 1)
        if end is None:
            continue
        body = chunk[m.end():end]
        r = list(re.finditer(r"^(\s*)(?:func\.)?return\s+(.*?)\s*:\s*(.*)$",
                             body, re.M))
        if len(r) != 1:
            continue
        r = r[0]
        values = [v.strip() for v in r.group(2).split(",")]
        types = split_top(r.group(3))
        floats = [(v, t) for v, t in zip(values, types)
                  if TENSOR.fullmatch(t) and
                  TENSOR.fullmatch(t).group(2).startswith(("f", "bf"))]
        if not floats:
            continue
        v, t = floats[0]
        tm = TENSOR.fullmatch(t)
        rank, elem = len(dims_of(tm)), tm.group(2)
        scalar = "tensor<%s>" % elem
        ind = r.group(1)
        if rank:
            axes = ", ".join(str(a) for a in range(rank))
            ret = ("%s%%fuzz_loss = kiln.sum %s {axes = array<i64: %s>} : "
                   "%s -> %s\n%sreturn %%fuzz_loss : %s" %
                   (ind, v, axes, t, scalar, ind, scalar))
        else:
            ret = "%sreturn %s : %s" % (ind, v, scalar)
        body = body[:r.start()] + ret + body[r.end():]
        fn = "func.func @%s(%s) -> %s {%s}" % (name, m.group(2), scalar,
                                               body)
        yield "module {\n" + fn + "\n}\n"
        arg_types = [a.split(":", 1)[1].strip() for a in args if ":" in a]
        if len(arg_types) != len(args):
            continue
        wrt = [i for i, a in enumerate(arg_types)
               if TENSOR.fullmatch(a.split(" {")[0]) and
               TENSOR.fullmatch(a.split(" {")[0]).group(2).startswith(
                   ("f", "bf"))]
        if not wrt:
            continue
        arg_types = [a.split(" {")[0] for a in arg_types]
        names = ", ".join("%%a%d" % i for i in range(len(args)))
        results = [scalar] + [arg_types[i] for i in wrt]
        caller = (
            "func.func @fuzz_caller(%s) -> (%s) {\n"
            "  %%r:%d = kiln.value_and_grad @%s(%s) {wrt = array<i64: %s>} "
            ": (%s) -> (%s)\n"
            "  return %s : %s\n}\n" % (
                ", ".join("%%a%d: %s" % (i, t)
                          for i, t in enumerate(arg_types)),
                ", ".join(results), len(results), name, names,
                ", ".join(str(i) for i in wrt), ", ".join(arg_types),
                ", ".join(results),
                ", ".join("%%r#%d" % i for i in range(len(results))),
                ", ".join(results)))
        yield "module {\n" + fn + "\n" + caller + "}\n"


def collect_seeds(src, kiln_opt, globs=SEED_GLOBS, check=True):
    """The seed modules; with `check`, only those kiln-opt accepts (else
    the mutants that stay invalid are merely rejected)."""
    seen, seeds = set(), []
    for pattern in globs:
        for path in sorted(glob.glob(os.path.join(src, pattern),
                                     recursive=True)):
            for chunk in split_chunks(open(path).read()):
                if chunk in seen:
                    continue
                seen.add(chunk)
                if check and subprocess.run(
                        [kiln_opt, "-", "-o", os.devnull],
                        input=chunk.encode(), capture_output=True,
                        timeout=60).returncode != 0:
                    continue
                rel = os.path.relpath(path, src)
                seeds.append((rel, chunk))
                for form in loss_forms(chunk):
                    if form in seen:
                        continue
                    seen.add(form)
                    if not check or subprocess.run(
                            [kiln_opt, "-", "-o", os.devnull],
                            input=form.encode(), capture_output=True,
                            timeout=60).returncode == 0:
                        seeds.append((rel + " (loss)", form))
    return seeds


# -------------------------------------------------------------- mutations


def pick(rng, seq):
    return seq[rng.randrange(len(seq))] if seq else None


def replace_span(text, m, new, group=0):
    return text[:m.start(group)] + new + text[m.end(group):]


def tensor_types(text):
    return list(TENSOR.finditer(text))


def make_tensor(dims, elem):
    return "tensor<" + "".join(d + "x" for d in dims) + elem + ">"


def dims_of(m):
    return [d for d in m.group(1).split("x") if d]


def mutate_type_everywhere(rng, text, fn):
    """Apply fn(dims, elem) to one tensor type: to this occurrence only or,
    more often, to every occurrence of the same type (so the IR stays
    consistent and the mutant reaches the passes)."""
    ms = tensor_types(text)
    m = pick(rng, ms)
    if m is None:
        return None
    new = fn(dims_of(m), m.group(2))
    if new is None:
        return None
    if rng.random() < 0.3:
        return replace_span(text, m, new)
    return text.replace(m.group(0), new)


def m_number(rng, text):
    ms = list(NUMBER.finditer(text))
    m = pick(rng, ms)
    return replace_span(text, m, pick(rng, NUMBERS)) if m else None


def m_element_type(rng, text):
    def fn(dims, elem):
        return make_tensor(dims, pick(rng, [t for t in ELEMENT_TYPES
                                            if t != elem]))
    return mutate_type_everywhere(rng, text, fn)


def m_element_type_all(rng, text):
    present = sorted({m.group(2) for m in tensor_types(text)})
    old = pick(rng, present)
    if old is None:
        return None
    new = pick(rng, [t for t in ELEMENT_TYPES if t != old])
    text = TENSOR.sub(lambda m: make_tensor(dims_of(m), new)
                      if m.group(2) == old else m.group(0), text)
    # Scalar constants of the old type follow along.
    return re.sub(r":\s*" + old + r"\b", ": " + new, text)


def m_rank_add(rng, text):
    def fn(dims, elem):
        d = list(dims)
        d.insert(rng.randint(0, len(d)), pick(rng, ["1", "2", "3"]))
        return make_tensor(d, elem)
    return mutate_type_everywhere(rng, text, fn)


def m_rank_drop(rng, text):
    def fn(dims, elem):
        if not dims:
            return None
        d = list(dims)
        del d[rng.randrange(len(d))]
        return make_tensor(d, elem)
    return mutate_type_everywhere(rng, text, fn)


def m_dim(name, value_choices):
    """A mutator that sets one dim of a type to one of `value_choices`."""
    def mut(rng, text):
        def fn(dims, elem):
            if not dims:
                return None
            d = list(dims)
            d[rng.randrange(len(d))] = pick(rng, value_choices)
            return make_tensor(d, elem)
        return mutate_type_everywhere(rng, text, fn)
    mut.__name__ = "m_" + name
    return mut


m_dynamic_dim = m_dim("dynamic_dim", ["?"])
m_zero_dim = m_dim("zero_dim", ["0"])
m_dim_value = m_dim("dim_value", ["1", "2", "3", "5", "7", "16", "65"])

# An op's attribute dictionary: `{...}` on one line, not a region.
ATTR_DICT = re.compile(r"(?<=[\s)>])\{([^{}\n]*)\}(?=\s*(?::|$|->|\)))",
                       re.M)


def split_top(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<[(":
            depth += 1
        elif ch in ">])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def m_attr_dict(rng, text):
    ms = [m for m in ATTR_DICT.finditer(text) if m.group(1).strip()]
    m = pick(rng, ms)
    if m is None:
        return None
    entries = split_top(m.group(1))
    action = pick(rng, ["drop", "dup", "swap", "dropall"])
    if action == "drop":
        del entries[rng.randrange(len(entries))]
    elif action == "dup":
        entries.append(pick(rng, entries))
    elif action == "swap" and len(entries) >= 2:
        i, j = rng.sample(range(len(entries)), 2)
        ki, _, vi = entries[i].partition("=")
        kj, _, vj = entries[j].partition("=")
        if vi and vj:
            entries[i] = ki.strip() + " = " + vj.strip()
            entries[j] = kj.strip() + " = " + vi.strip()
        else:
            entries[i], entries[j] = entries[j], entries[i]
    else:
        entries = []
    return replace_span(text, m, "{" + ", ".join(entries) + "}", 0)


def m_array_attr(rng, text):
    ms = list(re.finditer(r"= (array<i64(?::[^>]*)?>|\[[-0-9, ]*\])", text))
    m = pick(rng, ms)
    if m is None:
        return None
    vals = pick(rng, [[], [0], [1, 0], [0, 0], [5], [-1], [0, 1, 2, 3],
                      [2, 0, 1]])
    body = ", ".join(str(v) for v in vals)
    if m.group(1).startswith("array"):
        new = "array<i64" + (": " + body if vals else "") + ">"
    else:
        new = "[" + body + "]"
    return replace_span(text, m, new, 1)


def kiln_op_lines(text, name=r"kiln\.[a-z_]+"):
    return list(re.finditer(r"^(.*?=\s*)?(" + name + r")\b(.*)$", text,
                            re.M))


def set_attr(line_text, key, value):
    """Sets key = value (or the unit attribute key, value None) in the
    attribute dictionary of a one-line op, adding one if needed."""
    entry = key if value is None else key + " = " + value
    m = re.search(r"\{([^{}]*)\}(?=\s*:)", line_text)
    if m:
        entries = [e for e in split_top(m.group(1))
                   if e.split("=")[0].strip() != key]
        entries.append(entry)
        return line_text[:m.start()] + "{" + ", ".join(entries) + "}" + \
            line_text[m.end():]
    m = re.search(r"\s:\s", line_text)
    if not m:
        return None
    return line_text[:m.start()] + " {" + entry + "}" + line_text[m.start():]


def op_statements(text, name):
    """(start, end) of each statement of op `name`, which may continue on
    following lines up to its `: types` line."""
    out = []
    for m in re.finditer(r"^[^\n]*\b" + name + r"\b[^\n]*$", text, re.M):
        end = m.end()
        while ":" not in text[m.start():end] and end < len(text):
            nxt = text.find("\n", end + 1)
            end = len(text) if nxt < 0 else nxt
        out.append((m.start(), end))
    return out


def m_attention_attr(rng, text):
    stmts = op_statements(text, r"kiln\.attention(?:_grad)?")
    s = pick(rng, stmts)
    if s is None:
        return None
    stmt = text[s[0]:s[1]]
    # Join continuation lines so the dictionary sits before the types.
    flat = " ".join(l.strip() for l in stmt.splitlines())
    key = pick(rng, list(ATTENTION_ATTRS) + UNIT_ATTRS + ["alignment"])
    if key in UNIT_ATTRS:
        if re.search(r"\b" + key + r"\b", flat):
            new = re.sub(r",?\s*\b" + key + r"\b(?!\s*=)", "", flat)
            new = new.replace("{, ", "{").replace("{}", "")
        else:
            new = set_attr(flat, key, None)
    elif key == "alignment":
        new = set_attr(flat, key, "#kiln.alignment<" +
                       pick(rng, ["top_left", "bottom_right"]) + ">")
    else:
        new = set_attr(flat, key, pick(rng, ATTENTION_ATTRS[key]) + " : " +
                       ATTR_TYPES[key])
    if new is None:
        return None
    return text[:s[0]] + "  " + new.strip() + text[s[1]:]


def m_gqa_heads(rng, text):
    """Changes the head count (dim 1) of the key/value types of an
    attention op everywhere they occur."""
    stmts = op_statements(text, r"kiln\.attention(?:_grad)?")
    s = pick(rng, stmts)
    if s is None:
        return None
    stmt = text[s[0]:s[1]]
    types = [m for m in TENSOR.finditer(stmt) if len(dims_of(m)) == 4]
    if len(types) < 3:
        return None
    which = pick(rng, [[1], [2], [1, 2], [0]])
    for i in which:
        m = types[i]
        d = dims_of(m)
        d[1] = pick(rng, ["1", "2", "3", "4", "8"])
        text = text.replace(m.group(0), make_tensor(d, m.group(2)))
    return text


def m_unit_attr(rng, text):
    lines = kiln_op_lines(text)
    m = pick(rng, [l for l in lines if " : " in l.group(0)])
    if m is None:
        return None
    line = m.group(0)
    for key, val in [("keep_dims", "true"), ("keep_dims", "false"),
                     ("align_corners", "true"), ("ceil_mode", "true"),
                     ("count_include_pad", "false")]:
        if key in line:
            other = "false" if "= true" in line else "true"
            return replace_span(text, m, re.sub(
                key + r"\s*=\s*(true|false)", key + " = " + other, line))
    new = set_attr(line, pick(rng, UNIT_ATTRS), None)
    return replace_span(text, m, new) if new else None


SSA_LIST = re.compile(r"(?<=kiln\.)([a-z_]+)\s+(%[\w#:]+(?:\s*,\s*%[\w#:]+)*)")


def m_operands(rng, text):
    ms = list(SSA_LIST.finditer(text)) + \
        list(re.finditer(r"(func\.call|return)\s+@?[\w]*\(?(%[\w#:]+(?:\s*,\s*%[\w#:]+)*)", text))
    m = pick(rng, ms)
    if m is None:
        return None
    ops = [o.strip() for o in m.group(2).split(",")]
    all_values = sorted(set(re.findall(r"%[\w]+", text)))
    action = pick(rng, ["swap", "dup", "drop", "other"])
    if action == "swap" and len(ops) >= 2:
        i, j = rng.sample(range(len(ops)), 2)
        ops[i], ops[j] = ops[j], ops[i]
    elif action == "dup" and len(ops) >= 2:
        ops[rng.randrange(len(ops))] = pick(rng, ops)
    elif action == "drop" and len(ops) >= 2:
        del ops[rng.randrange(len(ops))]
    else:
        ops[rng.randrange(len(ops))] = pick(rng, all_values)
    return replace_span(text, m, ", ".join(ops), 2)


FUNC = re.compile(r"func\.func\s+(?:private\s+)?@(\w+)\((.*?)\)(\s*->\s*"
                  r"(\([^{]*?\)|[^{(]+?))?\s*(?:attributes\s*\{[^}]*\}\s*)?\{",
                  re.S)


def m_signature(rng, text):
    ms = list(FUNC.finditer(text))
    m = pick(rng, ms)
    if m is None:
        return None
    action = pick(rng, ["drop-result", "add-arg", "drop-arg", "result-type",
                        "return-operand", "no-results"])
    if action == "add-arg":
        args = m.group(2).strip()
        extra = "%fuzz_extra: " + pick(rng, ["tensor<2x3xf32>", "tensor<f32>",
                                             "tensor<0xf16>", "i64"])
        return replace_span(text, m, (args + ", " if args else "") + extra, 2)
    if action == "drop-arg":
        args = split_top(m.group(2))
        if not args:
            return None
        del args[rng.randrange(len(args))]
        return replace_span(text, m, ", ".join(args), 2)
    if action in ("drop-result", "result-type", "no-results") and m.group(3):
        res = m.group(4).strip()
        inner = res[1:-1] if res.startswith("(") else res
        results = split_top(inner)
        if action == "no-results":
            return replace_span(text, m, "", 3)
        if action == "drop-result" and results:
            del results[rng.randrange(len(results))]
        elif results:
            i = rng.randrange(len(results))
            results[i] = pick(rng, ["tensor<f32>", "tensor<2x3xf64>",
                                    "tensor<?x4xf32>", "i32"])
        return replace_span(text, m, " -> (" + ", ".join(results) + ")", 3)
    # Return another value of the function body.
    rets = list(re.finditer(r"return\s+(%[\w#]+)", text))
    r = pick(rng, rets)
    values = re.findall(r"(%[\w]+)\s*=", text)
    if r is None or not values:
        return None
    return replace_span(text, r, pick(rng, values), 1)


# Generic-form mutations: the custom parsers' checks do not apply, so the
# verifiers and type inference meet missing or ill-kinded properties and
# wrong operand or result counts.
GENERIC_OP = re.compile(r'"(kiln\.[a-z_0-9]+)"\(([^)]*)\)\s*(<\{(.*?)\}>)?'
                        r'(.*?):\s*\(([^)]*)\)\s*->\s*(\([^)]*\)|\S+)$', re.M)
PROPERTY_VALUES = ["0 : i64", "-1 : i64", "1 : i32", "unit", '"x"',
                   "array<i64>", "array<i64: 0, 0, 0>", "array<i32: 1>",
                   "[1, 2]", "1.0 : f32", "2.5 : f64", "true", "false",
                   "#kiln.alignment<top_left>", "dense<1.0> : tensor<2xf32>",
                   "{}", "@f"]


def g_properties(rng, text):
    ms = list(GENERIC_OP.finditer(text))
    m = pick(rng, ms)
    if m is None:
        return None
    entries = split_top(m.group(4) or "")
    action = pick(rng, ["drop", "kind", "kind", "add", "segments"])
    if action == "drop" and entries:
        del entries[rng.randrange(len(entries))]
    elif action == "kind" and entries:
        i = rng.randrange(len(entries))
        entries[i] = entries[i].split("=")[0].strip() + " = " + \
            pick(rng, PROPERTY_VALUES)
    elif action == "segments":
        seg = [e for e in entries if e.startswith("operandSegmentSizes")]
        if not seg:
            return None
        vals = re.findall(r"-?\d+", seg[0].split(":", 1)[1])
        vals[rng.randrange(len(vals))] = pick(rng, ["0", "1", "2", "-1"])
        entries[entries.index(seg[0])] = \
            "operandSegmentSizes = array<i32: " + ", ".join(vals) + ">"
    else:
        entries.append(pick(rng, ["axes", "axis", "causal", "scale",
                                  "keep_dims", "window_left", "wrt",
                                  "callee", "value", "shape", "perm"]) +
                       " = " + pick(rng, PROPERTY_VALUES))
    new = "<{" + ", ".join(entries) + "}>"
    if m.group(3):
        return replace_span(text, m, new, 3)
    return text[:m.end(2) + 1] + " " + new + text[m.end(2) + 1:]


def g_operands(rng, text):
    """Drops or duplicates an operand together with its type, so the op
    parses and reaches its verifier with the wrong operand count."""
    ms = [m for m in GENERIC_OP.finditer(text) if m.group(2).strip()]
    m = pick(rng, ms)
    if m is None:
        return None
    ops = [o.strip() for o in m.group(2).split(",")]
    types = split_top(m.group(6))
    if len(ops) != len(types):
        return None
    i = rng.randrange(len(ops))
    if rng.random() < 0.5 or len(ops) == 1:
        ops.insert(i, ops[i])
        types.insert(i, types[i])
    else:
        del ops[i], types[i]
    start, end = m.start(2), m.end(6)
    middle = text[m.end(2):m.start(6)]
    return text[:start] + ", ".join(ops) + middle + ", ".join(types) + \
        text[end:]


def g_results(rng, text):
    """Adds or drops a result (and its type)."""
    ms = list(re.finditer(r"^(\s*)(%[\w]+)(:\d+)? = (\"kiln\.[^\n]*->\s*)"
                          r"(\([^)]*\)|\S+)$", text, re.M))
    m = pick(rng, ms)
    if m is None:
        return None
    res = m.group(5)
    types = split_top(res[1:-1] if res.startswith("(") else res)
    n = int(m.group(3)[1:]) if m.group(3) else 1
    if rng.random() < 0.5:
        types.append(types[-1])
        n += 1
    elif n > 1:
        types.pop()
        n -= 1
    else:
        return None
    name = m.group(2) + (":%d" % n if n > 1 else "")
    return text[:m.start(2)] + name + " = " + m.group(4) + "(" + \
        ", ".join(types) + ")" + text[m.end(5):]


MUTATORS = [
    (m_number, 3), (m_element_type, 3), (m_element_type_all, 3),
    (m_rank_add, 2), (m_rank_drop, 2), (m_dynamic_dim, 1), (m_zero_dim, 3),
    (m_dim_value, 3), (m_attr_dict, 3), (m_array_attr, 2),
    (m_attention_attr, 4), (m_gqa_heads, 2), (m_unit_attr, 2),
    (m_operands, 3), (m_signature, 2),
]
GENERIC_MUTATORS = [(g_properties, 4), (g_operands, 2), (g_results, 1),
                    (m_element_type, 1), (m_rank_drop, 1), (m_zero_dim, 1)]


def mutate(rng, text, mutators=MUTATORS):
    names = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        for _attempt in range(10):
            fn = rng.choices([f for f, _ in mutators],
                             [w for _, w in mutators])[0]
            new = fn(rng, text)
            if new is not None and new != text:
                text = new
                names.append(fn.__name__[2:])
                break
    return text, names


ERROR = re.compile(r"<stdin>:(\d+):(\d+): error: (.*)")


def statement_lines(lines, i):
    """Line indices of the statement starting at line i (up to the line
    holding its `: types`)."""
    j = i
    while j < len(lines) - 1 and " : " not in lines[j] and \
            not lines[j].rstrip().endswith(":") and j < i + 4:
        j += 1
    if lines[j].rstrip().endswith(":") or (j + 1 < len(lines) and
                                          lines[j + 1].lstrip().startswith(
                                              "->")):
        j += 1
    return list(range(i, min(j + 1, len(lines))))


def repair_once(text, stderr):
    """Undoes the type inconsistency that a mutation leaves behind, from
    kiln-opt's first diagnostic: an op's result types become the inferred
    ones, a use takes its value's type, a function its returned types. This
    lets the mutants that only changed a type reach the passes."""
    m = ERROR.search(stderr)
    if not m:
        return None
    line, msg = int(m.group(1)) - 1, m.group(3)
    lines = text.split("\n")
    if line >= len(lines):
        return None
    r = re.search(r"inferred type\(s\) (.*) are incompatible with return "
                  r"type\(s\) of operation (.*)$", msg)
    if r:
        new = ", ".join(t.strip("'") for t in split_top(r.group(1)))
        old = ", ".join(t.strip("'") for t in split_top(r.group(2)))
        idx = statement_lines(lines, line)
        stmt = "\n".join(lines[k] for k in idx)
        pos = stmt.rfind(old)
        if pos < 0:
            return None
        stmt = stmt[:pos] + new + stmt[pos + len(old):]
        return "\n".join(lines[:idx[0]] + stmt.split("\n") +
                         lines[idx[-1] + 1:])
    r = re.search(r"use of value '(%[\w#]+)' expects different type than "
                  r"prior uses: '(.*)' vs '(.*)'", msg)
    if r:
        use_t, def_t = r.group(2), r.group(3)
        col = int(m.group(2)) - 1
        idx = statement_lines(lines, line)
        stmt = "\n".join(lines[k] for k in idx)
        # The value's position among the operands picks the type.
        before = lines[line][:col]
        k = len(re.findall(r"%[\w#]+", before[before.find("=") + 1:])) \
            if "=" in before else len(re.findall(r"%[\w#]+", before))
        colon = stmt.find(" : ")
        occ = [x.start() for x in re.finditer(re.escape(use_t), stmt)
               if x.start() > colon]
        if not occ:
            return None
        pos = occ[min(k, len(occ) - 1)]
        stmt = stmt[:pos] + def_t + stmt[pos + len(use_t):]
        return "\n".join(lines[:idx[0]] + stmt.split("\n") +
                         lines[idx[-1] + 1:])
    r = re.search(r"type of return operand (\d+) \('(.*)'\) doesn't match "
                  r"function result type \('(.*)'\)", msg)
    if r:
        n, got, want = int(r.group(1)), r.group(2), r.group(3)
        for k in range(line, -1, -1):
            h = FUNC.search(lines[k])
            if h and h.group(4):
                results = split_top(h.group(4).strip().strip("()"))
                if n >= len(results) or results[n] != want:
                    return None
                results[n] = got
                lines[k] = lines[k][:h.start(3)] + " -> (" + \
                    ", ".join(results) + ")" + lines[k][h.end(3):]
                return "\n".join(lines)
    return None


# --------------------------------------------------------- JSON mutations


def json_paths(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from json_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from json_paths(v, path + (i,))


JSON_VALUES = [None, True, False, 0, -1, 1, 3, 2**31, 2**63, -2**63, 2**64,
               10**30, 1e308, -1e308, 0.5, "", "f32", "x", "nan", "inf",
               [], [0], [1, 2], [[1]], {}, {"a": 1}, [-1, 2], [0, 3],
               [2**40, 2**40]]


def mutate_json(rng, doc):
    doc = copy.deepcopy(doc)
    names = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        paths = [p for p, _ in json_paths(doc) if p]
        # Mostly the graph's structure, not the elements of weight data.
        structural = [p for p in paths if "data" not in p[:-1]]
        if not paths:
            break
        path = pick(rng, structural if structural and rng.random() < 0.9
                    else paths)
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        current = parent[path[-1]]
        action = pick(rng, ["value", "delete", "wrap", "dup", "number",
                            "number", "string", "string", "shape", "shape"])
        if action == "delete":
            del parent[path[-1]]
        elif action == "wrap":
            parent[path[-1]] = pick(rng, [[current], {"x": current}])
        elif action == "dup" and isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(current))
        elif action == "number" and isinstance(current, (int, float)) and \
                not isinstance(current, bool):
            parent[path[-1]] = pick(rng, [0, -1, 2**63 - 1, 2**63, -2**63,
                                          1e308, current + 1, current * 1000,
                                          0.5])
        elif action == "string" and isinstance(current, str):
            parent[path[-1]] = pick(rng, ["", "f16", "bf16", "i1", "x:0",
                                          current + ":7", current + ":-1",
                                          "attention", "nope", "causal",
                                          current[:-1]])
        elif action == "shape" and isinstance(current, list) and \
                all(isinstance(x, int) for x in current):
            parent[path[-1]] = pick(rng, [[], [0], current + [2],
                                          current[:-1], [-1] + current[1:],
                                          [2**40] * len(current)])
        else:  # a copy: later mutations must not edit JSON_VALUES
            parent[path[-1]] = copy.deepcopy(pick(rng, JSON_VALUES))
        names.append(action)
    return doc, names


# ---------------------------------------------------------- classification


def classify(rc, output, timed_out):
    """None when the run is fine; else the finding's signature."""
    if timed_out:
        return "timeout"
    crashed = rc not in (0, 1) or any(m in output for m in CRASH_MARKERS)
    if not crashed:
        return None
    message = None
    for pattern in [r"Assertion `(.*?)' failed", r"LLVM ERROR: (.*)",
                    r"UNREACHABLE executed at (.*)",
                    r"terminate called (.*)"]:
        m = re.search(pattern, output)
        if m:
            message = m.group(1).strip()
            break
    if message is None:
        message = "signal %d" % -rc if rc < 0 else "exit code %d" % rc
    message = re.sub(r"0x[0-9a-f]+", "0x?", message)
    # The innermost frame in Kiln's code names where it happened.
    frame = None
    for line in output.splitlines():
        m = re.match(r"\s*#\d+ 0x[0-9a-f]+ (.*?)(?: \(/.*\))?$", line)
        if m and ("kiln" in m.group(1).lower()) and \
                "PrettyStackTrace" not in m.group(1) and \
                "SignalHandler" not in m.group(1):
            frame = re.sub(r"\(.*", "", m.group(1)).strip()
            frame = re.sub(r"^.*?(mlir::|\(anonymous)", r"\1", frame)
            break
    return message + (" @ " + frame if frame else "")


class Runner:
    def __init__(self, args):
        self.kiln_opt = args.kiln_opt or os.path.join(args.build, "bin",
                                                      "kiln-opt")
        self.kiln_translate = args.kiln_translate or os.path.join(
            args.build, "bin", "kiln-translate")
        self.kiln_run = args.kiln_run or os.path.join(args.build, "bin",
                                                      "kiln-run")
        self.kiln_compile = args.kiln_compile or os.path.join(
            args.build, "bin", "kiln-compile")
        self.timeout = args.timeout
        self.env = dict(os.environ)
        sym = "/usr/lib/llvm-22/bin/llvm-symbolizer"
        if os.path.exists(sym):
            self.env["LLVM_SYMBOLIZER_PATH"] = sym

    def run(self, cmd, text):
        start = time.time()
        for attempt in range(5):
            try:
                p = subprocess.run(cmd, input=text.encode(),
                                   capture_output=True, timeout=self.timeout,
                                   env=self.env)
                out = (p.stdout[-4000:] + p.stderr).decode(errors="replace")
                return p.returncode, out, False, time.time() - start
            except subprocess.TimeoutExpired:
                return -1, "", True, time.time() - start
            except OSError:  # the binary is being relinked
                time.sleep(2)
        raise RuntimeError("cannot run " + cmd[0])


# Pass and pipeline options, valid and not: kiln-opt must reject the bad
# ones with a diagnostic, never crash on them.
OPTION_VALUES = {
    "kiln-lower-to-nvvm": {
        "chip": ["sm_90", "sm_80", "sm_75", "sm_70", "sm_50", "sm_20",
                 "sm_90a", "sm_100", "sm_120", "", "garbage", "sm_1000",
                 "compute_90"],
        "features": ["+ptx80", "+ptx60", "+ptx78", "+ptx86", "+ptx88", "",
                     "+ptx99", "garbage"],
        "opt-level": ["0", "2", "3", "-1", "99"],
        "format": ["isa"] * 8 + ["garbage"],
        "tensor-cores": ["true", "false"],
        "deterministic": ["false", "false", "true"],
        "software-pipeline": ["auto", "on", "off", "true", "false"],
        "forward-min-blocks-per-sm": ["0", "0", "4", "32", "33", "-1"],
        "backward-min-blocks-per-sm": ["0", "0", "3", "32", "33", "-1"],
        "emulate": ["false"] * 3 + ["true"],
    },
    "convert-kiln-attention-to-gpu": {
        "tensor-cores": ["true", "false"],
        "backward-tensor-cores": ["true", "false"],
        "deterministic": ["true", "false"],
        "software-pipeline": ["auto", "on", "off", "true", "false"],
        "forward-min-blocks-per-sm": ["0", "0", "4", "32", "33", "-1"],
        "backward-min-blocks-per-sm": ["0", "0", "3", "32", "33", "-1"],
    },
    "kiln-lower-to-cpu": {
        "enable-openmp": ["true", "false"],
        "fuse-elementwise": ["true", "false"],
    },
    "kiln-autodiff": {
        "function": ["", "nope", "@f"],
        "wrt": ["0", "1", "-1", "0,0", "9223372036854775807", "1,0"],
        "mode": ["combined", "split"],
        "remat": ["save-all", "recompute-attention",
                  "recompute-elementwise"],
        "print-residuals": ["true", "false"],
    },
}


def option_cmd(rng, kiln_opt, text):
    name = pick(rng, sorted(OPTION_VALUES))
    opts = []
    for key, values in sorted(OPTION_VALUES[name].items()):
        if rng.random() < 0.6:
            value = pick(rng, values)
            if key == "function" and rng.random() < 0.7:
                value = pick(rng, func_names(text) or ["f"])
            opts.append("%s=%s" % (key, value))
    return name, [kiln_opt, "-", "--%s=%s" % (name, " ".join(opts)),
                  "-o", os.devnull]


def func_names(text):
    return re.findall(r"func\.func\s+(?:public\s+)?@(\w+)", text)


def pipeline_cmds(rng, runner, text):
    """(name, command) of each entry of PIPELINES that this mutant runs."""
    cmds = []
    for name, args in PIPELINES.items():
        if rng.random() > SAMPLE.get(name, 1.0):
            continue
        if name == "autodiff" and "value_and_grad" not in text:
            continue
        if name == "autodiff-fn":
            fns = re.findall(r"func\.func\s+@(\w+)\([^{]*?\)\s*->\s*"
                             r"\(?tensor<b?f\d+>\)?\s*\{", text) or \
                func_names(text)
            if not fns:
                continue
            opt = "function=" + pick(rng, fns)
            opt += " mode=" + pick(rng, ["combined", "split"])
            opt += " remat=" + pick(rng, ["save-all", "recompute-attention",
                                          "recompute-elementwise"])
            if rng.random() < 0.3:
                opt += " wrt=" + pick(rng, ["0", "1", "0,1", "5"])
            if rng.random() < 0.3:
                opt += " print-residuals"
            cmds.append((name, [runner.kiln_opt, "-",
                                "--kiln-autodiff=" + opt, "-o", os.devnull]))
            continue
        if name == "export-graph-json":
            cmds.append((name, [runner.kiln_translate, "-",
                                "--export-graph-json", "-o", os.devnull]))
            continue
        cmds.append((name, [runner.kiln_opt, "-"] + args +
                     ["-o", os.devnull]))
    return cmds


# ------------------------------------------------------------- tool jobs
#
# The tools' own inputs: kiln-run's options and .npy files, kiln-compile's
# options and output paths, the GPU formats that run ptxas, the kiln-gpu-*
# host passes alone, and graph JSON export/import through a weights
# directory. Besides crashes, each job knows when its input was clearly bad
# (a truncated .npy, an unwritable output, an out-of-range option): exit 0
# then is a finding too ("accepted: ..."), and so is exit 0 without the
# output file the tool was asked to write.

DTYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64"]
NPY_DESCR = {"f16": "<f2", "bf16": "<V2", "f32": "<f4", "f64": "<f8",
             "i1": "|b1", "i8": "|i1", "i32": "<i4", "i64": "<i8"}
NPY_SIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1,
            "i32": 4, "i64": 8}


def shape_tuple(dims):
    if len(dims) == 1:
        return "(%d,)" % dims[0]
    return "(" + ", ".join(str(d) for d in dims) + ")"


def npy_bytes(elem, dims, descr=None, fortran="False", shape=None,
              version=1, data=None, header=None):
    """A .npy file (NumPy format 1.0 or 2.0), by hand: the ctest's Python
    need not have numpy."""
    if header is None:
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
            NPY_DESCR[elem] if descr is None else descr, fortran,
            shape or shape_tuple(dims))
    lenbytes = 2 if version == 1 else 4
    total = -(-(10 + len(header) + 1 + lenbytes - 2) // 64) * 64
    header = header + " " * (total - (8 + lenbytes + len(header) + 1)) + "\n"
    n = 1
    for d in dims:
        n *= d
    if data is None:
        data = bytes(n * NPY_SIZE[elem])
    return (b"\x93NUMPY" + bytes([version, 0]) +
            len(header).to_bytes(lenbytes, "little") + header.encode() +
            data)


def mutate_npy(rng, elem, dims):
    """(kind, file bytes or a special marker, bad): one argument's .npy
    file, valid or broken in one way; `bad` when a reader must reject it
    (for the declared type elem[dims])."""
    good = npy_bytes(elem, dims)
    kind = pick(rng, ["ok", "ok", "ok", "v2", "dtype", "shape", "rank",
                      "truncate", "extra", "magic", "version", "header-len",
                      "descr", "fortran", "shape-text", "keys", "missing",
                      "dir", "empty", "dev-zero", "header-junk"])
    if kind == "ok":
        return kind, good, False
    if kind == "v2":
        return kind, npy_bytes(elem, dims, version=2), False
    if kind == "dtype":
        other = pick(rng, [d for d in DTYPES if d != elem])
        return kind, npy_bytes(other, dims), True
    if kind == "shape":
        if not dims:
            return kind, npy_bytes(elem, [2]), True
        d = list(dims)
        d[rng.randrange(len(d))] += pick(rng, [1, 2, 7])
        return kind, npy_bytes(elem, d), True
    if kind == "rank":
        return kind, npy_bytes(elem, list(dims) + [1]), True
    if kind == "truncate":
        cut = rng.randrange(len(good))
        return kind, good[:cut], True
    if kind == "extra":
        return kind, good + bytes(pick(rng, [1, 3, 64])), True
    if kind == "magic":
        b = bytearray(good)
        b[rng.randrange(6)] ^= 0x20
        return kind, bytes(b), True
    if kind == "version":
        b = bytearray(good)
        b[6] = pick(rng, [0, 4, 9, 255])
        return kind, bytes(b), True
    if kind == "header-len":
        b = bytearray(good)
        b[8:10] = pick(rng, [b"\xff\xff", b"\x00\x00", b"\x01\x00"])
        return kind, bytes(b), True
    if kind == "descr":
        descr = pick(rng, [">f4", "<c8", "|O", "", "<f", "<U4", "f4",
                           "<f16", "<i2", "<u4", "<V4", "=f8", "|b2"])
        return kind, npy_bytes(elem, dims, descr=descr), \
            descr not in ("=f8",) or elem != "f64"
    if kind == "fortran":
        value = pick(rng, ["True", "1", "false", "None"])
        return kind, npy_bytes(elem, dims, fortran=value), \
            value != "True" or len(dims) > 1
    if kind == "shape-text":
        text = pick(rng, ["(-1, 3)", "(%d,)" % 2**70, "(3, 'a')", "[2, 3]",
                          "(,)", "()", "(2 3)", "(" + "1, " * 40 + ")",
                          "(4611686018427387904, 4)", "(0,)",
                          "(%s)" % ", ".join("%dL" % d for d in dims)])
        ok = text == "(%s)" % ", ".join("%dL" % d for d in dims) and \
            len(dims) != 1
        return kind, npy_bytes(elem, dims, shape=text), not ok
    if kind == "keys":
        header = pick(rng, [
            "{'descr': '%s', 'shape': %s, }" % (NPY_DESCR[elem],
                                                 shape_tuple(dims)),
            "{'descr': '%s', 'fortran_order': False, 'shape': %s, "
            "'extra': 1}" % (NPY_DESCR[elem], shape_tuple(dims)),
            "{'descr': '%s' 'fortran_order': False, 'shape': %s}" % (
                NPY_DESCR[elem], shape_tuple(dims)),
            "{'descr': '%s', 'fortran_order': False, 'shape': %s" % (
                NPY_DESCR[elem], shape_tuple(dims)),
            "{'descr': ['<f4'], 'fortran_order': False, 'shape': %s}" %
            shape_tuple(dims)])
        return kind, npy_bytes(elem, dims, header=header), True
    if kind == "header-junk":
        b = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(10, min(len(b), 70))] = rng.randrange(256)
        return kind, bytes(b), None  # may stay valid
    return kind, kind, True  # missing, dir, empty, dev-zero


def write_npy(path, content):
    if content == "missing":
        return
    if content == "dir":
        os.makedirs(path, exist_ok=True)
    elif content == "empty":
        open(path, "wb").close()
    elif content == "dev-zero":
        os.symlink("/dev/zero", path)
    else:
        with open(path, "wb") as f:
            f.write(content)


def tensor_arg_types(args_text):
    """(elem, dims) of each argument of a signature, or None when one is
    not a static kiln tensor."""
    out = []
    for a in split_top(args_text):
        if ":" not in a:
            return None
        t = a.split(":", 1)[1].strip().split(" {")[0]
        m = TENSOR.fullmatch(t)
        if not m or m.group(2) not in NPY_SIZE or "?" in m.group(1):
            return None
        out.append((m.group(2), [int(d) for d in dims_of(m)]))
    return out


def runnable_functions(text):
    """(name, argument types) of the public functions with static kiln
    tensor arguments."""
    out = []
    for m in FUNC.finditer(text):
        if "private" in m.group(0):
            continue
        types = tensor_arg_types(m.group(2))
        # Arguments of gigabytes (test/Transforms/Autodiff/too-large.mlir)
        # take minutes to draw: a time-out, not a finding.
        if types is not None and sum(
                functools.reduce(lambda a, b: a * b, d, 1)
                for _, d in types) <= 1 << 22:
            out.append((m.group(1), types))
    return out


CHIPS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100",
         "sm_100a", "sm_120", "sm_70", "sm_52", "sm_1", "", "compute_90"]
PTX = ["", "+ptx70", "+ptx78", "+ptx80", "+ptx86", "+ptx87", "+ptx88",
       "+ptx90", "+ptx60", "+ptx99", "garbage"]
GPU_FORMATS = ["bin", "bin", "fatbin", "fatbin", "isa", "llvm", "offloading",
               "garbage"]

# kiln-gpu-* passes, with their anchors, for running one alone.
GPU_HOST_PASSES = {
    "kiln-gpu-host-to-device": "builtin.module(%s)",
    "kiln-gpu-check-host-code": "builtin.module(%s)",
    "kiln-gpu-emulate-kernels": "builtin.module(%s)",
    "kiln-gpu-map-parallel-loops": "builtin.module(func.func(%s))",
    "kiln-gpu-host-code-to-kernels": "builtin.module(func.func(%s))",
    "kiln-gpu-deallocate-temporaries": "builtin.module(func.func(%s))",
    "kiln-gpu-extern-dynamic-shared-memory":
        "builtin.module(gpu.module(%s))",
}
BLOCK_SIZES = ["1", "7", "32", "256", "1024", "0", "-1", "1099511627776"]

MEMREF = re.compile(r"memref<((?:[0-9?]+x)*)([a-z][a-z0-9]*)(, [^>]*)?>")


def m_memref(rng, text):
    """A memref type's dims or element type, everywhere it occurs."""
    ms = list(MEMREF.finditer(text))
    m = pick(rng, ms)
    if m is None:
        return None
    dims = [d for d in m.group(1).split("x") if d]
    elem = m.group(2)
    action = pick(rng, ["dim", "dim", "zero", "dynamic", "elem", "rank"])
    if action in ("dim", "zero", "dynamic") and dims:
        dims[rng.randrange(len(dims))] = {"dim": pick(rng, ["1", "2", "3",
                                                             "65", "1000"]),
                                          "zero": "0", "dynamic": "?"}[action]
    elif action == "elem":
        elem = pick(rng, ["f16", "f32", "f64", "i1", "i32", "i64", "index"])
    elif action == "rank":
        dims.insert(rng.randint(0, len(dims)), pick(rng, ["1", "4"]))
    else:
        return None
    new = "memref<" + "".join(d + "x" for d in dims) + elem + \
        (m.group(3) or "") + ">"
    if rng.random() < 0.1:
        return replace_span(text, m, new)
    return text.replace(m.group(0), new)


def m_constant(rng, text):
    """The value of an integer or index constant (loop bounds, sizes,
    offsets), which keeps the IR well-typed."""
    ms = list(re.finditer(r"arith\.constant (-?\d+) : (index|i\d+)", text))
    m = pick(rng, ms)
    if m is None:
        return None
    return replace_span(text, m, pick(rng, ["0", "1", "-1", "2", "3", "31",
                                            "32", "33", "1000", "65536",
                                            "4611686018427387904"]), 1)


def m_line(rng, text):
    """Drops, duplicates or moves one line of a body."""
    lines = text.split("\n")
    body = [i for i, l in enumerate(lines)
            if re.match(r"\s+(%\S+ = |[a-z_]+\.[a-z_.]+ )", l)]
    i = pick(rng, body)
    if i is None:
        return None
    action = pick(rng, ["drop", "dup", "up", "down"])
    if action == "drop":
        del lines[i]
    elif action == "dup":
        lines.insert(i, re.sub(r"^(\s*)%([\w]+)", r"\1%\2_fuzzdup",
                               lines[i]))
    elif action == "up" and i > 0:
        lines[i - 1], lines[i] = lines[i], lines[i - 1]
    elif action == "down" and i + 1 < len(lines):
        lines[i + 1], lines[i] = lines[i], lines[i + 1]
    return "\n".join(lines)


def m_ssa(rng, text):
    """Replaces one use of an SSA value with another value."""
    uses = [m for m in re.finditer(r"(?<=[(, \[])%[\w]+(?=[,)\] :])", text)]
    values = sorted(set(re.findall(r"(%[\w]+)(?::\d+)? = ", text)))
    m = pick(rng, uses)
    if m is None or not values:
        return None
    return replace_span(text, m, pick(rng, values))


HOST_MUTATORS = [(m_constant, 5), (m_memref, 3), (m_number, 2), (m_line, 2),
                 (m_ssa, 1), (m_attr_dict, 1)]


def gpu_host_seeds(src, kiln_opt, kiln_seeds, limit):
    """The kiln-gpu-* passes' inputs: the GPUHost lit tests, and the IR
    that the GPU pipeline hands each of them for `limit` kiln seeds."""
    seeds = []
    for path in sorted(glob.glob(os.path.join(
            src, "test/Conversion/GPUHost/*.mlir"))):
        for chunk in re.split(r"^// -----\s*$", open(path).read(),
                              flags=re.M):
            chunk = "\n".join(l for l in chunk.splitlines()
                              if not l.lstrip().startswith("//")).strip()
            if chunk:
                seeds.append((os.path.relpath(path, src), chunk + "\n"))
    before = ",".join(GPU_HOST_PASSES)
    rng = random.Random(7)
    for path, text in rng.sample(kiln_seeds, min(limit, len(kiln_seeds))):
        for opts in ["format=isa", "emulate=true"]:
            p = subprocess.run(
                [kiln_opt, "-", "--kiln-lower-to-nvvm=" + opts,
                 "--mlir-print-ir-before=" + before,
                 "--mlir-print-ir-module-scope", "--mlir-disable-threading",
                 "-o", os.devnull], input=text.encode(), capture_output=True,
                timeout=120)
            dumps = re.split(r"^// -----// IR Dump Before \w+ \(([\w-]+)\).*$",
                             p.stderr.decode(errors="replace"), flags=re.M)
            for name, dump in zip(dumps[1::2], dumps[2::2]):
                if "module" in dump:
                    seeds.append(("%s (before %s)" % (path, name), dump))
    return seeds


# Job kinds, in turn: `--kinds opt` is the kiln-opt campaign (and the JSON
# import), `tools` the tool jobs above; gpu_bin runs ptxas, so it comes less
# often.
KINDS = {"opt": ["ir", "ir", "ir", "option", "json"],
         "tools": ["run", "gpu_host", "weights", "compile", "run",
                   "gpu_host", "weights", "gpu_bin"]}
KINDS["all"] = KINDS["opt"] + KINDS["tools"]
TOOL_KINDS = set(KINDS["tools"])


# ------------------------------------------------------------ the campaign


class Campaign:
    def __init__(self, args):
        self.args = args
        self.runner = Runner(args)
        self.stats = collections.defaultdict(collections.Counter)
        self.findings = {}
        self.rejections = collections.defaultdict(collections.Counter)
        self.upstream = collections.Counter()
        os.makedirs(args.out, exist_ok=True)

    def record(self, pipeline, cmd, text, rc, out, timed_out, mutations,
               bad=None, files=None, suffix=".mlir"):
        """Counts one run; `bad`: why exit 0 would be wrong (the input was
        clearly bad, or the output is missing); `files`: the directory of
        the run's input files, kept with a finding."""
        self.stats[pipeline]["ran"] += 1
        sig = classify(rc, out, timed_out)
        if sig is None and rc == 0 and bad:
            # One finding per kind of bad input, the first one named.
            sig = "accepted: " + re.sub(r"/tmp\S*|\d+", "_",
                                        bad.split(", ")[0])[:120]
        if sig is not None and any(re.search(p, out) for p in UPSTREAM):
            self.stats[pipeline]["upstream"] += 1
            self.upstream[sig] += 1
            return
        if sig is None:
            self.stats[pipeline]["exit %d" % rc] += 1
            if rc == 1:
                m = re.search(r"error: (.*)", out)
                why = re.sub(r"'[^']*'|\d+|<[^>]*>", "_",
                             m.group(1) if m else "?")[:70]
                self.rejections[pipeline][why] += 1
            return
        self.stats[pipeline]["findings"] += 1
        key = sig  # one finding per signature, whatever the pipeline
        entry = self.findings.get(key)
        if entry is None or len(text) < len(entry["text"]):
            n = entry["n"] if entry else len(self.findings)
            self.findings[key] = dict(n=n, text=text, cmd=cmd, rc=rc,
                                      out=out, pipeline=pipeline,
                                      mutations=mutations, suffix=suffix,
                                      count=(entry["count"] if entry else 0))
            base = os.path.join(self.args.out, "finding-%03d" % n)
            with open(base + suffix, "w") as f:
                f.write(text)
            if files and os.path.isdir(files):
                shutil.rmtree(base + ".files", ignore_errors=True)
                shutil.copytree(files, base + ".files", symlinks=True)
            with open(base + ".txt", "w") as f:
                f.write("signature: %s\npipeline: %s\nmutations: %s\n"
                        "command: %s < finding-%03d%s\nexit code: %d\n\n%s"
                        % (sig, pipeline, mutations,
                           " ".join("'%s'" % c if " " in c else c
                                    for c in cmd), n, suffix, rc, out))
        self.findings[key]["count"] += 1

    def one_ir_mutant(self, i):
        rng = random.Random(self.args.seed * 1000003 + i)
        path, seed = pick(rng, self.seeds)
        if rng.random() < 0.2:
            p = subprocess.run([self.runner.kiln_opt, "-",
                                "--mlir-print-op-generic"],
                               input=seed.encode(), capture_output=True)
            if p.returncode == 0:
                seed, path = p.stdout.decode(), path + " (generic)"
                text, muts = mutate(rng, seed, GENERIC_MUTATORS)
            else:
                text, muts = mutate(rng, seed)
        else:
            text, muts = mutate(rng, seed)
        muts = "%s: %s" % (path, ",".join(muts))
        cmd = [self.runner.kiln_opt, "-", "-o", os.devnull]
        rc, out, to, _ = self.runner.run(cmd, text)
        for _ in range(8):
            if rc != 1 or classify(rc, out, to):
                break
            fixed = repair_once(text, out)
            if fixed is None or fixed == text:
                break
            text = fixed
            rc, out, to, _ = self.runner.run(cmd, text)
        results = [("verify", cmd, text, rc, out, to, muts)]
        if rc == 0 and not to:
            for name, pcmd in pipeline_cmds(rng, self.runner, text):
                rc2, out2, to2, _ = self.runner.run(pcmd, text)
                results.append((name, pcmd, text, rc2, out2, to2, muts))
        return results

    def one_option_mutant(self, i):
        """An unmutated seed through a pass or pipeline with mutated
        options."""
        rng = random.Random(self.args.seed * 1000003 + i)
        path, text = pick(rng, self.seeds)
        name, cmd = option_cmd(rng, self.runner.kiln_opt, text)
        rc, out, to, _ = self.runner.run(cmd, text)
        return [("options:" + name, cmd, text, rc, out, to,
                 "%s: %s" % (path, cmd[2]))]

    def one_json_mutant(self, i):
        rng = random.Random(self.args.seed * 1000003 + i)
        path, doc = pick(rng, self.json_seeds)
        new, muts = mutate_json(rng, doc)
        text = json.dumps(new)
        if rng.random() < 0.05:  # malformed JSON text, too
            text = text[:rng.randrange(len(text) + 1)]
        cmd = [self.runner.kiln_translate, "--import-graph-json", "-",
               "--graph-json-weights-dir", self.weights_dir,
               "-o", os.devnull]
        if rng.random() < 0.3:
            cmd.insert(2, "--lift-parameters")
        rc, out, to, _ = self.runner.run(cmd, text)
        return [("import-graph-json", cmd, text, rc, out, to,
                 "%s: %s" % (path, ",".join(muts)))]

    # ------------------------------------------------------- tool jobs

    def verified_mutant(self, rng, seed, mutators=MUTATORS, repair=True):
        """A mutant of `seed` (names of its mutations) and kiln-opt's
        verdict on it, with the types repaired as in one_ir_mutant."""
        text, muts = mutate(rng, seed, mutators)
        cmd = [self.runner.kiln_opt, "-", "-o", os.devnull]
        rc, out, to, _ = self.runner.run(cmd, text)
        for _ in range(8 if repair else 0):
            if rc != 1 or classify(rc, out, to):
                break
            fixed = repair_once(text, out)
            if fixed is None or fixed == text:
                break
            text = fixed
            rc, out, to, _ = self.runner.run(cmd, text)
        return text, muts, (cmd, rc, out, to)

    def tmpdir(self):
        return tempfile.mkdtemp(dir=self.tmp_root)

    def one_run_mutant(self, i):
        """kiln-run on a seed (a fifth mutated) with sampled options and
        inputs: random, none, or .npy files of which some are broken."""
        rng = random.Random(self.args.seed * 1000003 + i)
        path, text = pick(rng, self.run_seeds)
        muts, results = [], []
        if rng.random() < 0.2:
            text, m, (vcmd, rc, out, to) = self.verified_mutant(rng, text)
            muts += m
            if rc != 0:
                return [("verify", vcmd, text, rc, out, to, path)]
        fns = runnable_functions(text)
        if not fns:
            return []
        name, types = pick(rng, fns)
        tmp = self.tmpdir()
        cmd = [self.runner.kiln_run, "-", "--entry",
               name if rng.random() < 0.95 else pick(rng, ["", "nope"])]
        bad = []
        mode = pick(rng, ["random", "random", "npy", "npy", "npy", "none"])
        if mode == "random":
            cmd.append("--random-inputs")
            if rng.random() < 0.3:
                cmd += ["--seed", pick(rng, ["0", "7", "18446744073709551615"])]
            for _ in range(rng.choice([0, 0, 1, 2])):
                spec = pick(rng, ["0:0:10", "0:-5:5", "1:0:2", "0:3:3",
                                  "0:5:1", "9:0:1", "0:0", "a:0:1",
                                  "0:-9223372036854775808:9223372036854775807",
                                  "0:0:100000", "-1:0:1"])
                cmd += ["--random-range", spec]
                parts = spec.split(":")
                if len(parts) != 3 or not all(
                        re.fullmatch(r"-?\d+", p) for p in parts) or \
                        int(parts[0]) < 0 or int(parts[1]) >= int(parts[2]) \
                        or int(parts[0]) >= len(types):
                    bad.append("--random-range " + spec)
        elif mode == "npy":
            files = [(e, d) for e, d in types]
            if rng.random() < 0.15 and files:
                del files[rng.randrange(len(files))]
                bad.append("missing argument")
            elif rng.random() < 0.1:
                files.append(pick(rng, types) if types else ("f32", [2]))
                bad.append("extra argument")
            for k, (elem, dims) in enumerate(files):
                file = os.path.join(tmp, "arg%d.npy" % k)
                if rng.random() < 0.5:
                    kind, content, is_bad = mutate_npy(rng, elem, dims)
                else:
                    kind, content, is_bad = "ok", npy_bytes(elem, dims), False
                write_npy(file, content)
                muts.append("npy:" + kind)
                if is_bad:
                    bad.append(".npy " + kind)
                cmd += ["--input", file]
        elif types:
            bad.append("no inputs")
        target = pick(rng, ["cpu"] * 6 + ["gpu-emulator"])
        if target != "cpu" or rng.random() < 0.1:
            cmd.append("--target=" + target)
        if rng.random() < (0.5 if target != "cpu" else 0.03):
            cmd.append("--tensor-cores=" + pick(rng, ["true", "false"]))
            if target == "cpu":
                bad.append("--tensor-cores with --target=cpu")
        if rng.random() < 0.2:
            level = pick(rng, ["0", "1", "3", "4", "99"])
            cmd += ["--opt-level", level]
            if int(level) > 3:
                bad.append("--opt-level " + level)
        if rng.random() < 0.15:
            cmd.append("--openmp")
            if target != "cpu":
                bad.append("--openmp with --target=" + target)
        if rng.random() < 0.15:
            n = pick(rng, ["0", "1", "2", "2"])
            cmd += ["--repeat", n]
            if n == "0":
                bad.append("--repeat 0")
        if rng.random() < 0.2:
            cmd += ["--print-limit", pick(rng, ["0", "1", "100000"])]
        if rng.random() < 0.2:
            cmd.append("--time")
        out_dir = None
        if rng.random() < 0.3:
            choice = pick(rng, ["ok", "ok", "file", "proc", "nested"])
            out_dir = {"ok": os.path.join(tmp, "out"),
                       "nested": os.path.join(tmp, "a", "b"),
                       "file": os.path.join(tmp, "file"),
                       "proc": "/proc/kiln-nope"}[choice]
            if choice == "file":
                open(out_dir, "w").close()
            if choice in ("file", "proc"):
                bad.append("--output-dir " + choice)
            cmd += ["--output-dir", out_dir]
            if rng.random() < 0.3:
                cmd.append("--print")
        rc, out, to, _ = self.runner.run(cmd, text)
        missing = None
        if rc == 0 and out_dir and not bad and \
                not os.path.exists(os.path.join(out_dir, "result0.npy")) \
                and "result0:" not in out and not re.search(
                    r"->\s*\(\s*\)\s*\{", text):
            missing = "no result0.npy in --output-dir"
        results.append(("kiln-run", cmd, text, rc, out, to,
                        "%s: %s" % (path, ",".join(muts)),
                        missing or (", ".join(bad) if bad else None), tmp))
        return results

    def one_compile_mutant(self, i):
        """kiln-compile on a seed (a tenth mutated) with sampled options,
        targets and output paths, writable or not."""
        rng = random.Random(self.args.seed * 1000003 + i)
        path, text = pick(rng, self.run_seeds)
        muts = []
        if rng.random() < 0.1:
            text, muts, (vcmd, rc, out, to) = self.verified_mutant(rng, text)
            if rc != 0:
                return [("verify", vcmd, text, rc, out, to, path)]
        tmp = self.tmpdir()
        bad = []
        target = pick(rng, ["cpu"] * 5 + ["cuda-emulator"] * 2 + ["cuda"] * 2)
        lib = os.path.join(tmp, "libk.so")
        where = pick(rng, ["ok"] * 8 + ["proc", "dir", "empty"])
        if where != "ok":
            lib = {"proc": "/proc/kiln-nope/libk.so", "dir": tmp,
                   "empty": ""}[where]
            bad.append("-o " + where)
        cmd = [self.runner.kiln_compile, "-", "-o", lib]
        if target != "cpu" or rng.random() < 0.1:
            cmd.append("--target=" + target)
        header = None
        if rng.random() < 0.4:
            h = pick(rng, ["ok", "ok", "ok", "proc", "dir"])
            header = {"ok": os.path.join(tmp, "k.h"),
                      "proc": "/proc/kiln-nope/k.h", "dir": tmp}[h]
            cmd += ["--header", header]
            if h != "ok":
                bad.append("--header " + h)
                header = None
        if rng.random() < 0.2:
            o = pick(rng, ["ok", "ok", "proc"])
            cmd += ["--emit-object", os.path.join(tmp, "k.o") if o == "ok"
                    else "/proc/kiln-nope/k.o"]
            if o != "ok":
                bad.append("--emit-object " + o)
        if rng.random() < 0.3:
            mcpu = pick(rng, ["generic", "native", "x86-64-v2", "skylake",
                              "garbage", "", "sm_90"])
            cmd += ["--mcpu", mcpu]
            if mcpu in ("garbage", "", "sm_90"):
                bad.append("--mcpu '%s'" % mcpu)
        if rng.random() < 0.3:
            level = pick(rng, ["0", "1", "2", "3", "4", "17"])
            cmd += ["--opt-level", level]
            if int(level) > 3:
                bad.append("--opt-level " + level)
        if rng.random() < 0.1:
            cmd.append("--openmp")
            if target != "cpu":
                bad.append("--openmp with --target=" + target)
        if rng.random() < 0.1:
            cc = pick(rng, ["cc", "/bin/false", "/nonexistent/cc",
                            "kiln-no-such-cc", "/etc/passwd"])
            cmd += ["--cc", cc]
            if cc != "cc":
                bad.append("--cc " + cc)
        if rng.random() < 0.1:
            cmd.append("--time")
        gpu = target != "cpu"
        for opt, values, p in [
                ("--gpu-chip", CHIPS, 0.4), ("--gpu-features", PTX, 0.3),
                ("--gpu-format", GPU_FORMATS, 0.5 if target == "cuda" else 0.1),
                ("--gpu-tensor-cores", ["true", "false"], 0.2),
                ("--gpu-deterministic", ["true", "false"], 0.2),
                ("--gpu-software-pipeline", ["auto", "on", "off"], 0.2)]:
            if rng.random() < (p if gpu else p / 4):
                v = pick(rng, values)
                cmd.append("%s=%s" % (opt, v))
                if opt == "--gpu-format" and target == "cuda" and \
                        v not in ("bin", "fatbin", "isa"):
                    bad.append(opt + " " + v)
        if gpu and rng.random() < 0.05:
            cmd.append("--gpu-pipeline=" + pick(rng, [
                "kiln-lower-to-cpu", "garbage", "builtin.module(canonicalize)",
                "kiln-lower-to-nvvm{emulate=true}", "kiln-lower-to-nvvm{"]))
        rc, out, to, _ = self.runner.run(cmd, text)
        missing = None
        if rc == 0 and not bad:
            if not os.path.isfile(lib):
                missing = "no library written"
            elif header and not os.path.isfile(header):
                missing = "no header written"
        return [("kiln-compile", cmd, text, rc, out, to,
                 "%s: %s" % (path, ",".join(muts)),
                 missing or (", ".join(bad) if bad else None), tmp)]

    def one_gpu_bin_mutant(self, i):
        """kiln-lower-to-nvvm with format=bin or fatbin (ptxas, fatbinary)
        and sampled chips, PTX versions, opt-levels and kernel options, on
        a seed, a third of them mutated."""
        rng = random.Random(self.args.seed * 1000003 + i)
        path, text = pick(rng, self.gpu_seeds)
        muts = []
        if rng.random() < 0.33:
            text, muts, (vcmd, rc, out, to) = self.verified_mutant(rng, text)
            if rc != 0:
                return [("verify", vcmd, text, rc, out, to, path)]
        opts = ["format=" + pick(rng, ["bin", "bin", "fatbin"])]
        if rng.random() < 0.6:
            opts.append("chip=" + pick(rng, CHIPS))
        if rng.random() < 0.5:
            opts.append("features=" + pick(rng, PTX))
        level = None
        if rng.random() < 0.4:
            level = pick(rng, ["0", "1", "2", "3", "-1", "4"])
            opts.append("opt-level=" + level)
        for key in ["tensor-cores", "software-pipeline"]:
            if rng.random() < 0.3:
                opts.append("%s=%s" % (key, pick(rng, ["true", "false"])))
        cmd = [self.runner.kiln_opt, "-",
               "--kiln-lower-to-nvvm=" + " ".join(opts), "-o", os.devnull]
        rc, out, to, _ = self.runner.run(cmd, text)
        # An option value out of range must be named in the error.
        bad = None
        if rc == 1 and "optimization level" in out and "opt-level" not in out:
            bad = "opt-level %s rejected without naming it" % level
            rc = 0
        return [("gpu-" + opts[0], cmd, text, rc, out, to,
                 "%s: %s" % (path, ",".join(muts)), bad)]

    def one_gpu_host_mutant(self, i):
        """One kiln-gpu-* pass (or two in a row) on a mutant of its input:
        the GPUHost lit tests and the GPU pipeline's IR before each."""
        rng = random.Random(self.args.seed * 1000003 + i)
        # A pass first, then an input of it: the dumps before
        # kiln-gpu-extern-dynamic-shared-memory (one per gpu.module) would
        # crowd out the others.
        group = pick(rng, sorted(self.host_groups))
        path, seed = pick(rng, self.host_groups[group])
        text, muts = mutate(rng, seed, HOST_MUTATORS) \
            if rng.random() < 0.85 else (seed, [])
        vcmd = [self.runner.kiln_opt, "-", "-o", os.devnull]
        rc, out, to, _ = self.runner.run(vcmd, text)
        muts = "%s: %s" % (path, ",".join(muts))
        results = [("verify-gpu-host", vcmd, text, rc, out, to, muts)]
        if rc != 0 or to:
            return results
        names = sorted(GPU_HOST_PASSES)
        for _ in range(rng.choice([1, 2, 3])):
            name = group if rng.random() < 0.7 else pick(rng, names)
            arg = name
            if name == "kiln-gpu-map-parallel-loops" and rng.random() < 0.5:
                arg += "{block-size=%s}" % pick(rng, BLOCK_SIZES)
            cmd = [self.runner.kiln_opt, "-", "--pass-pipeline=" +
                   GPU_HOST_PASSES[name] % arg, "-o", os.devnull]
            rc, out, to, _ = self.runner.run(cmd, text)
            results.append((name, cmd, text, rc, out, to, muts))
        return results

    def one_weights_mutant(self, i):
        """Graph JSON export into a weights directory (sampled options,
        writable or not), then import with that directory after breaking
        some of its .npy files (missing, truncated, wrong dtype or shape)."""
        rng = random.Random(self.args.seed * 1000003 + i)
        path, text = pick(rng, self.weight_seeds)
        tmp = self.tmpdir()
        wdir = os.path.join(tmp, "w")
        os.makedirs(wdir)
        json_path = os.path.join(tmp, "g.json")
        cmd = [self.runner.kiln_translate, "-", "--export-graph-json",
               "-o", json_path]
        bad = []
        where = pick(rng, ["ok"] * 8 + ["missing", "file", "proc"])
        target = {"ok": wdir, "missing": os.path.join(tmp, "nope"),
                  "file": json_path, "proc": "/proc/kiln-nope"}[where]
        if where == "file":
            open(json_path, "w").close()
        cmd += ["--graph-json-export-weights-dir", target]
        if rng.random() < 0.4:
            n = pick(rng, ["0", "1", "2", "7", "100000", "-1"])
            cmd += ["--graph-json-export-min-file-elements", n]
            if int(n) < 0:
                bad.append("--graph-json-export-min-file-elements " + n)
        rc, out, to, _ = self.runner.run(cmd, text)
        exported = rc == 0 and where == "ok" and not bad
        # Success with a JSON that references weights files it could not
        # write.
        if where != "ok" and rc == 0 and os.path.isfile(json_path) and \
                '"file"' in open(json_path).read():
            bad.append("--graph-json-export-weights-dir " + where)
        results = [("export-weights", cmd, text, rc, out, to, path,
                    ", ".join(bad) if bad else None, tmp)]
        if not exported:
            return results
        doc = json.load(open(json_path))
        files = [p.get("file") for p in doc.get("parameters", [])
                 if isinstance(p, dict) and isinstance(p.get("file"), str)]
        muts, bad = [], []
        by_name = {p["file"]: p for p in doc.get("parameters", [])
                   if isinstance(p, dict) and isinstance(p.get("file"), str)}
        for f in files:
            if rng.random() < 0.5:
                continue
            entry = by_name[f]
            elem, dims = entry["dtype"], entry["shape"]
            kind, content, is_bad = mutate_npy(rng, elem, dims)
            if kind == "ok":
                continue
            p = os.path.join(wdir, f)
            os.remove(p)
            write_npy(p, content)
            muts.append("%s:%s" % (f, kind))
            if is_bad:
                bad.append(".npy " + kind)
        icmd = [self.runner.kiln_translate, "--import-graph-json", json_path,
                "-o", os.devnull]
        if rng.random() < 0.8:
            icmd += ["--graph-json-weights-dir", wdir]
        else:
            shutil.move(json_path, os.path.join(wdir, "g.json"))
            icmd[2] = os.path.join(wdir, "g.json")
        if rng.random() < 0.3:
            # The parameters become arguments: no file is read.
            icmd.append("--lift-parameters")
            bad = []
        rc, out, to, _ = self.runner.run(icmd, "")
        text2 = open(icmd[2]).read()
        results.append(("import-weights", icmd, text2, rc, out, to,
                        "%s: %s" % (path, ",".join(muts)),
                        ", ".join(bad) if bad else None, tmp))
        return results

    def tool_seeds(self):
        """Seeds of the tool jobs, from the kiln seeds."""
        args = self.args
        small = [(p, t) for p, t in self.seeds if len(t) < 4000 and
                 runnable_functions(t)]
        self.run_seeds = small or self.seeds
        self.gpu_seeds = [(p, t) for p, t in small
                          if "attention" in t] + small[:20]
        self.host_groups = collections.defaultdict(list)
        for path, text in gpu_host_seeds(
            args.src, self.runner.kiln_opt,
            [(p, t) for p, t in small if "attention" in t][:6] +
            small[:6], 1 if args.ctest else 12):
            m = re.search(r"before ([\w-]+)", path)
            base = os.path.basename(path).split(".")[0].split(
                "-invalid")[0].split("-alignment")[0].split("-racecheck")[0]
            name = m.group(1) if m else "kiln-gpu-" + base
            self.host_groups[name if name in GPU_HOST_PASSES
                             else "kiln-gpu-host-to-device"].append(
                                 (path, text))
        # Graph JSON with parameters: the imported inputs, lifted or not
        # (their constants are `kiln.parameter`s), and the kiln seeds.
        self.weight_seeds = []
        for path in sorted(glob.glob(os.path.join(
                args.src, "test/Translate/Inputs/*.json"))):
            p = subprocess.run([self.runner.kiln_translate,
                                "--import-graph-json", path],
                               capture_output=True, timeout=60)
            if p.returncode == 0:
                self.weight_seeds.append((os.path.relpath(path, args.src),
                                          p.stdout.decode()))
        self.weight_seeds += [(p, t) for p, t in small
                              if len(FUNC.findall(t)) == 1][:30]

    def json_from_seeds(self, export=True):
        docs = []
        for path in sorted(glob.glob(os.path.join(
                self.args.src, "test/Translate/Inputs/*.json"))):
            try:
                doc = json.load(open(path))
            except ValueError:
                continue
            if isinstance(doc, dict) and "nodes" in doc:
                docs.append((os.path.relpath(path, self.args.src), doc))
        for path, seed in (self.seeds if export else []):
            p = subprocess.run([self.runner.kiln_translate, "-",
                                "--export-graph-json"], input=seed.encode(),
                               capture_output=True, timeout=60)
            if p.returncode == 0:
                try:
                    docs.append((path + " (exported)",
                                 json.loads(p.stdout.decode())))
                except ValueError:
                    pass
        return docs

    def run(self):
        args = self.args
        t0 = time.time()
        if args.ctest:
            self.seeds = collect_seeds(args.src, self.runner.kiln_opt,
                                       CTEST_SEED_GLOBS, check=False)
        else:
            self.seeds = collect_seeds(args.src, self.runner.kiln_opt)
        self.weights_dir = os.path.join(args.src, "test/Translate/Inputs")
        kinds = []
        for k in args.kinds.split(","):
            kinds += KINDS.get(k, [k])
        self.json_seeds = self.json_from_seeds(
            export=not args.ctest and "json" in kinds)
        if any(k in TOOL_KINDS for k in kinds):
            self.tmp_root = os.path.join(args.out, "tmp")
            shutil.rmtree(self.tmp_root, ignore_errors=True)
            os.makedirs(self.tmp_root)
            self.tool_seeds()
            print("%d IR seeds, %d runnable, %d GPU host, %d weights" %
                  (len(self.seeds), len(self.run_seeds),
                   sum(map(len, self.host_groups.values())),
                   len(self.weight_seeds)))
        print("%d IR seeds, %d JSON seeds (%.0f s)" %
              (len(self.seeds), len(self.json_seeds), time.time() - t0),
              flush=True)
        deadline = t0 + args.budget
        i, next_report = 0, 1000
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            pending = collections.deque()
            while time.time() < deadline or pending:
                while time.time() < deadline and len(pending) < 2 * args.jobs:
                    if args.max_mutants and i >= args.max_mutants:
                        deadline = 0
                        break
                    job = getattr(self, "one_%s_mutant" %
                                  kinds[i % len(kinds)])
                    pending.append(pool.submit(job, i))
                    i += 1
                if not pending:
                    break
                try:
                    results = pending.popleft().result()
                except Exception as e:  # a bug of this script, not a finding
                    print("campaign error: %r" % e, flush=True)
                    continue
                for res in results:
                    self.record(*res, suffix=".json" if res[0] in (
                        "import-graph-json", "import-weights") else ".mlir")
                    if len(res) > 8 and res[8]:
                        shutil.rmtree(res[8], ignore_errors=True)
                if i >= next_report:
                    self.report(i, t0, final=False)
                    next_report += 1000
        self.report(i, t0, final=True)
        return 1 if self.findings else 0

    def report(self, n, t0, final):
        lines = ["%d mutants in %.0f s" % (n, time.time() - t0)]
        for name in ["verify"] + list(PIPELINES) + [
                "options:" + o for o in sorted(OPTION_VALUES)] + [
                "import-graph-json", "verify-gpu-host"] + sorted(
                    GPU_HOST_PASSES) + [
                "gpu-format=bin", "gpu-format=fatbin", "kiln-run",
                "kiln-compile", "export-weights", "import-weights"]:
            c = self.stats.get(name)
            if c:
                lines.append("  %-26s ran %5d  exit0 %5d  exit1 %5d  "
                             "findings %d" % (name, c["ran"], c["exit 0"],
                                              c["exit 1"], c["findings"]))
        for sig, k in self.upstream.items():
            lines.append("  upstream x%d (known, not counted) %s" % (k, sig))
        for sig, f in sorted(self.findings.items(), key=lambda x: x[1]["n"]):
            lines.append("  finding-%03d x%d [%s] %s" %
                         (f["n"], f["count"], f["pipeline"], sig))
        if final:
            lines.append("most frequent rejections (exit code 1):")
            for name, c in self.rejections.items():
                for why, k in c.most_common(4):
                    lines.append("  %-26s %5d  %s" % (name, k, why))
        if final and self.args.ctest:
            for f in self.findings.values():
                lines.append("--- finding-%03d: %s\n%s" % (
                    f["n"], " ".join(f["cmd"]), f["text"]))
        text = "\n".join(lines)
        print(text, flush=True)
        if final:
            with open(os.path.join(self.args.out, "summary.txt"), "w") as f:
                f.write(text + "\n")


# -------------------------------------------------------------- minimizer


def minimize(args):
    runner = Runner(args)
    text = open(args.minimize).read()
    name = args.pipeline
    if name == "import-graph-json":
        cmd = [runner.kiln_translate, "--import-graph-json", "-",
               "--graph-json-weights-dir",
               os.path.join(args.src, "test/Translate/Inputs"), "-o",
               os.devnull]
    elif name == "verify":
        cmd = [runner.kiln_opt, "-", "-o", os.devnull]
    elif args.pass_args:
        cmd = [runner.kiln_opt, "-"] + args.pass_args.split() + \
            ["-o", os.devnull]
    elif name == "export-graph-json":
        cmd = [runner.kiln_translate, "-", "--export-graph-json", "-o",
               os.devnull]
    elif PIPELINES.get(name):
        cmd = [runner.kiln_opt, "-"] + PIPELINES[name] + ["-o", os.devnull]
    else:
        sys.exit("give the pass arguments of '%s' with --pass-args" % name)
    rc, out, to, _ = runner.run(cmd, text)
    sig = classify(rc, out, to)
    if sig is None:
        sys.exit("does not reproduce: exit code %d\n%s" % (rc, out))
    print("signature:", sig, file=sys.stderr)
    lines = text.splitlines()
    changed = True
    while changed:
        changed = False
        for i in range(len(lines) - 1, -1, -1):
            trial = lines[:i] + lines[i + 1:]
            rc, out, to, _ = runner.run(cmd, "\n".join(trial) + "\n")
            if classify(rc, out, to) == sig:
                lines, changed = trial, True
    print("\n".join(lines))
    print("// " + " ".join(cmd), file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default=".", help="the build directory")
    ap.add_argument("--kiln-opt", help="default: BUILD/bin/kiln-opt")
    ap.add_argument("--kiln-translate",
                    help="default: BUILD/bin/kiln-translate")
    ap.add_argument("--kiln-run", help="default: BUILD/bin/kiln-run")
    ap.add_argument("--kiln-compile",
                    help="default: BUILD/bin/kiln-compile")
    ap.add_argument("--kinds", default="all",
                    help="the jobs, in turn: 'opt' (IR, IR, IR, options, "
                    "JSON: kiln-opt and the JSON import), 'tools' (run, "
                    "compile, gpu_host, weights, gpu_bin), 'all', or job "
                    "names, comma-separated")
    ap.add_argument("--ctest", action="store_true",
                    help="ctest's run: CTEST_SEED_GLOBS unchecked, no JSON "
                    "exported from the seeds; use with --max-mutants")
    ap.add_argument("--src", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--budget", type=float, default=1200,
                    help="seconds of wall time (default 1200)")
    ap.add_argument("--max-mutants", type=int, default=0)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out", default="fuzz-findings")
    ap.add_argument("--minimize")
    ap.add_argument("--pipeline", default="verify")
    ap.add_argument("--pass-args")
    args = ap.parse_args()
    if args.minimize:
        minimize(args)
        return 0
    return Campaign(args).run()


if __name__ == "__main__":
    sys.exit(main())
