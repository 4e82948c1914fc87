"""Each ATen op family the importer maps, compiled by Kiln and compared with
torch in float64: the outputs and the gradients of every input that
requires grad (torch autograd is the reference, computed in the test)."""
import re

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import kiln
from kiln.testing import max_relative_error

TOL = 1e-12


class Fn(nn.Module):
    def __init__(self, fn, params=()):
        super().__init__()
        self.fn = fn
        self.ps = nn.ParameterList([nn.Parameter(p) for p in params])

    def forward(self, *args):
        return self.fn(*self.ps, *args)


def check(fn, params, inputs, tol=TOL):
    frozen = [getattr(p, "_frozen", False) for p in params]
    params = [p.double() if p.is_floating_point() else p for p in params]
    m = Fn(fn, params)
    ref = Fn(fn, params)
    for mod in (m, ref):
        for p, f in zip(mod.ps, frozen):
            p.requires_grad_(not f)
    compiled = kiln.compile(m, tuple(inputs))
    out = compiled(*inputs)
    want = ref(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    wants = want if isinstance(want, tuple) else (want,)
    for o, w in zip(outs, wants):
        assert o.dtype == w.dtype and o.shape == w.shape
        assert max_relative_error(o, w) <= tol, (o, w)
    floats = [o for o in outs if o.is_floating_point()]
    if floats and any(p.requires_grad for p in m.parameters()):
        sum(o.sum() * (i + 1) for i, o in enumerate(floats)).backward()
        sum(w.sum() * (i + 1) for i, w in enumerate(wants) if w.is_floating_point()).backward()
        for p, q in zip(m.parameters(), ref.parameters()):
            assert max_relative_error(p.grad, q.grad) <= tol, (p.grad, q.grad)
    return compiled


def r(*shape):
    return torch.randn(*shape, dtype=torch.float64)


def frozen(t):
    """A parameter that does not require grad."""
    t._frozen = True
    return t


def test_arithmetic():
    check(lambda a, b: (a + b * 2, a - 3.0, 2.0 - a, a * b, a / (b.abs() + 1),
                        torch.add(a, b, alpha=3), torch.sub(a, b, alpha=0.5),
                        -a, a ** 2, a ** 3, (b.abs() + 1) ** 0.5, torch.pow(b.abs() + 1, a),
                        torch.rsqrt(b.abs() + 1), torch.maximum(a, b), torch.minimum(a, b)),
          [r(3, 4), r(4)], [])


def test_unary():
    check(lambda a: (torch.tanh(a), torch.sin(a), torch.cos(a), torch.exp(a),
                     torch.log(a.abs() + 1), torch.sigmoid(a), torch.relu(a), F.silu(a),
                     F.gelu(a), F.gelu(a, approximate="tanh"), torch.erf(a), a.clamp(-0.5, 0.7),
                     a.clamp(min=0.1)),
          [r(2, 5)], [])
    check(lambda a: (a.square(), torch.reciprocal(a)), [r(3, 2)], [])


def test_reductions_and_norms():
    ln = nn.LayerNorm(6).double()
    check(lambda a, w, b: (a.mean(-1, keepdim=True), a.sum(0), a.mean(), a.sum(),
                           a.amax(1), F.layer_norm(a, (6,), w, b, 1e-5),
                           F.layer_norm(a, (6,)), a.softmax(-1), F.log_softmax(a, 0),
                           torch.softmax(a, -1, dtype=torch.float64)),
          [r(3, 6), r(6), r(6)], [])


def test_cumsum():
    # Every dim (negative ones too), a float dtype argument, a rank-0 input;
    # the gradients run kiln.cumsum's rule (a reverse scan).
    check(lambda a, b, c: (a.cumsum(0), a.cumsum(1), torch.cumsum(a, -1), a.cumsum(-3),
                           torch.cumsum(b, 0), b.cumsum(-1) * b,
                           torch.cumsum(a, 1, dtype=torch.float64), c.cumsum(0)),
          [r(2, 5, 3), r(7), r(())], [])


def test_cumsum_integers():
    # Integer and bool inputs promote to int64 (so int8 does not wrap), unless
    # `dtype` is given; a float dtype converts the integers first.
    ids = torch.tensor([[3, 1, 0, 0], [2, 2, 5, 0]], dtype=torch.int32)
    small = torch.tensor([[100, 100, 100], [-128, -1, 127]], dtype=torch.int8)
    check(lambda x, ids, small: (ids.cumsum(1), (ids != 0).cumsum(-1), small.cumsum(1),
                                 small.cumsum(0, dtype=torch.int8),
                                 ids.cumsum(0, dtype=torch.float64) * x),
          [frozen(r(2, 4))], [ids, small])


def test_matmuls():
    check(lambda a, w, b, c: (F.linear(a, w, b), F.linear(a, w), a @ w.t(),
                              torch.addmm(b, a, w.t(), beta=0.5, alpha=2.0),
                              torch.bmm(c, c.transpose(1, 2)), torch.matmul(c, a.t())),
          [r(2, 4), r(3, 4), r(3), r(2, 5, 4)], [])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("extra", [{}, {"ignore_index": 1}, {"label_smoothing": 0.2},
                                   {"weight": True}, {"weight": True, "ignore_index": 1,
                                                      "label_smoothing": 0.1}])
def test_cross_entropy(reduction, extra):
    extra = dict(extra)
    labels = torch.tensor([1, 0, 3, 1, 2])
    if extra.pop("weight", False):
        w = torch.tensor([0.5, 2.0, 1.0, 3.0], dtype=torch.float64)
        check(lambda x: F.cross_entropy(x, labels, weight=w, reduction=reduction, **extra),
              [r(5, 4)], [])
    else:
        check(lambda x: F.cross_entropy(x, labels, reduction=reduction, **extra),
              [r(5, 4)], [])


def test_cross_entropy_ignore_index_value():
    # The case: ignore_index=1 was dropped by the old exporter.
    torch.manual_seed(3)
    x = torch.randn(6, 5, dtype=torch.float64)
    labels = torch.tensor([1, 1, 4, 0, 2, 1])
    compiled = check(lambda x: F.cross_entropy(x, labels, ignore_index=1), [x], [])
    want = F.cross_entropy(x, labels, ignore_index=1)
    assert abs(compiled().item() - want.item()) <= 1e-15 * abs(want.item())
    assert abs(want.item() - F.cross_entropy(x, labels).item()) > 1e-3


def test_cross_entropy_nd():
    labels = torch.tensor([[1, 0, 2], [2, 2, 0]])
    check(lambda x: F.cross_entropy(x, labels, ignore_index=0), [r(2, 3, 3)], [])


def test_shapes():
    check(lambda a, b: (a.view(6, 4), a.reshape(2, -1), a.transpose(0, 2), a.permute(2, 0, 1),
                        a.unsqueeze(1), a[:, :1].squeeze(1), a[..., 1:3], a[:, 1], a.select(2, -1),
                        torch.cat([a, a * 2], dim=1), b.expand(2, 3, 4), a.contiguous(),
                        F.pad(a, (1, 2)), F.pad(a, (0, 0, 1, 0), value=3.0),
                        torch.tril(a[0]), torch.triu(a[0], 1), a.split(1, dim=1)[1],
                        a.split([1, 2], dim=1)[1], a.flatten(1), a.repeat(2, 1, 1, 3),
                        a.repeat_interleave(2, dim=1)),
          [r(2, 3, 4), r(3, 1)], [])


def test_flip():
    # One dim, several (given negative and out of order), a size-1 dim, an
    # integer tensor.
    check(lambda a: (a.flip(1), torch.flip(a, (-1, 0)), a[:, :1].flip(1),
                     a.flip(0, 1, 2)),
          [r(2, 3, 4)], [])
    check(lambda ids: ids.flip(1), [], [torch.tensor([[3, 1, 0], [2, 7, 5]])])


def test_argmax():
    # Ties go to the first index and NaN wins, as torch; dim, keepdim, a
    # negative dim, the flattened form and a rank-0 input.
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, float("nan"), 5.0, float("nan")],
                      [-1.0, -1.0, -2.0, -3.0]], dtype=torch.float64)
    check(lambda x: (x.argmax(1), x.argmax(0, keepdim=True), x.argmax(-1),
                     x[2].argmax(), x[0].argmax(keepdim=True), torch.argmax(x[0, 1]),
                     torch.argmax(x[::2], dim=None, keepdim=True)),
          [], [x])


def test_masks_and_positions():
    ids = torch.tensor([[3, 1, 0, 0], [2, 2, 5, 0]])

    def f(x, ids):
        keep = ids != 0
        pos = keep.long().cumsum(-1) - 1
        pos = pos.masked_fill(~keep, 1)
        causal = torch.arange(4)[None, :] <= torch.arange(4)[:, None]
        both = causal[None] & keep[:, None, :]
        either = torch.logical_or(keep, ids > 4)
        y = x.masked_fill(~both, -1.0)
        z = torch.where(both, x, torch.zeros_like(x))
        d = torch.diff(pos, dim=-1)
        return y, z, x[torch.arange(2)[:, None], ids.clamp(max=3)], pos, either, d
    # The ids are an input, so that nothing is folded.
    check(lambda x, ids: f(x, ids)[:3], [r(2, 4, 4)], [ids])
    # Integer and boolean outputs, without trainable parameters and beside
    # float outputs that are differentiated (they get no cotangent).
    check(lambda x, ids: f(x, ids)[3:], [frozen(r(2, 4, 4))], [ids])
    check(lambda x, ids: f(x, ids), [r(2, 4, 4)], [ids])
    # A trainable module with no float output has nothing to differentiate.
    with pytest.raises(kiln.KilnError, match="no output of the module is floating-point"):
        check(lambda x, ids: f(x, ids)[3:], [r(2, 4, 4)], [ids])


def test_index_tensor_runtime_indices():
    def f(x, idx):
        return x[idx], x[:, idx], x[idx[:, None], idx[None, :]]
    m = check(lambda x, idx: f(x, idx), [r(5, 5)], [torch.tensor([4, -1, 0])])
    del m


def test_embedding_padding_idx():
    emb = nn.Embedding(6, 3, padding_idx=2).double()
    ids = torch.tensor([[2, 1, 2], [5, 2, 0]])
    check(lambda w: F.embedding(ids, w, padding_idx=2), [emb.weight.data.clone()], [])


def test_sdpa_forms():
    q, k, v = r(2, 4, 5, 8), r(2, 2, 5, 8), r(2, 2, 5, 8)
    mask = torch.rand(2, 1, 5, 5) > 0.3
    mask[..., 0] = True
    add = torch.randn(2, 1, 5, 5, dtype=torch.float64)
    check(lambda q, k, v: (F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
                           F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True,
                                                          scale=0.3),
                           F.scaled_dot_product_attention(q, k.repeat_interleave(2, 1),
                                                          v.repeat_interleave(2, 1),
                                                          attn_mask=add)),
          [q, k, v], [])


def test_max_min_dim():
    # (values, indices): ties to the first index and NaN wins, as torch.
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, float("nan"), 5.0, -7.0],
                      [-1.0, -1.0, -2.0, -2.0]], dtype=torch.float64)

    def f(x):
        mx, ix = x.max(dim=1)
        mn, jn = x.min(dim=-1, keepdim=True)
        m0, i0 = torch.max(x, 0)
        return mx, ix, mn, jn, m0, i0
    # The indices with NaN (max_relative_error counts NaN as an error), then
    # everything on the rows without it.
    check(lambda x: tuple(f(x)[1::2]), [], [x])
    check(f, [], [x[::2]])
    check(lambda x: x.max(dim=1).values.sum() + x.min(0, keepdim=True).values.sum(),
          [r(3, 4)], [])


def test_chunk():
    # Equal pieces, a smaller last one, and fewer pieces than asked (7 in 4:
    # torch gives 2, 2, 2, 1; 3 in 4 gives 1, 1, 1).
    check(lambda x: (*x.chunk(2, dim=-1), *x.chunk(4, dim=1), *x[:, :3].chunk(4, 1)),
          [r(3, 7, 4)], [])


def sink_attention(q, k, v, sinks, mask):
    """gpt-oss's eager attention with learned sinks (Hugging Face GptOss,
    with repeat_kv's K/V): the sink column joins the softmax and is sliced
    off."""
    k, v = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
    w = torch.matmul(q, k.transpose(2, 3)) * q.shape[-1] ** -0.5 + mask
    column = sinks.reshape(1, -1, 1, 1).expand(q.shape[0], -1, q.shape[-2], -1)
    c = torch.cat([w, column], dim=-1)
    c = c - c.max(dim=-1, keepdim=True).values
    p = F.softmax(c, dim=-1, dtype=c.dtype)[..., :-1]
    return torch.matmul(p, v)


def test_attention_sinks_are_raised():
    # Causal with padding: batch 1's first key is masked with finfo.min.
    i = torch.arange(5)
    mask = torch.zeros(5, 5, dtype=torch.float64).masked_fill(
        i[None, :] > i[:, None], torch.finfo(torch.float64).min)
    mask = mask.expand(2, 1, 5, 5).clone()
    mask[1, :, :, 0] = torch.finfo(torch.float64).min
    compiled = check(lambda q, k, v, sinks: sink_attention(q, k, v, sinks, mask),
                     [r(2, 4, 5, 8), r(2, 2, 5, 8), r(2, 2, 5, 8), r(4)], [])
    text = open(compiled.kiln_mlir).read()
    assert re.search(r"kiln\.attention .* sinks\(", text), text
    assert "kiln.softmax" not in text and "kiln.concat" not in text


def test_dropout_in_train_mode():
    """Kiln's dropout draws are its own (not torch's), so the check is of
    the semantics: entries are 0 or x / (1 - p), about p of them 0, the
    gradient is the same mask and scale, and each call draws anew."""
    x = torch.full((64, 64), 3.0, dtype=torch.float64)
    w = torch.randn(64, 64, dtype=torch.float64)
    m = Fn(lambda x: F.dropout(x, 0.25, training=True) * w, [x])
    c = kiln.compile(m, ())
    out = c()
    kept = out / w
    assert set(torch.unique(kept.round(decimals=9)).tolist()) == {0.0, 4.0}
    frac = (kept == 0).double().mean().item()
    assert 0.20 < frac < 0.30, frac
    out.sum().backward()
    torch.testing.assert_close(m.ps[0].grad, (kept / 3.0) * w, rtol=0, atol=1e-14)
    assert not torch.equal(c() / w == 0, kept == 0)
