"""The cases of check_attention_bwd.py and bench_attention_bwd.py, and the
kiln functions that prepare_attention_bwd.sh compiles for them.

One definition of every case, read by the generator here (with
/usr/bin/python3, no torch needed) and by the checks on the GPU machine, so
the compiled shapes and the checked shapes cannot drift apart.

    python3 attention_bwd_cases.py --out DIR [--only check|bench]

writes DIR/<case>.mlir, one library per check case, so that a case that
fails to compile fails alone: `@attention_bwd` (the kiln.attention_grad
alone, which computes its own row statistics) for <name>_<dtype>, and
`@attention_paired` for <name>_<dtype>_paired (kiln.attention with its lse
result, then kiln.attention_grad from that O and LSE: what kiln-autodiff
emits). For the benchmark: DIR/bench_paired.mlir with `@fwd_<config>`
(kiln.attention with lse) and `@bwd_<config>` (kiln.attention_grad with
out/lse), the pair a training step runs, and DIR/bench_bwd.mlir with
`@bwd_<config>` and DIR/bench_fwd.mlir with `@fwd_<config>` (the unpaired
backward and the lse-free forward) for every configuration: separate
libraries, so that a forward that does not compile never hides the
backward.
"""
import argparse
import pathlib

DTYPES = ("f32", "f16", "bf16")

# Crosses the 64-key tiles of the main kernel (131 = 2 * 64 + 3) and the
# query tiles (67 rows), with Sq != Sk for the bottom-right alignment.
BASE = dict(B=2, Hq=4, Hkv=4, Sq=67, Sk=131, Dk=32, Dv=32)

CHECK_CASES = [
    dict(name="plain"),
    dict(name="causal", causal=True),
    dict(name="gqa_4_over_2", Hkv=2, causal=True),
    dict(name="mqa", Hkv=1),
    # Padded keys get exactly 0 in dK and dV.
    dict(name="key_padding", key_lengths=[131, 50], lengths_type="i32"),
    # 99 > Sq: clamped.
    dict(name="query_lengths", query_lengths=[40, 99], lengths_type="i64"),
    dict(name="window_2_1", window_left=2, window_right=1),
    # The dense additive mask of the contract, and its adjoint d_mask.
    dict(name="additive_mask", mask="additive", mask_shape=[2, 1, 67, 131]),
    # A rank-2 additive mask: d_mask sums over every (b, h).
    dict(name="additive_mask_2d", mask="additive", mask_shape=[67, 131]),
    dict(name="head_mask", mask="bool", mask_shape=[1, 4, 67, 131]),
    dict(name="decode_1x5", Sq=1, Sk=5, causal=True),
    dict(name="scale_half", scale=0.5),
    dict(name="softcap", softcap=2.0),
    dict(name="dv_48", Dv=48),
    # Rows i % 7 == 3 fully masked, batch 1 without keys: dQ rows exactly 0.
    dict(name="empty_rows", mask="bool_empty_rows", mask_shape=[2, 1, 67, 131],
         key_lengths=[131, 0], lengths_type="i32"),
    dict(name="dropout", dropout_p=0.2, seed=1234),
    dict(name="head_dim_128", Sq=80, Sk=80, Dk=128, Dv=128, causal=True),
]


def check_cases():
    """Every check case in every dtype, with the BASE sizes filled in, each
    twice: unpaired (`@attention_bwd`) and paired (`paired`: the forward
    with lse, then the backward from its O and LSE)."""
    cases = []
    for case in CHECK_CASES:
        for dtype in DTYPES:
            for paired in (False, True):
                full = dict(BASE)
                full.update(case)
                full["dtype"] = dtype
                full["paired"] = paired
                full["lib"] = f"{case['name']}_{dtype}" + (
                    "_paired" if paired else "")
                cases.append(full)
    return cases


BENCH_SEQ = (1024, 2048, 4096, 8192)
BENCH_DIM = (64, 128)


# kiln-lower-to-nvvm options of bench_paired_occupancy.so: at least 4
# blocks per SM of the forward's tensor-core kernel (ptxas: 144 -> 128
# registers, no spill, at D=64) and 3 of the backward's main kernel (174 ->
# 168 registers and a 40-byte spill), timed against bench_paired.so's
# default kernels by bench_attention_bwd.py.
OCCUPANCY_PIPELINE_OPTIONS = "forward-min-blocks-per-sm=4 backward-min-blocks-per-sm=3"


def bench_configs():
    """B=4, H=16 (and 16 query heads over 4 kv heads), bf16, in order of
    increasing cost so that a time budget cuts the largest."""
    configs = []
    for seq in BENCH_SEQ:
        for dim in BENCH_DIM:
            for kv in (16, 4):
                for causal in (False, True):
                    name = (f"b4_h16_kv{kv}_s{seq}_d{dim}_"
                            f"{'causal' if causal else 'full'}")
                    configs.append(dict(name=name, lib=name, B=4, Hq=16, Hkv=kv,
                                        Sq=seq, Sk=seq, Dk=dim, Dv=dim,
                                        causal=causal, dtype="bf16"))
    return configs


def shapes(case):
    """The shapes of q, k, v, dout and the mask of `case`."""
    B, Hq, Hkv = case["B"], case["Hq"], case["Hkv"]
    Sq, Sk, Dk, Dv = case["Sq"], case["Sk"], case["Dk"], case["Dv"]
    return dict(q=[B, Hq, Sq, Dk], k=[B, Hkv, Sk, Dk], v=[B, Hkv, Sk, Dv],
                dout=[B, Hq, Sq, Dv], lse=[B, Hq, Sq],
                mask=case.get("mask_shape"))


def lse_element(dtype):
    """The lse result's element type: f32 for half types, else the
    query's (docs/Attention.md, "The lse result")."""
    return "f32" if dtype in ("f16", "bf16") else dtype


def tensor_type(shape, element):
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{element}>"


def _operands(case):
    """(name, type) of the optional operands, in kiln's operand order."""
    optional = []
    mask = case.get("mask")
    if mask:
        element = case["dtype"] if mask == "additive" else "i1"
        optional.append(("mask", tensor_type(case["mask_shape"], element)))
    lengths = case.get("lengths_type", "i32")
    if "key_lengths" in case:
        optional.append(("key_lengths", tensor_type([case["B"]], lengths)))
    if "query_lengths" in case:
        optional.append(("query_lengths", tensor_type([case["B"]], lengths)))
    if case.get("dropout_p"):
        optional.append(("seed", "tensor<i64>"))
    return optional


def _attributes(case):
    attrs = []
    if case.get("causal"):
        attrs.append("causal")
    for key in ("window_left", "window_right"):
        if key in case:
            attrs.append(f"{key} = {case[key]} : i64")
    for key in ("scale", "softcap", "dropout_p"):
        if case.get(key) is not None:
            attrs.append(f"{key} = {float(case[key])!r} : f64")
    return "{" + ", ".join(attrs) + "}" if attrs else ""


def mlir_function(case, forward=False, name=None, lse=None, saved=None):
    """The kiln function of `case`: @attention_bwd(q, k, v, dout, optional
    operands) -> (dq, dk, dv[, d_mask]), or @attention_fwd(q, k, v, ...)
    (or @`name`). `lse`: the forward also returns its lse; `saved`: the
    backward also takes the forward's O and LSE (`out`/`lse`) after dout.
    Both default to case["paired"]; a paired case's default function is
    @attention_paired(q, k, v, dout, optional) -> (o, lse, dq, dk, dv[,
    d_mask]), the forward with lse and the backward from its O and LSE, as
    kiln-autodiff pairs them."""
    paired = case.get("paired", False)
    lse = paired if lse is None else lse
    saved = paired if saved is None else saved
    s = shapes(case)
    dt = case["dtype"]
    types = {n: tensor_type(s[n], dt) for n in ("q", "k", "v", "dout")}
    types["lse"] = tensor_type(s["lse"], lse_element(dt))
    optional = _operands(case)
    operand_text = " ".join(f"{n}(%{n} : {t})" for n, t in optional)
    attrs = _attributes(case)
    fwd_types = ", ".join(types[n] for n in ("q", "k", "v"))
    fwd_results = [types["dout"]] + ([types["lse"]] if lse else [])
    forward_op = (f"  {', '.join(['%o', '%lse'][:len(fwd_results)])} = "
                  f"kiln.attention %q, %k, %v {operand_text} {attrs}\n"
                  f"      : {fwd_types} -> {', '.join(fwd_results)}\n")
    optional_args = [f"%{n}: {t}" for n, t in optional]
    if forward:
        name = name or "attention_fwd"
        args = [f"%{n}: {types[n]}" for n in ("q", "k", "v")] + optional_args
        values = ["%o", "%lse"][:len(fwd_results)]
        return (f"func.func @{name}({', '.join(args)})\n"
                f"    -> ({', '.join(fwd_results)}) {{\n" + forward_op +
                f"  return {', '.join(values)} : {', '.join(fwd_results)}\n}}\n")
    both = paired and name is None
    name = name or ("attention_paired" if paired else "attention_bwd")
    names = ["q", "k", "v", "dout"] + (["o", "lse"] if saved and not both
                                       else [])
    arg_types = dict(types, o=types["dout"])
    args = [f"%{n}: {arg_types[n]}" for n in names] + optional_args
    results = [types["q"], types["k"], types["v"]]
    values = ["%dq", "%dk", "%dv"]
    if case.get("mask") == "additive":
        results.append(tensor_type(case["mask_shape"], dt))
        values.append("%dmask")
    in_types = ", ".join(types[n] for n in ("q", "k", "v", "dout"))
    saved_text = (f" out(%o : {types['dout']}) lse(%lse : {types['lse']})"
                  if saved else "")
    body = forward_op if both else ""
    returned = (["%o", "%lse"] if both else []) + values
    returned_types = (fwd_results if both else []) + results
    return (f"func.func @{name}({', '.join(args)})\n"
            f"    -> ({', '.join(returned_types)}) {{\n" + body +
            f"  {', '.join(values)} = kiln.attention_grad %q, %k, %v, %dout "
            f"{operand_text}{saved_text} {attrs}\n"
            f"      : {in_types} -> {', '.join(results)}\n"
            f"  return {', '.join(returned)} : {', '.join(returned_types)}\n}}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--only", choices=("check", "bench"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    files = []
    if args.only != "bench":
        files += [(c["lib"], mlir_function(c)) for c in check_cases()]
    if args.only != "check":
        configs = bench_configs()
        files.append(("bench_bwd", "\n".join(
            mlir_function(c, name="bwd_" + c["name"]) for c in configs)))
        files.append(("bench_fwd", "\n".join(
            mlir_function(c, forward=True, name="fwd_" + c["name"])
            for c in configs)))
        files.append(("bench_paired", "\n".join(
            mlir_function(c, forward=True, lse=True, name="fwd_" + c["name"]) +
            "\n" + mlir_function(c, saved=True, name="bwd_" + c["name"])
            for c in configs)))
        # The D=64 pairs again, for prepare_attention_bwd.sh to compile
        # with the occupancy hints OCCUPANCY_PIPELINE_OPTIONS.
        files.append(("bench_paired_occupancy", "\n".join(
            mlir_function(c, forward=True, lse=True, name="fwd_" + c["name"]) +
            "\n" + mlir_function(c, saved=True, name="bwd_" + c["name"])
            for c in configs if c["Dk"] == 64)))
    for name, text in files:
        path = args.out / f"{name}.mlir"
        # Rewritten only when changed, so that the prepare script's
        # timestamps skip the libraries that are up to date.
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        print(path)


if __name__ == "__main__":
    main()
