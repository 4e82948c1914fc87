"""The ATen handlers of `kiln.importer`: one function per group of overloads,
each reading its schema arguments through `Args` (every argument honoured or
rejected) and emitting kiln ops through `Importer.op`."""
import math

import torch

from ._graph import Value
from .importer import _Unsupported, handles

INT64_MAX = 9223372036854775807


def _res(imp, n):
    return imp.meta(n)


def _bshape(*shapes):
    return tuple(torch.broadcast_shapes(*shapes))


# --------------------------------------------------------------------------
# Elementwise arithmetic
# --------------------------------------------------------------------------

_BINARY = {
    "aten.add.Tensor": "add", "aten.add.Scalar": "add",
    "aten.sub.Tensor": "sub", "aten.sub.Scalar": "sub",
    "aten.rsub.Scalar": "rsub", "aten.rsub.Tensor": "rsub",
    "aten.mul.Tensor": "mul", "aten.mul.Scalar": "mul",
    "aten.div.Tensor": "div", "aten.div.Scalar": "div",
    "aten.maximum.default": "maximum", "aten.minimum.default": "minimum",
    "aten.pow.Tensor_Tensor": "pow", "aten.pow.Scalar": "pow",
}


def _operand(imp, x, dtype):
    if isinstance(x, (bool, int, float)):
        return imp.scalar(x, dtype)
    return imp.val(x, dtype)


@handles(*_BINARY)
def binary(imp, n, a):
    kind = _BINARY[str(n.target)]
    dtype, shape = _res(imp, n)
    lhs = a["self"]
    rhs = a["other"] if "other" in a.values else a["exponent"]
    alpha = a.get("alpha", 1)
    if alpha != 1:
        if isinstance(rhs, (bool, int, float)):
            rhs = rhs * alpha
        else:
            rhs = imp.op("mul", [_operand(imp, rhs, dtype), imp.scalar(alpha, dtype)],
                         dtype, _shape_of(rhs))
    if kind == "rsub":
        kind, lhs, rhs = "sub", rhs, lhs
    if kind == "div" and not dtype.is_floating_point:
        raise _Unsupported("integer true division to an integer type")
    if kind in ("sub", "div") and dtype == torch.bool:
        raise _Unsupported("%s of booleans" % kind)
    # Small powers that are exact products (torch computes x**2 as x*x).
    if kind == "pow" and isinstance(rhs, (int, float)) and not isinstance(lhs, (int, float)):
        return _pow_scalar(imp, imp.val(lhs, dtype), float(rhs), dtype, shape)
    if kind == "pow" and not dtype.is_floating_point:
        raise _Unsupported("integer pow")
    return imp.op(kind, [_operand(imp, lhs, dtype), _operand(imp, rhs, dtype)], dtype, shape)


def _shape_of(x):
    if isinstance(x, Value):
        return x.shape
    if isinstance(x, torch.Tensor):
        return tuple(x.shape)
    return ()


def _pow_scalar(imp, x, e, dtype, shape):
    if e == 1.0:
        return x
    if e == 2.0:
        return imp.op("mul", [x, x], dtype, shape)
    if e == 0.5:
        return imp.op("sqrt", [x], dtype, shape)
    if e == -0.5:
        return imp.op("rsqrt", [x], dtype, shape)
    if not dtype.is_floating_point:
        raise _Unsupported("integer pow")
    return imp.op("pow", [x, imp.scalar(e, dtype)], dtype, shape)


@handles("aten.pow.Tensor_Scalar")
def pow_scalar(imp, n, a):
    dtype, shape = _res(imp, n)
    return _pow_scalar(imp, imp.val(a["self"], dtype), float(a["exponent"]), dtype, shape)


_UNARY = {
    "aten.neg.default": "neg", "aten.rsqrt.default": "rsqrt", "aten.sqrt.default": "sqrt",
    "aten.tanh.default": "tanh", "aten.sin.default": "sin", "aten.cos.default": "cos",
    "aten.exp.default": "exp", "aten.log.default": "log", "aten.sigmoid.default": "sigmoid",
    "aten.relu.default": "relu", "aten.abs.default": "abs", "aten.erf.default": "erf",
    "aten.silu.default": "silu", "aten.sign.default": "sign", "aten.log1p.default": "log1p",
    "aten.expm1.default": "expm1", "aten.log2.default": "log2", "aten.log10.default": "log10",
}


@handles(*_UNARY)
def unary(imp, n, a):
    dtype, shape = _res(imp, n)
    return imp.op(_UNARY[str(n.target)], [imp.val(a["self"], dtype)], dtype, shape)


@handles("aten.gelu.default")
def gelu(imp, n, a):
    dtype, shape = _res(imp, n)
    approx = a["approximate"]
    if approx not in ("none", "tanh"):
        raise _Unsupported("approximate=%r" % approx)
    return imp.op("gelu", [imp.val(a["self"], dtype)], dtype, shape,
                  {"approximate": approx} if approx != "none" else None)


@handles("aten.clamp.default", "aten.clamp_min.default", "aten.clamp_max.default")
def clamp(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    lo = a.get("min")
    hi = a.get("max")
    for v in (lo, hi):
        if v is not None and not isinstance(v, (int, float)):
            raise _Unsupported("tensor bounds")
    if dtype.is_floating_point:
        attrs = {}
        if lo is not None:
            attrs["min"] = float(lo)
        if hi is not None:
            attrs["max"] = float(hi)
        return imp.op("clamp", [x], dtype, shape, attrs)
    if lo is not None:
        x = imp.op("maximum", [x, imp.scalar(lo, dtype)], dtype, shape)
    if hi is not None:
        x = imp.op("minimum", [x, imp.scalar(hi, dtype)], dtype, shape)
    return x


# --------------------------------------------------------------------------
# Comparisons, logic, selection
# --------------------------------------------------------------------------

_COMPARE = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}


def _common(imp, a, b):
    def meta(x):
        # A dimensioned tensor outranks a 0-d one in torch's promotion.
        if isinstance(x, Value):
            return torch.empty((1,) * x.rank, dtype=x.dtype)
        if isinstance(x, torch.Tensor):
            return torch.empty((1,) * x.dim(), dtype=x.dtype)
        return x
    return imp.fdt(torch.result_type(meta(a), meta(b)))


def _compare_handler(kind):
    def handler(imp, n, a):
        dtype, shape = _res(imp, n)
        lhs, rhs = a["self"], a["other"]
        common = _common(imp, lhs, rhs)
        return imp.op(kind, [_operand(imp, lhs, common), _operand(imp, rhs, common)],
                      torch.bool, shape)
    return handler


for _k in _COMPARE:
    handles("aten.%s.Tensor" % _k, "aten.%s.Scalar" % _k)(_compare_handler(_COMPARE[_k]))


@handles("aten.logical_and.default", "aten.__and__.Tensor", "aten.bitwise_and.Tensor",
         "aten.logical_or.default", "aten.__or__.Tensor", "aten.bitwise_or.Tensor")
def logical(imp, n, a):
    dtype, shape = _res(imp, n)
    name = str(n.target)
    logical_op = "logical" in name
    if not logical_op and dtype != torch.bool:
        raise _Unsupported("bitwise operation on %s (only booleans)" % dtype)
    kind = "mul" if ("and" in name) else "add"
    lhs = _to_bool(imp, a["self"])
    rhs = _to_bool(imp, a["other"])
    out = imp.op(kind, [lhs, rhs], torch.bool, shape)
    return imp.cast(out, dtype)


def _to_bool(imp, x):
    if isinstance(x, (bool, int, float)):
        return imp.scalar(bool(x), torch.bool)
    v = imp.val(x)
    if v.dtype == torch.bool:
        return v
    zero = imp.scalar(0, v.dtype)
    return imp.op("ne", [v, zero], torch.bool, v.shape)


@handles("aten.logical_not.default", "aten.bitwise_not.default")
def logical_not(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"])
    if "bitwise" in str(n.target) and x.dtype != torch.bool:
        raise _Unsupported("bitwise not of %s (only booleans)" % x.dtype)
    b = _to_bool(imp, x)
    out = imp.op("eq", [b, imp.scalar(False, torch.bool)], torch.bool, shape)
    return imp.cast(out, dtype)


@handles("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther",
         "aten.where.Scalar")
def where(imp, n, a):
    dtype, shape = _res(imp, n)
    cond = _to_bool(imp, a["condition"])
    return imp.op("select", [cond, _operand(imp, a["self"], dtype),
                             _operand(imp, a["other"], dtype)], dtype, shape)


@handles("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def masked_fill(imp, n, a):
    dtype, shape = _res(imp, n)
    mask = _to_bool(imp, a["mask"])
    value = a["value"]
    if isinstance(value, torch.Tensor) and value.dim() == 0:
        value = value.item()
    return imp.op("select", [mask, _operand(imp, value, dtype),
                             imp.val(a["self"], dtype)], dtype, shape)


# --------------------------------------------------------------------------
# Matmuls
# --------------------------------------------------------------------------

def _transpose_last(imp, w):
    shape = list(w.shape)
    shape[-1], shape[-2] = shape[-2], shape[-1]
    return imp.op("transpose", [w], w.dtype, tuple(shape),
                  {"dim0": w.rank - 2, "dim1": w.rank - 1})


@handles("aten.linear.default")
def linear(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["input"], dtype)
    w = imp.val(a["weight"], dtype)
    y = imp.op("matmul", [x, _transpose_last(imp, w)], dtype, shape)
    b = a["bias"]
    if b is not None:
        y = imp.op("add", [y, imp.val(b, dtype)], dtype, shape)
    return y


@handles("aten.matmul.default", "aten.bmm.default", "aten.mm.default")
def matmul(imp, n, a):
    dtype, shape = _res(imp, n)
    rhs = a["other"] if "other" in a.values else a["mat2"]
    return imp.op("matmul", [imp.val(a["self"], dtype), imp.val(rhs, dtype)], dtype, shape)


@handles("aten.addmm.default", "aten.baddbmm.default")
def addmm(imp, n, a):
    dtype, shape = _res(imp, n)
    m1 = a["mat1"] if "mat1" in a.values else a["batch1"]
    m2 = a["mat2"] if "mat2" in a.values else a["batch2"]
    prod = imp.op("matmul", [imp.val(m1, dtype), imp.val(m2, dtype)], dtype, shape)
    beta, alpha = a["beta"], a["alpha"]
    if alpha != 1:
        prod = imp.op("mul", [prod, imp.scalar(alpha, dtype)], dtype, shape)
    if beta == 0:
        return prod
    bias = imp.val(a["self"], dtype)
    if beta != 1:
        bias = imp.op("mul", [bias, imp.scalar(beta, dtype)], dtype, bias.shape)
    return imp.op("add", [bias, prod], dtype, shape)


@handles("aten.t.default")
def t(imp, n, a):
    x = imp.val(a["self"])
    if x.rank < 2:
        return x
    return _transpose_last(imp, x)


# --------------------------------------------------------------------------
# Reductions and normalizations
# --------------------------------------------------------------------------

def _dims(imp, dims, rank):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted(set(imp.dim(d, rank) for d in dims))


@handles("aten.mean.dim", "aten.mean.default", "aten.sum.dim_IntList", "aten.sum.default",
         "aten.amax.default", "aten.amin.default")
def reduce(imp, n, a):
    name = str(n.target)
    kind = name.split(".")[1]
    kind = {"amax": "max", "amin": "min"}.get(kind, kind)
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"])
    if kind in ("sum", "mean"):
        # `dtype` is the result dtype torch computed (meta): honoured by the cast.
        a.ignore("dtype")
        x = imp.cast(x, dtype)
    if kind == "mean" and not dtype.is_floating_point:
        raise _Unsupported("mean of integers")
    dims = _dims(imp, a.get("dim"), x.rank)
    keep = bool(a.get("keepdim", False))
    if not dims:
        return x
    return imp.op(kind, [x], dtype, shape, {"axes": dims, "keep_dims": keep})


@handles("aten.argmax.default")
def argmax(imp, n, a):
    """kiln.argmax: the first index of the maximum, NaN above every number,
    as torch. Without `dim` (and for a rank-0 input) over the flattened
    input, `keepdim` then keeping every dim at size 1."""
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"])
    dim = a.get("dim")
    keep = bool(a.get("keepdim", False))
    if dim is not None and x.rank > 0:
        return imp.op("argmax", [x], dtype, shape,
                      {"axis": imp.dim(dim, x.rank), "keep_dims": keep})
    flat = x
    if x.rank != 1:
        flat = imp.op("reshape", [x], x.dtype, (math.prod(x.shape),), with_type=True)
    out = imp.op("argmax", [flat], dtype, (), {"axis": 0, "keep_dims": False})
    if tuple(shape) != ():
        out = imp.op("reshape", [out], dtype, shape, with_type=True)
    return out


@handles("aten.max.dim", "aten.min.dim")
def max_dim(imp, n, a):
    """(values, indices) of torch.max/min(x, dim, keepdim): kiln.max/min over
    `dim` and kiln.argmax (of -x for min), whose first index of the extremum,
    NaN above every number, is torch's choice too."""
    (vdtype, vshape), (idtype, ishape) = imp.meta(n)
    kind = "max" if str(n.target).startswith("aten.max") else "min"
    x = imp.val(a["self"])
    keep = bool(a.get("keepdim", False))
    if x.rank == 0:
        raise _Unsupported("%s.dim of a rank-0 tensor" % kind)
    dim = imp.dim(a["dim"], x.rank)
    values = imp.op(kind, [x], vdtype, vshape, {"axes": [dim], "keep_dims": keep})
    source = x if kind == "max" else imp.op("neg", [x], x.dtype, x.shape)
    indices = imp.op("argmax", [source], idtype, ishape, {"axis": dim, "keep_dims": keep})
    return [values, indices]


@handles("aten.softmax.int", "aten._softmax.default", "aten.log_softmax.int",
         "aten._log_softmax.default")
def softmax(imp, n, a):
    dtype, shape = _res(imp, n)
    kind = "log_softmax" if "log_softmax" in str(n.target) else "softmax"
    x = imp.val(a["self"])
    # softmax(x, dim, dtype) converts x to dtype first; _softmax's
    # half_to_float computes in f32: both are the result dtype.
    a.get("dtype")
    a.get("half_to_float")
    x = imp.cast(x, dtype)
    return imp.op(kind, [x], dtype, shape, {"axis": imp.dim(a["dim"], x.rank)})


@handles("aten.layer_norm.default")
def layer_norm(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["input"], dtype)
    ns = list(a["normalized_shape"])
    if tuple(x.shape[x.rank - len(ns):]) != tuple(ns):
        raise _Unsupported("normalized_shape %s does not end the input shape" % ns)
    a.ignore("cudnn_enable")
    w, b = a["weight"], a["bias"]
    return imp.op("layer_norm", [x, None if w is None else imp.val(w, dtype),
                                 None if b is None else imp.val(b, dtype)],
                  dtype, shape, {"normalized_rank": len(ns), "epsilon": float(a["eps"])})


@handles("aten.rms_norm.default")
def rms_norm(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["input"], dtype)
    ns = list(a["normalized_shape"])
    eps = a["eps"]
    if eps is None:
        eps = torch.finfo(dtype).eps
    w = a["weight"]
    return imp.op("rms_norm", [x] + ([imp.val(w, dtype)] if w is not None else []),
                  dtype, shape, {"normalized_rank": len(ns), "epsilon": float(eps)})


# --------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------

@handles("aten.cross_entropy_loss.default")
def cross_entropy(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    target = a["target"]
    weight = a["weight"]
    reduction = {0: "none", 1: "mean", 2: "sum"}[a["reduction"]]
    ignore = int(a["ignore_index"])
    smoothing = float(a["label_smoothing"])
    tv = imp.val(target)
    if tv.dtype.is_floating_point:
        raise _Unsupported("class-probability targets (a float target)")
    if x.rank == 1:
        x = imp.op("reshape", [x], dtype, (1,) + x.shape, with_type=True)
        tv = imp.op("reshape", [tv], tv.dtype, (1,), with_type=True)
    if x.rank > 2:
        # [N, C, d...] -> [N*d..., C]; the target [N, d...] -> [N*d...].
        perm = [0] + list(range(2, x.rank)) + [1]
        pshape = tuple(x.shape[p] for p in perm)
        x = imp.op("permute", [x], dtype, pshape, {"permutation": perm})
        rows = math.prod(pshape[:-1])
        x = imp.op("reshape", [x], dtype, (rows, pshape[-1]), with_type=True)
        tv = imp.op("reshape", [tv], tv.dtype, (rows,), with_type=True)
    N, C = x.shape
    per_sample_shape = (N,)
    if weight is None and smoothing == 0.0:
        out_shape = per_sample_shape if reduction == "none" else ()
        loss = imp.op("cross_entropy", [x, tv], dtype, out_shape,
                      {"reduction": reduction, "ignore_index": ignore})
        if reduction == "none" and tuple(shape) != out_shape:
            loss = imp.op("reshape", [loss], dtype, shape, with_type=True)
        return loss
    # The general form, as ATen computes it: NLL of log_softmax with class
    # weights, plus label smoothing's mean over classes.
    lsm = imp.op("log_softmax", [x], dtype, (N, C), {"axis": 1})
    valid = imp.op("ne", [tv, imp.scalar(ignore, tv.dtype)], torch.bool, (N,))
    col = imp.op("reshape", [tv], tv.dtype, (N, 1), with_type=True)
    classes = imp.val(torch.arange(C, dtype=tv.dtype).reshape(1, C))
    onehot = imp.op("eq", [col, classes], torch.bool, (N, C))
    zero = imp.scalar(0.0, dtype)
    picked = imp.op("sum", [imp.op("select", [onehot, lsm, zero], dtype, (N, C))],
                    dtype, (N,), {"axes": [1], "keep_dims": False})
    if weight is not None:
        w = imp.val(weight, dtype)
        if w.shape != (C,):
            raise _Unsupported("weight of shape %s for %d classes" % (list(w.shape), C))
        wrow = imp.op("reshape", [w], dtype, (1, C), with_type=True)
        wy = imp.op("sum", [imp.op("select", [onehot, wrow, zero], dtype, (N, C))],
                    dtype, (N,), {"axes": [1], "keep_dims": False})
    else:
        wy = imp.op("convert", [valid], dtype, (N,), with_type=True)
    wy = imp.op("select", [valid, wy, zero], dtype, (N,))
    nll = imp.op("neg", [imp.op("mul", [picked, wy], dtype, (N,))], dtype, (N,))

    def reduce_(v, denom):
        if reduction == "none":
            return v
        s = imp.op("sum", [v], dtype, (), {"axes": [0], "keep_dims": False})
        if reduction == "sum":
            return s
        return imp.op("div", [s, denom], dtype, ())

    denom = None
    if reduction == "mean":
        denom = imp.op("sum", [wy], dtype, (), {"axes": [0], "keep_dims": False})
    loss = reduce_(nll, denom)
    if smoothing > 0.0:
        if weight is not None:
            terms = imp.op("mul", [lsm, wrow], dtype, (N, C))
        else:
            terms = lsm
        smooth = imp.op("neg", [imp.op("sum", [terms], dtype, (N,),
                                       {"axes": [1], "keep_dims": False})], dtype, (N,))
        smooth = imp.op("select", [valid, smooth, zero], dtype, (N,))
        if reduction == "mean" and weight is None:
            denom = imp.op("sum", [imp.op("convert", [valid], dtype, (N,), with_type=True)],
                           dtype, (), {"axes": [0], "keep_dims": False})
        smooth = reduce_(smooth, denom)
        a_ = imp.op("mul", [loss, imp.scalar(1.0 - smoothing, dtype)], dtype, loss.shape)
        b_ = imp.op("mul", [smooth, imp.scalar(smoothing / C, dtype)], dtype, smooth.shape)
        loss = imp.op("add", [a_, b_], dtype, loss.shape)
    if tuple(loss.shape) != tuple(shape):
        loss = imp.op("reshape", [loss], dtype, shape, with_type=True)
    return loss


@handles("aten.dropout.default")
def dropout(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["input"], dtype)
    p = float(a["p"])
    if not a["train"] or p == 0.0:
        return x
    if p == 1.0:
        return imp.op("mul", [x, imp.scalar(0.0, dtype)], dtype, shape)
    return imp.op("dropout", [x, imp.seed_input()], dtype, shape, {"p": p})


# --------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------

@handles("aten.scaled_dot_product_attention.default")
def sdpa(imp, n, a):
    dtype, shape = _res(imp, n)
    q = imp.val(a["query"], dtype)
    k = imp.val(a["key"], dtype)
    v = imp.val(a["value"], dtype)
    mask = a["attn_mask"]
    causal = bool(a["is_causal"])
    p = float(a["dropout_p"])
    scale = a["scale"]
    gqa = bool(a["enable_gqa"])
    if causal and mask is not None:
        raise _Unsupported("both attn_mask and is_causal (PyTorch rejects it too)")
    if q.rank != 4 or k.rank != 4 or v.rank != 4:
        raise _Unsupported("query/key/value of rank %d/%d/%d (Kiln takes [B, H, S, D])"
                           % (q.rank, k.rank, v.rank))
    if k.shape[1] != q.shape[1] and not gqa:
        raise _Unsupported("fewer key heads than query heads without enable_gqa")
    attrs = {"alignment": "top_left"}
    if causal:
        attrs["causal"] = True
    if scale is not None:
        attrs["scale"] = float(scale)
    inputs = [q, k, v, None, None, None, None]
    if mask is not None:
        m = imp.val(mask)
        if m.dtype != torch.bool:
            m = imp.cast(m, dtype)
        inputs[3] = m
    if p > 0.0:
        attrs["dropout_p"] = p
        inputs[6] = imp.seed_input()
    return imp.op("attention", inputs, dtype, shape, attrs)


# --------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------

@handles("aten.view.default", "aten.reshape.default", "aten._unsafe_view.default",
         "aten.flatten.using_ints", "aten.unflatten.int")
def reshape(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    # The size arguments are honoured through the result shape torch computed.
    a.ignore("shape", "size", "start_dim", "end_dim", "dim", "sizes")
    if x.shape == tuple(shape):
        return x
    return imp.op("reshape", [x], dtype, shape, with_type=True)


@handles("aten.expand.default", "aten.expand_as.default", "aten.broadcast_to.default")
def expand(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    a.get("size"), a.get("other"), a.get("implicit")
    if x.shape == tuple(shape):
        return x
    return imp.op("broadcast_to", [x], dtype, shape, with_type=True)


@handles("aten.transpose.int")
def transpose(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    d0, d1 = imp.dim(a["dim0"], x.rank), imp.dim(a["dim1"], x.rank)
    if d0 == d1:
        return x
    return imp.op("transpose", [x], dtype, shape, {"dim0": d0, "dim1": d1})


@handles("aten.permute.default")
def permute(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    perm = [imp.dim(d, x.rank) for d in a["dims"]]
    if perm == list(range(x.rank)):
        return x
    return imp.op("permute", [x], dtype, shape, {"permutation": perm})


@handles("aten.unsqueeze.default")
def unsqueeze(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    return imp.op("unsqueeze", [x], dtype, shape, {"dim": imp.dim(a["dim"], x.rank + 1)})


@handles("aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default")
def squeeze(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    a.get("dim")
    if x.shape == tuple(shape):
        return x
    return imp.op("reshape", [x], dtype, shape, with_type=True)


@handles("aten.contiguous.default", "aten.alias.default", "aten.clone.default",
         "aten.lift_fresh_copy.default", "aten.view_as.default")
def identity(imp, n, a):
    dtype, shape = _res(imp, n)
    a.ignore("memory_format", "other")
    return imp.val(a["self"], dtype)


@handles("aten.detach.default")
def detach(imp, n, a):
    x = a["self"]
    if isinstance(x, Value) and x.fqn is not None:
        return imp.detached_parameter(x)
    raise _Unsupported("detach of a computed value (Kiln has no stop-gradient op yet)")


@handles("aten.to.dtype", "aten.to.dtype_layout", "aten.to.device", "aten._to_copy.default",
         "aten.type_as.default", "aten.to.other")
def to(imp, n, a):
    dtype, shape = _res(imp, n)
    a.ignore("device", "layout", "pin_memory", "non_blocking", "copy", "memory_format",
             "dtype", "other")
    return imp.val(a["self"], dtype)


@handles("aten.cat.default", "aten.concat.default")
def cat(imp, n, a):
    dtype, shape = _res(imp, n)
    parts = [imp.val(t, dtype) for t in a["tensors"]]
    parts = [p for p in parts if not (p.rank == 1 and p.shape[0] == 0 and len(shape) != 1)]
    axis = imp.dim(a["dim"], len(shape))
    if len(parts) == 1:
        return parts[0]
    return imp.op("concat", parts, dtype, shape, {"axis": axis})


@handles("aten.split.Tensor", "aten.split_with_sizes.default", "aten.chunk.default")
def split(imp, n, a):
    """split, split_with_sizes and chunk: the pieces' sizes are those torch
    gave the results (chunk's last piece may be smaller, or pieces fewer)."""
    results = imp.meta(n)
    x = imp.val(a["self"])
    axis = imp.dim(a["dim"], x.rank)
    a.get("split_size"), a.get("split_sizes"), a.get("chunks")
    sizes = [s[axis] for _, s in results]
    if len(sizes) == 1:
        return [x]
    return imp.graph.op("split", [x], None, None, {"axis": axis, "split_sizes": sizes},
                        hint=imp.hint, results=results)


@handles("aten.slice.Tensor")
def slice_(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    d = imp.dim(a["dim"], x.rank)
    size = x.shape[d]
    start, end, step = a["start"], a["end"], a["step"]
    start = 0 if start is None else start
    end = INT64_MAX if end is None else end
    if step < 1:
        raise _Unsupported("slice step %d" % step)
    s0, s1, _ = slice(start, min(end, INT64_MAX), step).indices(size)
    if s0 == 0 and s1 >= size and step == 1:
        return x
    starts = [0] * x.rank
    stops = list(x.shape)
    strides = [1] * x.rank
    starts[d], stops[d], strides[d] = s0, max(s0, s1), step
    return imp.op("slice", [x], dtype, shape,
                  {"starts": starts, "stops": stops, "strides": strides})


@handles("aten.select.int")
def select(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    d = imp.dim(a["dim"], x.rank)
    i = a["index"]
    if not -x.shape[d] <= i < x.shape[d]:
        raise _Unsupported("index %d out of range" % i)
    i = i + x.shape[d] if i < 0 else i
    starts = [0] * x.rank
    stops = list(x.shape)
    starts[d], stops[d] = i, i + 1
    y = imp.op("slice", [x], dtype, x.shape[:d] + (1,) + x.shape[d + 1:],
               {"starts": starts, "stops": stops, "strides": [1] * x.rank})
    return imp.op("reshape", [y], dtype, shape, with_type=True)


@handles("aten.pad.default", "aten.constant_pad_nd.default")
def pad(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    mode = a.get("mode", "constant")
    if mode != "constant":
        raise _Unsupported("pad mode %r" % mode)
    value = a["value"]
    value = 0.0 if value is None else float(value)
    pads = list(a["pad"])
    if len(pads) % 2 or len(pads) // 2 > x.rank:
        raise _Unsupported("pad list %s" % pads)
    low = [0] * x.rank
    high = [0] * x.rank
    for i in range(len(pads) // 2):
        d = x.rank - 1 - i
        low[d], high[d] = pads[2 * i], pads[2 * i + 1]
    if any(p < 0 for p in low + high):
        raise _Unsupported("negative padding")
    if not dtype.is_floating_point and not float(value).is_integer():
        raise _Unsupported("pad value %r for an integer tensor" % value)
    return imp.op("pad", [x], dtype, shape, {"low": low, "high": high, "value": value})


@handles("aten.triu.default", "aten.tril.default")
def triangular(imp, n, a):
    dtype, shape = _res(imp, n)
    kind = "triu" if "triu" in str(n.target) else "tril"
    return imp.op(kind, [imp.val(a["self"], dtype)], dtype, shape,
                  {"diagonal": int(a["diagonal"])})


@handles("aten.embedding.default")
def embedding(imp, n, a):
    dtype, shape = _res(imp, n)
    w = imp.val(a["weight"], dtype)
    idx = imp.val(a["indices"])
    if a["sparse"]:
        raise _Unsupported("sparse=True")
    if a["scale_grad_by_freq"]:
        raise _Unsupported("scale_grad_by_freq=True")
    pad_idx = a["padding_idx"]
    out = imp.op("gather", [w, idx], dtype, shape, {"axis": 0})
    if pad_idx is not None and pad_idx >= 0:
        # The row padding_idx gets no gradient: its lookups read a detached
        # copy of the weight instead.
        wd = imp.detached_parameter(w)
        frozen = imp.op("gather", [imp.cast(wd, dtype), idx], dtype, shape, {"axis": 0})
        is_pad = imp.op("eq", [idx, imp.scalar(pad_idx, idx.dtype)], torch.bool, idx.shape)
        is_pad = imp.op("unsqueeze", [is_pad], torch.bool, idx.shape + (1,), {"dim": idx.rank})
        out = imp.op("select", [is_pad, frozen, out], dtype, shape)
    return out


@handles("aten.index.Tensor")
def index(imp, n, a):
    """Advanced indexing: the indexed dims are linearized into one and read
    with one kiln.gather."""
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    indices = list(a["indices"])
    while indices and indices[-1] is None:
        indices.pop()
    dims = [i for i, t in enumerate(indices) if t is not None]
    if not dims:
        return x
    for i in dims:
        t = indices[i]
        tdt = t.dtype
        if tdt == torch.bool:
            raise _Unsupported("boolean-mask indexing (a data-dependent shape)")
    adjacent = dims == list(range(dims[0], dims[-1] + 1))
    if not adjacent:
        # Torch puts the broadcast index dims first: permute them there.
        perm = dims + [d for d in range(x.rank) if d not in dims]
        x = imp.op("permute", [x], dtype, tuple(x.shape[p] for p in perm),
                   {"permutation": perm})
        indices = [indices[d] for d in dims]
        dims = list(range(len(dims)))
    first = dims[0]
    sizes = [x.shape[d] for d in dims]
    ishape = _bshape(*[_shape_of(indices[d]) for d in dims])
    lin = None
    stride = 1
    for d, size in reversed(list(zip(dims, sizes))):
        t = indices[d]
        if isinstance(t, torch.Tensor):
            tt = torch.where(t < 0, t + size, t).to(torch.int64) * stride
            term = imp.val(tt)
        else:
            tv = imp.cast(imp.val(t), torch.int64)
            neg = imp.op("lt", [tv, imp.scalar(0, torch.int64)], torch.bool, tv.shape)
            wrapped = imp.op("add", [tv, imp.scalar(size, torch.int64)], torch.int64, tv.shape)
            tv = imp.op("select", [neg, wrapped, tv], torch.int64, tv.shape)
            term = tv if stride == 1 else imp.op(
                "mul", [tv, imp.scalar(stride, torch.int64)], torch.int64, tv.shape)
        lin = term if lin is None else imp.op(
            "add", [lin, term], torch.int64, _bshape(lin.shape, term.shape))
        stride *= size
    if lin.shape != ishape:
        lin = imp.op("broadcast_to", [lin], torch.int64, ishape, with_type=True)
    flat_shape = x.shape[:first] + (math.prod(sizes),) + x.shape[dims[-1] + 1:]
    if flat_shape != x.shape:
        x = imp.op("reshape", [x], dtype, flat_shape, with_type=True)
    out = imp.op("gather", [x, lin], dtype,
                 x.shape[:first] + ishape + x.shape[first + 1:], {"axis": first})
    if out.shape != tuple(shape):
        out = imp.op("reshape", [out], dtype, shape, with_type=True)
    return out


@handles("aten.flip.default")
def flip(imp, n, a):
    """x.flip(dims): per flipped dim of size > 1, one kiln.gather along it
    with the reversed positions as a constant index (whose adjoint scatters
    the cotangent back, so the gradient is exact)."""
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    dims = [imp.dim(d, x.rank) for d in a["dims"]]
    if len(set(dims)) != len(dims):
        raise _Unsupported("flip dims %s repeat a dim" % list(a["dims"]))
    for d in sorted(dims):
        size = x.shape[d]
        if size <= 1:
            continue
        reversed_positions = imp.val(torch.arange(size - 1, -1, -1, dtype=torch.int64))
        x = imp.op("gather", [x, reversed_positions], dtype, x.shape, {"axis": d})
    return x


@handles("aten.cumsum.default")
def cumsum(imp, n, a):
    """kiln.cumsum along `dim`, in the result's dtype: torch promotes
    integer and bool inputs to int64 unless `dtype` is given, and `dtype`
    converts the input first (torch.cumsum computes in it)."""
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"])
    d = imp.dim(a["dim"], x.rank)
    a.get("dtype")  # honoured: it is the result's dtype
    x = imp.cast(x, dtype)
    if x.rank == 0:
        return x  # the cumulative sum of one element is that element
    return imp.op("cumsum", [x], dtype, shape, {"axis": d, "reverse": False})


# Constructors never see an input, so they are always folded; these handlers
# only run for the `*_like`/`new_*` forms whose shape comes from a tensor
# operand.
@handles("aten.new_ones.default", "aten.new_zeros.default", "aten.new_full.default",
         "aten.ones_like.default", "aten.zeros_like.default", "aten.full_like.default")
def filled(imp, n, a):
    dtype, shape = _res(imp, n)
    name = str(n.target)
    a.ignore("self", "size", "dtype", "layout", "device", "pin_memory", "memory_format")
    if "ones" in name:
        value = 1
    elif "zeros" in name:
        value = 0
    else:
        value = a["fill_value"]
    return imp.val(torch.full(shape, value, dtype=dtype))


@handles("aten.diff.default")
def diff(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    if a["n"] != 1 or a["prepend"] is not None or a["append"] is not None:
        raise _Unsupported("diff with n != 1, prepend or append")
    d = imp.dim(a["dim"], x.rank)
    size = x.shape[d]

    def part(s0, s1):
        starts, stops = [0] * x.rank, list(x.shape)
        starts[d], stops[d] = s0, s1
        out = x.shape[:d] + (s1 - s0,) + x.shape[d + 1:]
        return imp.op("slice", [x], dtype, out,
                      {"starts": starts, "stops": stops, "strides": [1] * x.rank})
    if dtype == torch.bool:
        return imp.op("ne", [part(1, size), part(0, size - 1)], dtype, shape)
    return imp.op("sub", [part(1, size), part(0, size - 1)], dtype, shape)


@handles("aten.repeat_interleave.self_int")
def repeat_interleave(imp, n, a):
    """x.repeat_interleave(r, dim): unsqueeze after dim, broadcast, merge
    (the form HF's repeat_kv writes, which kiln-raise-attention reads)."""
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    d = a["dim"]
    if d is None:
        raise _Unsupported("repeat_interleave without dim (flattens)")
    d = imp.dim(d, x.rank)
    reps = int(a["repeats"])
    a.get("output_size")
    up = x.shape[:d + 1] + (1,) + x.shape[d + 1:]
    y = imp.op("unsqueeze", [x], dtype, up, {"dim": d + 1})
    big = x.shape[:d + 1] + (reps,) + x.shape[d + 1:]
    y = imp.op("broadcast_to", [y], dtype, big, with_type=True)
    return imp.op("reshape", [y], dtype, shape, with_type=True)


@handles("aten.repeat.default")
def repeat(imp, n, a):
    """x.repeat(r0, r1, ...): each dim tiled, as unsqueeze-broadcast-merge."""
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    reps = list(a["repeats"])
    lead = len(reps) - x.rank
    if lead < 0:
        raise _Unsupported("fewer repeats than dims")
    src = (1,) * lead + x.shape
    if src != x.shape:
        x = imp.op("reshape", [x], dtype, src, with_type=True)
    # [.., r_d, s_d, ..] then merge each pair.
    inter = []
    for r_, s_ in zip(reps, src):
        inter += [1, s_]
    y = imp.op("reshape", [x], dtype, tuple(inter), with_type=True)
    big = []
    for r_, s_ in zip(reps, src):
        big += [r_, s_]
    y = imp.op("broadcast_to", [y], dtype, tuple(big), with_type=True)
    return imp.op("reshape", [y], dtype, shape, with_type=True)


@handles("aten.square.default")
def square(imp, n, a):
    dtype, shape = _res(imp, n)
    x = imp.val(a["self"], dtype)
    return imp.op("mul", [x, x], dtype, shape)


@handles("aten.reciprocal.default")
def reciprocal(imp, n, a):
    dtype, shape = _res(imp, n)
    if not dtype.is_floating_point:
        raise _Unsupported("integer reciprocal")
    return imp.op("div", [imp.scalar(1.0, dtype), imp.val(a["self"], dtype)], dtype, shape)
