"""Helpers for checking Kiln against PyTorch."""
import torch


def promoted_module(program, dtype=torch.float64):
    """The program's ATen graph as a torch module (`ExportedProgram.module()`)
    in which every floating dtype the graph names (`.to(torch.float32)`,
    `softmax(..., dtype=torch.float32)`) is `dtype`, so torch computes the
    whole graph in `dtype`: the reference for `kiln.compile(..., dtype=dtype)`
    of a model that casts to float32 inside. Parameters keep the program's
    dtype; export a `.double()` model for an f64 reference."""
    gm = program.module()

    def fix(a):
        if isinstance(a, torch.dtype) and a.is_floating_point:
            return dtype
        if isinstance(a, (list, tuple)):
            return type(a)(fix(x) for x in a)
        return a

    for node in list(gm.graph.nodes):
        if node.op != "call_function":
            continue
        if "_assert_tensor_metadata" in str(node.target):
            gm.graph.erase_node(node)
            continue
        node.args = fix(node.args)
        node.kwargs = {k: fix(v) for k, v in node.kwargs.items()}
    gm.graph.lint()
    gm.recompile()
    return gm


def max_relative_error(actual, expected):
    """max |actual - expected| / max |expected| (the per-tensor measure of
    the model tests); NaN anywhere gives inf."""
    actual = actual.detach().double()
    expected = expected.detach().double()
    if torch.isnan(actual).any() or torch.isnan(expected).any():
        return float("inf")
    scale = expected.abs().max().item()
    err = (actual - expected).abs().max().item() if actual.numel() else 0.0
    return err / scale if scale > 0 else err
