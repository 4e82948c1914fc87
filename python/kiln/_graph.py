"""Builds a Kiln JSON model graph (docs/GraphJson.md), one node at a time.

The importer (`kiln.importer`) calls `Graph.op` for each kiln op it emits;
values are `Value`s: a JSON reference plus the static type, which every
later decision (dtype promotion, axis normalization) reads.
"""
import json
import math

import numpy as np
import torch

DTYPES = {
    torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
    torch.float64: "f64", torch.bool: "i1", torch.int8: "i8",
    torch.int32: "i32", torch.int64: "i64",
}
TORCH_DTYPES = {v: k for k, v in DTYPES.items()}


class Value:
    """A tensor of the graph: its reference (`"x"`, `"n3:0"`), dtype and
    static shape."""

    __slots__ = ("ref", "dtype", "shape", "fqn")

    def __init__(self, ref, dtype, shape):
        self.ref, self.dtype, self.shape = ref, dtype, tuple(int(s) for s in shape)
        self.fqn = None  # the module's name of a parameter or buffer input

    @property
    def rank(self):
        return len(self.shape)

    def __repr__(self):
        return "Value(%s, %s, %s)" % (self.ref, self.dtype, list(self.shape))


def type_json(dtype, shape):
    return {"dtype": DTYPES[dtype], "shape": [int(s) for s in shape]}


def tensor_data(t):
    """The JSON tensor data of a torch tensor: a splat when every element is
    equal, else the flat values (floats that print exactly)."""
    t = t.detach().cpu()
    entry = {"dtype": DTYPES[t.dtype], "shape": list(t.shape)}
    flat = t.reshape(-1)
    if t.dtype == torch.bfloat16 or t.dtype == torch.float16:
        values = flat.double().tolist()
    else:
        values = flat.tolist()

    def enc(v):
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, float):
            if math.isnan(v):
                return "nan"
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            if t.dtype == torch.float32:
                return float(str(np.float32(v)))
        return v

    if len(values) > 0 and all(v == values[0] or (v != v and values[0] != values[0])
                               for v in values):
        entry["splat"] = enc(values[0])
    else:
        entry["data"] = [enc(v) for v in values]
    return entry


class Graph:
    def __init__(self, name):
        self.name = name
        self.inputs = []
        self.parameters = []
        self.nodes = []
        self.outputs = []
        self._count = 0
        self._names = set()

    def _fresh(self, hint):
        self._count += 1
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in hint)
        return "n%d_%s" % (self._count, hint) if hint else "n%d" % self._count

    def _claim(self, name):
        if name in self._names or ":" in name or not name:
            raise ValueError("duplicate or invalid graph name %r" % name)
        self._names.add(name)
        return name

    def add_input(self, name, dtype, shape):
        self.inputs.append(dict(name=self._claim(name), **type_json(dtype, shape)))
        return Value(name, dtype, shape)

    def add_parameter(self, name, dtype, shape):
        """A lifted parameter: its data is passed at run time, so the entry
        names a file that need not exist (docs/GraphJson.md)."""
        safe = "".join(c if c.isalnum() or c in "_-." else "_" for c in name)
        self.parameters.append(dict(name=self._claim(name),
                                    **type_json(dtype, shape),
                                    file=safe + ".npy"))
        return Value(name, dtype, shape)

    def op(self, op, inputs, dtype, shape, attrs=None, hint="", with_type=False,
           results=None):
        """Emits kiln.`op` and returns its Value (or a list of Values when
        `results` lists several (dtype, shape) pairs)."""
        nid = self._fresh(hint or op)
        entry = {"id": nid, "op": op,
                 "inputs": [None if i is None else i.ref for i in inputs]}
        while entry["inputs"] and entry["inputs"][-1] is None:
            entry["inputs"].pop()
        if attrs:
            entry["attrs"] = attrs
        if results is not None:
            entry["types"] = [type_json(d, s) for d, s in results]
            self.nodes.append(entry)
            return [Value("%s:%d" % (nid, i), d, s) for i, (d, s) in enumerate(results)]
        if with_type:
            entry["type"] = type_json(dtype, shape)
        self.nodes.append(entry)
        return Value(nid + ":0", dtype, shape)

    def constant(self, tensor, hint="const"):
        tensor = tensor.detach().cpu()
        if tensor.dtype not in DTYPES:
            raise TypeError("no kiln element type for %s" % tensor.dtype)
        nid = self._fresh(hint)
        self.nodes.append({"id": nid, "op": "constant",
                           "attrs": {"value": tensor_data(tensor)}})
        return Value(nid + ":0", tensor.dtype, tensor.shape)

    def add_output(self, name, value):
        self.outputs.append({"name": self._claim(name), "value": value.ref})

    def to_json(self):
        graph = {"format": "kiln-graph", "version": 1, "name": self.name,
                 "inputs": self.inputs}
        if self.parameters:
            graph["parameters"] = self.parameters
        graph["nodes"] = self.nodes
        graph["outputs"] = self.outputs
        return graph

    def dumps(self):
        """One line per entry, like kiln-translate --export-graph-json."""
        graph = self.to_json()
        out = ["{"]
        keys = list(graph)
        for i, key in enumerate(keys):
            value = graph[key]
            line = " %s: " % json.dumps(key)
            if isinstance(value, list) and value:
                items = [json.dumps(item, separators=(",", ":")) for item in value]
                line += "[\n  " + ",\n  ".join(items) + "\n ]"
            else:
                line += json.dumps(value)
            out.append(line + ("," if i + 1 < len(keys) else ""))
        out.append("}")
        return "\n".join(out) + "\n"
