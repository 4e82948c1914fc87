"""Hugging Face Qwen3, Llama, GPT-2 and Gemma2 through kiln.compile: the loss
and every parameter gradient against torch autograd (f32 and f64), the
attention raised to kiln.attention, and 50 AdamW steps."""
import copy
import re

import pytest
import torch

import kiln
from kiln.testing import max_relative_error, promoted_module

from hf_models import MODELS, make_batch, make_model

pytest.importorskip("transformers")


def grads_of(model):
    return {n: p.grad for n, p in model.named_parameters()}


@pytest.fixture(scope="module", params=MODELS)
def f32_case(request):
    name = request.param
    model = make_model(name)
    ref = copy.deepcopy(model)
    batch = make_batch()
    compiled = kiln.compile(model, example_kwargs=batch)
    return name, model, ref, batch, compiled


def test_f32_loss_and_gradients(f32_case):
    name, model, ref, batch, compiled = f32_case
    model.zero_grad(set_to_none=True)
    ref.zero_grad(set_to_none=True)
    out = compiled(**batch)
    want = ref(**batch)
    out.loss.backward()
    want.loss.backward()
    assert max_relative_error(out.loss, want.loss) <= 1e-5
    assert max_relative_error(out.logits, want.logits) <= 1e-5
    got, exp = grads_of(model), grads_of(ref)
    assert set(got) == set(exp)
    for n in exp:
        assert got[n] is not None, n
        err = max_relative_error(got[n], exp[n])
        assert err <= 1e-5, "%s: %s gradient off by %.3g of max|g|" % (name, n, err)


def test_attention_is_raised(f32_case):
    name, model, ref, batch, compiled = f32_case
    text = open(compiled.kiln_mlir).read()
    cfg = model.config
    layers = cfg.num_hidden_layers
    heads = cfg.num_attention_heads
    kv = getattr(cfg, "num_key_value_heads", heads) or heads
    seq = batch["input_ids"].shape[1]
    # The forward function holds one kiln.attention per layer.
    forward = text.split("func.func @model(")[1].split("func.func")[0]
    ops = re.findall(r"kiln\.attention [^\n]*", forward)
    assert len(ops) == layers, ops
    for op in ops:
        # No dense S x S mask operand, no repeated K/V.
        assert "x%dx%dxi1>" % (seq, seq) not in op and "x%dx%dxf32>) " % (seq, seq) not in op, op
        types = op.rsplit("} : ", 1)[-1] if "} : " in op else op.rsplit(" : ", 1)[-1]
        key_type = types.split(", ")[1].strip()
        assert key_type.startswith("tensor<%dx%dx" % (batch["input_ids"].shape[0], kv)), op
    assert "kiln.softmax" not in forward


def test_f64_loss_and_gradients():
    for name in MODELS:
        model = make_model(name).double()
        batch = make_batch()
        program = torch.export.export(model, (), batch, strict=False)
        ref = promoted_module(program, torch.float64)
        compiled = kiln.compile(model, example_kwargs=batch, dtype=torch.float64)
        out = compiled(**batch)
        want = ref(**batch)
        out.loss.backward()
        want.loss.backward()
        assert out.loss.dtype == torch.float64
        assert max_relative_error(out.loss, want.loss) <= 1e-12, name
        exp = dict(ref.named_parameters())
        for n, p in model.named_parameters():
            err = max_relative_error(p.grad, exp[n].grad)
            assert err <= 1e-12, "%s: %s gradient off by %.3g of max|g|" % (name, n, err)


@pytest.mark.parametrize("name", MODELS)
def test_adamw_50_steps(name):
    model = make_model(name)
    ref = copy.deepcopy(model)
    compiled = kiln.compile(model, example_kwargs=make_batch())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    ref_opt = torch.optim.AdamW(ref.parameters(), lr=3e-3)
    for step in range(50):
        batch = make_batch(seed=100 + step)
        for m, o, run in ((model, opt, compiled), (ref, ref_opt, ref)):
            o.zero_grad(set_to_none=True)
            loss = run(**batch).loss
            loss.backward()
            o.step()
            if m is model:
                got = loss.item()
            else:
                want = loss.item()
        assert abs(got - want) <= 1e-4 * abs(want), (step, got, want)
