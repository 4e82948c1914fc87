#!/usr/bin/env python3
"""Crash-hunting campaign over kiln-opt's passes and pipelines and over
kiln-translate's graph JSON import and export (offline; ctest runs a small
fixed-seed slice of it with --ctest).

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

Anything but exit 0/1 (a signal, an abort, a fatal error's exit code), or an
"LLVM ERROR", "UNREACHABLE", "Assertion", or a stack dump in the output, or a
timeout, is a finding. Findings are deduplicated by the assertion / error
message and the innermost kiln frame of the stack, and written to OUT_DIR
(the smallest reproducer, its command and output per signature); the summary
also lists the most frequent rejections per pipeline.

  campaign.py --build BUILD_DIR [--budget SECONDS] [-j N] [--seed N]
              [--out OUT_DIR]
  campaign.py --build BUILD_DIR --minimize FILE --pipeline NAME
              [--pass-args ARGS]   (shrinks a reproducer line by line,
                                    keeping its signature)

Each mutant draws from its own random.Random(seed, index), so a run with
--max-mutants is deterministic whatever -j is.
"""
import argparse
import collections
import copy
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
        "software-pipeline": ["true", "false"],
        "emulate": ["false"] * 3 + ["true"],
    },
    "convert-kiln-attention-to-gpu": {
        "tensor-cores": ["true", "false"],
        "backward-tensor-cores": ["true", "false"],
        "software-pipeline": ["true", "false"],
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


# ------------------------------------------------------------ the campaign


class Campaign:
    def __init__(self, args):
        self.args = args
        self.runner = Runner(args)
        self.stats = collections.defaultdict(collections.Counter)
        self.findings = {}
        self.rejections = collections.defaultdict(collections.Counter)
        os.makedirs(args.out, exist_ok=True)

    def record(self, pipeline, cmd, text, rc, out, timed_out, mutations,
               suffix=".mlir"):
        self.stats[pipeline]["ran"] += 1
        sig = classify(rc, out, timed_out)
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
        self.json_seeds = self.json_from_seeds(export=not args.ctest)
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
                    job = {4: self.one_json_mutant,
                           3: self.one_option_mutant}.get(
                               i % 5, self.one_ir_mutant)
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
                    self.record(*res, suffix=".json"
                                if res[0] == "import-graph-json" else ".mlir")
                if i >= next_report:
                    self.report(i, t0, final=False)
                    next_report += 1000
        self.report(i, t0, final=True)
        return 1 if self.findings else 0

    def report(self, n, t0, final):
        lines = ["%d mutants in %.0f s" % (n, time.time() - t0)]
        for name in ["verify"] + list(PIPELINES) + [
                "options:" + o for o in sorted(OPTION_VALUES)] + [
                "import-graph-json"]:
            c = self.stats.get(name)
            if c:
                lines.append("  %-26s ran %5d  exit0 %5d  exit1 %5d  "
                             "findings %d" % (name, c["ran"], c["exit 0"],
                                              c["exit 1"], c["findings"]))
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
