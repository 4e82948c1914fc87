"""The cases of check_attention_bwd.py and bench_attention_bwd.py, and the
kiln functions that prepare_attention_bwd.sh compiles for them.

One definition of every case, read by the generator here (with
/usr/bin/python3, no torch needed) and by the checks on the GPU machine, so
the compiled shapes and the checked shapes cannot drift apart.

    python3 attention_bwd_cases.py --out DIR [--only check|bench]

writes DIR/<case>.mlir, one library per check case (`@attention_bwd`, the
kiln.attention_grad alone, so that a case that fails to compile fails
alone), and for the benchmark DIR/bench_bwd.mlir with `@bwd_<config>` and
DIR/bench_fwd.mlir with `@fwd_<config>` (kiln.attention alone) for every
configuration: two libraries, so that a forward that does not compile never
hides the backward.
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
    """Every check case in every dtype, with the BASE sizes filled in."""
    cases = []
    for case in CHECK_CASES:
        for dtype in DTYPES:
            full = dict(BASE)
            full.update(case)
            full["dtype"] = dtype
            full["lib"] = f"{case['name']}_{dtype}"
            cases.append(full)
    return cases


BENCH_SEQ = (1024, 2048, 4096, 8192)
BENCH_DIM = (64, 128)


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
                dout=[B, Hq, Sq, Dv], mask=case.get("mask_shape"))


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


def mlir_function(case, forward=False, name=None):
    """The kiln function of `case`: @attention_bwd(q, k, v, dout, optional
    operands) -> (dq, dk, dv[, d_mask]), or @attention_fwd(q, k, v, ...)
    (or @`name`)."""
    name = name or ("attention_fwd" if forward else "attention_bwd")
    s = shapes(case)
    dt = case["dtype"]
    types = {n: tensor_type(s[n], dt) for n in ("q", "k", "v", "dout")}
    optional = _operands(case)
    names = ["q", "k", "v"] + ([] if forward else ["dout"])
    args = [f"%{n}: {types[n]}" for n in names]
    args += [f"%{n}: {t}" for n, t in optional]
    operand_text = " ".join(f"{n}(%{n} : {t})" for n, t in optional)
    attrs = _attributes(case)
    head = ", ".join(f"%{n}" for n in names)
    in_types = ", ".join(types[n] for n in names)
    if forward:
        result = tensor_type(s["dout"], dt)
        return (f"func.func @{name}({', '.join(args)}) -> {result} {{\n"
                f"  %o = kiln.attention {head} {operand_text} {attrs}\n"
                f"      : {in_types} -> {result}\n"
                f"  return %o : {result}\n}}\n")
    results = [types["q"], types["k"], types["v"]]
    values = ["%dq", "%dk", "%dv"]
    if case.get("mask") == "additive":
        results.append(tensor_type(case["mask_shape"], dt))
        values.append("%dmask")
    return (f"func.func @{name}({', '.join(args)})\n"
            f"    -> ({', '.join(results)}) {{\n"
            f"  {', '.join(values)} = kiln.attention_grad {head} {operand_text} "
            f"{attrs}\n"
            f"      : {in_types} -> {', '.join(results)}\n"
            f"  return {', '.join(values)} : {', '.join(results)}\n}}\n")


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
    for name, text in files:
        path = args.out / f"{name}.mlir"
        # Rewritten only when changed, so that the prepare script's
        # timestamps skip the libraries that are up to date.
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        print(path)


if __name__ == "__main__":
    main()
