#!/usr/bin/python3
"""Exports a PyTorch nn.Module, traced with torch.fx, to a kiln JSON graph
(docs/GraphJson.md), which `kiln-translate --import-graph-json` turns into a
func.func of kiln ops.

    /usr/bin/python3 scripts/export_torch.py [--out-dir test/Translate/Inputs]

writes, for the bundled transformer block (`Block` below):

    torch_block.json         the graph; its parameters inline
    torch_block.tokens.npy   the example inputs (int64)
    torch_block.labels.npy
    torch_block.ref.json     the loss PyTorch computes on them, in float32
                             (the graph's precision) and in float64

`export(module, example_inputs, name)` is the reusable part: it traces the
module, propagates shapes with ShapeProp and maps each fx node to one or a few
kiln nodes. Supported: embedding, linear (transpose + matmul + add), layer_norm, matmul,
add/sub/mul/div (tensors or Python scalars), mean, rsqrt, reshape/view,
transpose, gelu, softmax, integer/slice indexing and Tensor.select (slice,
then reshape), F.linear,
cross_entropy, and `attention(q, k, v, causal)` below, a torch.fx leaf that
becomes kiln.attention. Anything else raises with the node's name.

Needs Debian's torch 1.13 (`/usr/bin/python3`); the Kiln test suite does not.
"""
import argparse
import json
import math
import operator
import os
import sys

import numpy as np
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp

DTYPES = {
    torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
    torch.float64: "f64", torch.bool: "i1", torch.int8: "i8",
    torch.int32: "i32", torch.int64: "i64",
}


@torch.fx.wrap
def attention(q, k, v, causal: bool = True):
    """Scaled dot-product attention over [B, H, S, Dh] (torch 1.13 has no
    F.scaled_dot_product_attention); kiln.attention when exported. K/V heads
    may be fewer than Q heads (grouped-query)."""
    rep = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(rep, dim=1)
    v = v.repeat_interleave(rep, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        s_q, s_k = q.shape[-2], k.shape[-2]
        keep = torch.ones(s_q, s_k, dtype=torch.bool).tril(s_k - s_q)
        scores = scores.masked_fill(~keep, float("-inf"))
    return scores.softmax(-1) @ v


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + self.eps) * self.weight


class Block(nn.Module):
    """A pre-norm transformer block with a class-token head and a loss."""

    def __init__(self, batch=2, seq=5, vocab=16, dim=8, heads=2, kv_heads=1,
                 hidden=16, classes=3):
        super().__init__()
        self.batch, self.seq = batch, seq
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.embed = nn.Embedding(vocab, dim)
        self.attn_norm = RMSNorm(dim)
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(dim, dim)
        self.ffn_norm = RMSNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens, labels):
        # Static sizes: torch.fx cannot unpack a traced shape.
        b, s = self.batch, self.seq
        x = self.embed(tokens)
        h = self.attn_norm(x)
        q = self.wq(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.wk(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        a = attention(q, k, v, True).transpose(1, 2).reshape(b, s, -1)
        x = x + self.wo(a)
        x = x + self.down(F.gelu(self.up(self.ffn_norm(x)), approximate="tanh"))
        logits = self.head(x[:, 0])
        return F.cross_entropy(logits, labels)


def _values(t):
    """Flat C-order values; float32 ones as the shortest decimal that rounds
    back to the same float32."""
    t = t.detach()
    if not t.is_floating_point():
        return [int(v) for v in t.flatten().tolist()]
    out = []
    for v in t.flatten().tolist():
        if math.isnan(v):
            out.append("nan")
        elif math.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        elif t.dtype == torch.float32:
            out.append(float(str(np.float32(v))))
        else:
            out.append(v)
    return out


class Exporter:
    def __init__(self, module, name):
        self.module = module
        self.graph = {"format": "kiln-graph", "version": 1, "name": name,
                      "inputs": [], "parameters": [], "nodes": [],
                      "outputs": []}
        self.refs = {}      # fx node -> reference string
        self.params = {}    # qualified name -> parameter name
        self.count = 0

    def new_id(self, hint):
        self.count += 1
        return "n%d_%s" % (self.count, hint.replace(".", "_"))

    def node(self, op, inputs, hint, attrs=None, type_of=None):
        nid = self.new_id(hint)
        entry = {"id": nid, "op": op, "inputs": inputs}
        if attrs:
            entry["attrs"] = attrs
        if type_of is not None:
            entry["type"] = type_of
        self.graph["nodes"].append(entry)
        return nid + ":0"

    def param(self, qualname):
        if qualname not in self.params:
            tensor = self.module.get_parameter(qualname) \
                if qualname in dict(self.module.named_parameters()) \
                else self.module.get_buffer(qualname)
            self.graph["parameters"].append({
                "name": qualname, "dtype": DTYPES[tensor.dtype],
                "shape": list(tensor.shape), "data": _values(tensor)})
            self.params[qualname] = qualname
        return qualname

    @staticmethod
    def meta(n):
        m = n.meta["tensor_meta"]
        return {"dtype": DTYPES[m.dtype], "shape": list(m.shape)}

    def scalar(self, value, like):
        meta = self.meta(like)
        return self.node("constant", [], "scalar", {"value": {
            "dtype": meta["dtype"], "shape": [], "data": [float(value)]}})

    def operand(self, arg, like):
        if isinstance(arg, torch.fx.Node):
            return self.refs[arg]
        if isinstance(arg, (int, float)):
            return self.scalar(arg, like)
        raise NotImplementedError("operand %r" % (arg,))

    def lower(self, n):
        target = n.target
        args, kwargs = list(n.args), dict(n.kwargs)
        name = n.name
        rank = lambda a: len(a.meta["tensor_meta"].shape)
        norm = lambda d, r: d + r if d < 0 else d

        if n.op == "call_module":
            mod = self.module.get_submodule(target)
            x = self.refs[args[0]]
            if isinstance(mod, nn.Embedding):
                return self.node("gather", [self.param(target + ".weight"), x],
                                 name, {"axis": 0})
            if isinstance(mod, nn.Linear):
                w = self.node("transpose", [self.param(target + ".weight")],
                              name + "_wt", {"dim0": 0, "dim1": 1})
                y = self.node("matmul", [x, w], name)
                if mod.bias is not None:
                    y = self.node("add", [y, self.param(target + ".bias")],
                                  name + "_bias")
                return y
            if isinstance(mod, nn.LayerNorm):
                inputs = [x, None, None]
                if mod.weight is not None:
                    inputs[1] = self.param(target + ".weight")
                if mod.bias is not None:
                    inputs[2] = self.param(target + ".bias")
                return self.node("layer_norm", inputs, name,
                                 {"normalized_rank":
                                      len(mod.normalized_shape),
                                  "epsilon": float(mod.eps)})
            raise NotImplementedError("module %s (%s)" % (target, type(mod)))

        if n.op == "get_attr":
            return self.param(target)

        binary = {operator.add: "add", torch.add: "add", "add": "add",
                  operator.sub: "sub", torch.sub: "sub", "sub": "sub",
                  operator.mul: "mul", torch.mul: "mul", "mul": "mul",
                  operator.truediv: "div", torch.div: "div", "div": "div",
                  torch.matmul: "matmul", operator.matmul: "matmul",
                  "matmul": "matmul"}
        if target in binary:
            tensor = args[0] if isinstance(args[0], torch.fx.Node) else args[1]
            return self.node(binary[target], [self.operand(args[0], tensor),
                                              self.operand(args[1], tensor)],
                             name)
        if target in (torch.rsqrt, "rsqrt"):
            return self.node("rsqrt", [self.refs[args[0]]], name)
        if target in (torch.mean, "mean"):
            dims = args[1] if len(args) > 1 else kwargs.get("dim")
            keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
            r = rank(args[0])
            dims = list(range(r)) if dims is None else (
                [dims] if isinstance(dims, int) else list(dims))
            return self.node("mean", [self.refs[args[0]]], name,
                             {"axes": sorted(norm(d, r) for d in dims),
                              "keep_dims": bool(keep)})
        if target in ("view", "reshape", torch.reshape):
            return self.node("reshape", [self.refs[args[0]]], name,
                             type_of=self.meta(n))
        if target in ("transpose", torch.transpose):
            r = rank(args[0])
            return self.node("transpose", [self.refs[args[0]]], name,
                             {"dim0": norm(args[1], r), "dim1": norm(args[2], r)})
        if target is F.gelu:
            approx = kwargs.get("approximate", "none")
            return self.node("gelu", [self.refs[args[0]]], name,
                             {"approximate": approx} if approx != "none" else None)
        if target in (F.softmax, torch.softmax, "softmax"):
            dim = args[1] if len(args) > 1 else kwargs["dim"]
            return self.node("softmax", [self.refs[args[0]]], name,
                             {"axis": norm(dim, rank(args[0]))})
        if target is attention:
            causal = args[3] if len(args) > 3 else kwargs.get("causal", True)
            return self.node("attention", [self.refs[a] for a in args[:3]], name,
                             {"causal": True} if causal else None)
        if target is F.cross_entropy:
            reduction = kwargs.get("reduction", "mean")
            return self.node("cross_entropy",
                             [self.refs[args[0]], self.refs[args[1]]], name,
                             {"reduction": reduction} if reduction != "mean"
                             else None)
        if target in ("select", torch.select):
            src, dim, idx = args[0], args[1], args[2]
            r = rank(src)
            index = [slice(None)] * norm(dim, r) + [idx]
            return self.slice_reshape(n, src, tuple(index))
        if target is F.linear:
            weight = args[1] if len(args) > 1 else kwargs["weight"]
            bias = args[2] if len(args) > 2 else kwargs.get("bias")
            w = self.node("transpose", [self.refs[weight]], name + "_wt",
                          {"dim0": 0, "dim1": 1})
            y = self.node("matmul", [self.refs[args[0]], w], name)
            if bias is not None:
                y = self.node("add", [y, self.refs[bias]], name + "_bias")
            return y
        if target is operator.getitem:
            return self.slice_reshape(n, args[0], args[1])
        raise NotImplementedError("fx node %s: %s %r" % (name, n.op, target))

    def slice_reshape(self, n, src, index):
        """Integer and step>0 slice indexing: kiln.slice, then kiln.reshape
        to drop the integer-indexed dims."""
        name = n.name
        norm = lambda d, r: d + r if d < 0 else d
        shape = list(src.meta["tensor_meta"].shape)
        index = index if isinstance(index, tuple) else (index,)
        starts, stops, strides = [], [], []
        for d, size in enumerate(shape):
            ix = index[d] if d < len(index) else slice(None)
            if isinstance(ix, int):
                ix = norm(ix, size)
                starts.append(ix), stops.append(ix + 1), strides.append(1)
            elif isinstance(ix, slice):
                a, b, c = ix.indices(size)
                if c < 1:
                    raise NotImplementedError("negative slice step")
                starts.append(a), stops.append(max(a, b)), strides.append(c)
            else:
                raise NotImplementedError("index %r" % (ix,))
        y = self.node("slice", [self.refs[src]], name + "_slice",
                      {"starts": starts, "stops": stops, "strides": strides})
        return self.node("reshape", [y], name, type_of=self.meta(n))

    def run(self, example_inputs):
        traced = torch.fx.symbolic_trace(self.module)
        ShapeProp(traced).propagate(*example_inputs)
        for n in traced.graph.nodes:
            if n.op == "placeholder":
                self.graph["inputs"].append(dict(name=n.name, **self.meta(n)))
                self.refs[n] = n.name
            elif n.op == "output":
                outs = n.args[0] if isinstance(n.args[0], (tuple, list)) \
                    else (n.args[0],)
                for i, o in enumerate(outs):
                    self.graph["outputs"].append({
                        "name": "loss" if len(outs) == 1 else "out%d" % i,
                        "value": self.refs[o]})
            else:
                self.refs[n] = self.lower(n)
        if not self.graph["parameters"]:
            del self.graph["parameters"]
        return self.graph


def export(module, example_inputs, name):
    return Exporter(module, name).run(example_inputs)


def write_graph(graph, path):
    """One line per entry, like kiln-translate --export-graph-json."""
    with open(path, "w") as f:
        f.write("{\n")
        keys = list(graph)
        for i, key in enumerate(keys):
            value = graph[key]
            f.write(" %s: " % json.dumps(key))
            if isinstance(value, list) and value:
                f.write("[\n")
                for j, item in enumerate(value):
                    f.write("  " + json.dumps(item, separators=(",", ":")) +
                            (",\n" if j + 1 < len(value) else "\n"))
                f.write(" ]")
            else:
                f.write(json.dumps(value))
            f.write(",\n" if i + 1 < len(keys) else "\n")
        f.write("}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "test", "Translate",
        "Inputs"))
    args = parser.parse_args()
    torch.manual_seed(0)
    block = Block().eval()
    gen = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, 16, (2, 5), generator=gen)
    labels = torch.randint(0, 3, (2,), generator=gen)
    graph = export(block, (tokens, labels), "torch_block")

    with torch.no_grad():
        loss32 = block(tokens, labels).item()
        loss64 = block.double()(tokens, labels).item()
    os.makedirs(args.out_dir, exist_ok=True)
    prefix = os.path.join(args.out_dir, "torch_block")
    write_graph(graph, prefix + ".json")
    np.save(prefix + ".tokens.npy", tokens.numpy())
    np.save(prefix + ".labels.npy", labels.numpy())
    with open(prefix + ".ref.json", "w") as f:
        json.dump({"generator": "scripts/export_torch.py",
                   "loss_f32": loss32, "loss_f64": loss64}, f, indent=1)
        f.write("\n")
    print("wrote %s.json (%d nodes), loss %.9g" %
          (prefix, len(graph["nodes"]), loss32))


if __name__ == "__main__":
    sys.exit(main())
