#!/usr/bin/env python3
"""Writes the kiln.attention cases of the GPU forward check and benchmark.

For each case it writes a one-function module `<name>.mlir`

    func.func @attn(%q, %k, %v [, %mask] [, %key_lengths] [, %query_lengths]
                    [, %seed]) -> %o
      kiln.attention ...

and `cases.json`, the manifest that bench/gpu/check_attention_fwd.py and
bench_attention_fwd.py read: shapes, dtypes, attributes, operand order and
the seeds the inputs are drawn from. prepare_attention_fwd.sh compiles each
module with `kiln-compile --target=cuda` (plus the flags of `<name>.flags`,
where a case has some).

Usage: gen_attention_fwd_cases.py OUT_DIR
"""
import json
import os
import sys

DTYPES = {"f32": "f32", "f16": "f16", "bf16": "bf16"}

# Every mask form of the contract (docs/Attention.md). Sizes are
# not multiples of the kernels' tiles (64 query rows, 64 keys), so the
# edges of both are exercised; head dims 64 and 128 take the tensor-core
# kernel for f16/bf16, 40/24 (not multiples of 16) the SIMT one.
CHECK_CASES = [
    dict(name="plain", B=2, Hq=3, Hkv=3, Sq=100, Sk=90, Dk=64, Dv=64),
    dict(name="causal", B=2, Hq=2, Hkv=2, Sq=130, Sk=130, Dk=64, Dv=64,
         causal=True),
    dict(name="causal_sq_lt_sk", B=1, Hq=2, Hkv=2, Sq=70, Sk=150, Dk=64,
         Dv=64, causal=True),
    dict(name="causal_top_left", B=1, Hq=2, Hkv=2, Sq=150, Sk=70, Dk=64,
         Dv=64, causal=True, alignment="top_left"),
    dict(name="gqa_4_over_2", B=2, Hq=4, Hkv=2, Sq=80, Sk=96, Dk=64, Dv=64,
         causal=True),
    dict(name="mqa", B=1, Hq=4, Hkv=1, Sq=65, Sk=129, Dk=64, Dv=64),
    # Batch 0 sees 77 keys, batch 1 none (every row empty: exact 0),
    # batch 2 more than Sk (clamped).
    dict(name="key_lengths", B=3, Hq=2, Hkv=2, Sq=50, Sk=90, Dk=64, Dv=64,
         key_lengths=("i32", [77, 0, 1000])),
    dict(name="query_lengths", B=3, Hq=2, Hkv=2, Sq=90, Sk=60, Dk=64, Dv=64,
         query_lengths=("i64", [70, -3, 500])),
    dict(name="window_2_1", B=1, Hq=2, Hkv=2, Sq=100, Sk=100, Dk=64, Dv=64,
         window_left=2, window_right=1),
    dict(name="window_top_left", B=1, Hq=2, Hkv=2, Sq=40, Sk=100, Dk=64,
         Dv=64, window_left=3, window_right=0, alignment="top_left"),
    dict(name="bool_mask", B=2, Hq=2, Hkv=2, Sq=70, Sk=80, Dk=64, Dv=64,
         mask=("bool", [2, 1, 70, 80])),
    dict(name="bool_mask_per_head", B=2, Hq=2, Hkv=1, Sq=70, Sk=80, Dk=64,
         Dv=64, mask=("bool", [1, 2, 70, 80])),
    dict(name="additive_mask", B=2, Hq=2, Hkv=2, Sq=70, Sk=80, Dk=64, Dv=64,
         mask=("add", [70, 80])),
    dict(name="additive_mask_per_head", B=2, Hq=2, Hkv=2, Sq=70, Sk=80,
         Dk=64, Dv=64, mask=("add", [2, 2, 70, 80])),
    # Rows 3, 40 and 69 see no key at all: their output must be exactly 0.
    dict(name="fully_masked_rows", B=1, Hq=2, Hkv=2, Sq=70, Sk=80, Dk=64,
         Dv=64, mask=("bool", [1, 2, 70, 80]), empty_rows=[3, 40, 69]),
    dict(name="decode", B=2, Hq=4, Hkv=2, Sq=1, Sk=5, Dk=64, Dv=64,
         causal=True),
    dict(name="scale", B=1, Hq=2, Hkv=2, Sq=64, Sk=64, Dk=64, Dv=64,
         scale=0.3),
    dict(name="softcap", B=1, Hq=2, Hkv=2, Sq=64, Sk=100, Dk=64, Dv=64,
         scale=0.5, softcap=5.0, causal=True),
    dict(name="dv_ne_dk", B=1, Hq=2, Hkv=2, Sq=70, Sk=90, Dk=64, Dv=32),
    dict(name="odd_dims_simt", B=1, Hq=2, Hkv=1, Sq=70, Sk=90, Dk=40,
         Dv=24, causal=True),
    dict(name="d128", B=1, Hq=2, Hkv=1, Sq=130, Sk=200, Dk=128, Dv=128,
         causal=True),
    dict(name="d256_simt", B=1, Hq=1, Hkv=1, Sq=40, Sk=70, Dk=256, Dv=256),
    dict(name="dropout", B=1, Hq=2, Hkv=1, Sq=40, Sk=48, Dk=64, Dv=64,
         dropout_p=0.25, seed=1234567, causal=True),
    dict(name="dropout_lengths", B=2, Hq=2, Hkv=2, Sq=30, Sk=40, Dk=32,
         Dv=32, dropout_p=0.5, seed=-99, key_lengths=("i64", [33, 7])),
    dict(name="long", B=1, Hq=2, Hkv=1, Sq=1024, Sk=1024, Dk=128, Dv=128,
         causal=True),
    # The tensor-core kernel's other software-pipeline choice than the
    # default's (auto: on for head dims in (64, 128]) at each head dim.
    dict(name="d64_pipelined", B=1, Hq=4, Hkv=2, Sq=130, Sk=200, Dk=64,
         Dv=64, causal=True, kiln_flags="--gpu-software-pipeline=on"),
    dict(name="d128_unpipelined", B=1, Hq=2, Hkv=1, Sq=130, Sk=200,
         Dk=128, Dv=128, causal=True,
         kiln_flags="--gpu-software-pipeline=off"),
]

# B=4, 16 query heads (over 16 or 4 kv heads), bf16.
BENCH_CASES = [
    dict(name=f"bench_h{hq}x{hkv}_s{s}_d{d}{'_causal' if causal else ''}",
         B=4, Hq=hq, Hkv=hkv, Sq=s, Sk=s, Dk=d, Dv=d, causal=causal,
         dtype="bf16")
    for hq, hkv in ((16, 16), (16, 4))
    for s in (1024, 2048, 4096, 8192)
    for d in (64, 128)
    for causal in (False, True)
]

# Each GQA 16/4 shape at S 1024 and 4096 also with the other choice of
# convert-kiln-attention-to-gpu's software-pipeline (the next K/V tile
# loaded while the current one is computed; more registers) than its
# default, auto (on for head dims in (64, 128]), timed in the same run as
# the default kernel: `_pipelined` (=on) at D=64, `_unpipelined` (=off) at
# D=128. `kiln_flags` are extra kiln-compile flags, written to
# `<name>.flags` for prepare_attention_fwd.sh; `variant` names the choice.
def _auto_pipelines(case):
    return 64 < max(case["Dk"], case["Dv"]) <= 128


BENCH_CASES += [
    dict(c, name=c["name"] + ("_unpipelined" if _auto_pipelines(c)
                              else "_pipelined"),
         baseline=c["name"],
         variant="off" if _auto_pipelines(c) else "on",
         kiln_flags="--gpu-software-pipeline=" +
         ("off" if _auto_pipelines(c) else "on"))
    for c in BENCH_CASES if c["Hkv"] == 4 and c["Sq"] in (1024, 4096)
]
# And at D=64 with an occupancy hint: at least 4 blocks of the tensor-core
# kernel per SM (ptxas: 144 -> 128 registers, no spill; the default fits 3).
# One pipeline option, so that the flag is one word (the chip is
# kiln-lower-to-nvvm's default, sm_90; its format, bin, a cubin).
BENCH_CASES += [
    dict(c, name=c["name"] + "_min4blocks", baseline=c["name"],
         variant="min4",
         kiln_flags="--gpu-pipeline=kiln-lower-to-nvvm"
         "{forward-min-blocks-per-sm=4}")
    for c in BENCH_CASES if c["Hkv"] == 4 and c["Sq"] in (1024, 4096)
    and c["Dk"] == 64 and "baseline" not in c
]


def tensor_type(shape, element):
    return "tensor<" + "".join(f"{n}x" for n in shape) + element + ">"


def module_text(case):
    t = case["dtype"]
    q = tensor_type([case["B"], case["Hq"], case["Sq"], case["Dk"]], t)
    k = tensor_type([case["B"], case["Hkv"], case["Sk"], case["Dk"]], t)
    v = tensor_type([case["B"], case["Hkv"], case["Sk"], case["Dv"]], t)
    o = tensor_type([case["B"], case["Hq"], case["Sq"], case["Dv"]], t)
    args = [f"%q: {q}", f"%k: {k}", f"%v: {v}"]
    groups = ""
    if "mask" in case:
        kind, shape = case["mask"]
        mt = tensor_type(shape, "i1" if kind == "bool" else t)
        args.append(f"%mask: {mt}")
        groups += f" mask(%mask : {mt})"
    for key in ("key_lengths", "query_lengths"):
        if key in case:
            lt = tensor_type([case["B"]], case[key][0])
            args.append(f"%{key}: {lt}")
            groups += f" {key}(%{key} : {lt})"
    if case.get("dropout_p", 0.0) > 0:
        args.append("%seed: tensor<i64>")
        groups += " seed(%seed : tensor<i64>)"
    attrs = []
    if case.get("causal"):
        attrs.append("causal")
    for key in ("window_left", "window_right"):
        if key in case:
            attrs.append(f"{key} = {case[key]} : i64")
    if "alignment" in case:
        attrs.append(f"alignment = #kiln.alignment<{case['alignment']}>")
    for key in ("scale", "softcap", "dropout_p"):
        if case.get(key):
            attrs.append(f"{key} = {float(case[key])!r} : f64")
    attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
    return (f"func.func @attn({', '.join(args)}) -> {o} {{\n"
            f"  %o = kiln.attention %q, %k, %v{groups}{attr_text}\n"
            f"         : {q}, {k}, {v} -> {o}\n"
            f"  return %o : {o}\n"
            f"}}\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = {"check": [], "bench": []}
    for index, base in enumerate(CHECK_CASES):
        for dtype in DTYPES:
            case = dict(base, dtype=dtype, name=f"{base['name']}_{dtype}",
                        input_seed=1000 + index)
            manifest["check"].append(case)
    manifest["bench"] = [dict(c, input_seed=7) for c in BENCH_CASES]
    for case in manifest["check"] + manifest["bench"]:
        with open(os.path.join(out, case["name"] + ".mlir"), "w") as f:
            f.write(module_text(case))
        if "kiln_flags" in case:
            with open(os.path.join(out, case["name"] + ".flags"), "w") as f:
                f.write(case["kiln_flags"] + "\n")
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"wrote {len(manifest['check'])} check and "
          f"{len(manifest['bench'])} bench modules to {out}")


if __name__ == "__main__":
    main()
