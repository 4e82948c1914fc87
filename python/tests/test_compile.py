"""kiln.compile's contract beyond the numbers: call-time errors, the disk
cache, torch.compile(backend="kiln"), unsupported graphs."""
import os
import re
import subprocess
import sys

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import kiln


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.b = nn.Linear(8, 3)

    def forward(self, x, labels):
        logits = self.b(torch.tanh(self.a(x)))
        return F.cross_entropy(logits, labels), logits


def example():
    return torch.randn(5, 4), torch.tensor([0, 2, 1, 1, 0])


def test_grads_fill_the_original_parameters():
    m = MLP()
    ref = MLP()
    ref.load_state_dict(m.state_dict())
    x, y = example()
    c = kiln.compile(m, (x, y))
    assert list(c.parameters()) == list(m.parameters())
    loss, logits = c(x, y)
    loss.backward()
    rl, _ = ref(x, y)
    rl.backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6)
    # An optimizer step on the original parameters is seen by the next call.
    with torch.no_grad():
        m.a.weight.add_(1.0)
        ref.a.weight.add_(1.0)
    torch.testing.assert_close(c(x, y)[0], ref(x, y)[0], rtol=1e-5, atol=1e-6)


class Classifier(MLP):
    """A training step that also returns its predictions and a mask: integer
    and boolean outputs beside the loss."""

    def forward(self, x, labels):
        loss, logits = super().forward(x, labels)
        predictions = logits.argmax(dim=1)
        return loss, predictions, predictions == labels


def test_integer_outputs_beside_the_loss():
    m = Classifier()
    ref = Classifier()
    ref.load_state_dict(m.state_dict())
    x, y = example()
    c = kiln.compile(m, (x, y))
    loss, predictions, correct = c(x, y)
    rl, rp, rc = ref(x, y)
    assert predictions.dtype == torch.int64 and correct.dtype == torch.bool
    assert not predictions.requires_grad and not correct.requires_grad
    assert torch.equal(predictions, rp) and torch.equal(correct, rc)
    loss.backward()
    rl.backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6)


def test_no_grad_runs_the_plain_function():
    m = MLP()
    x, y = example()
    c = kiln.compile(m, (x, y))
    with torch.no_grad():
        loss, _ = c(x, y)
    assert not loss.requires_grad
    torch.testing.assert_close(loss, m(x, y)[0], rtol=1e-5, atol=1e-6)


def test_wrong_inputs_are_clear_errors():
    m = MLP()
    x, y = example()
    c = kiln.compile(m, (x, y))
    with pytest.raises(kiln.CallError, match=r"input 'x' is float32\[6, 4\] but the module "
                                             r"was compiled for float32\[5, 4\]"):
        c(torch.randn(6, 4), y)
    with pytest.raises(kiln.CallError, match=r"input 'labels' is int32\[5\] .* int64\[5\]"):
        c(x, y.int())
    with pytest.raises(kiln.CallError, match="argument 1 must be a tensor, got list"):
        c(x, [0, 1, 2, 1, 0])
    with pytest.raises(kiln.CallError, match="compiled for 2 positional arguments, got 1"):
        c(x)
    with pytest.raises(kiln.CallError, match="is on meta"):
        c(x.to("meta"), y)


def test_cache_hit_on_the_second_compile(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    x, y = example()
    first = kiln.compile(MLP(), (x, y))
    second = kiln.compile(MLP(), (x, y))
    assert not first._kiln.cached
    assert second._kiln.cached
    assert first.kiln_library == second.kiln_library
    third = kiln.compile(MLP(), (torch.randn(7, 4), torch.zeros(7, dtype=torch.long)))
    assert not third._kiln.cached


@pytest.mark.parametrize("target", ["cpu", "cuda-emulator"])
def test_library_holds_no_mlir(target):
    """The library loaded with ctypes neither loads nor contains MLIR or LLVM
    (issue #27): torch and an embedding program may bring their own."""
    c = kiln.compile(MLP(), example(), target=target)
    check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                         "scripts", "check-one-mlir.py")
    proc = subprocess.run([sys.executable, check, "--no-mlir", c.kiln_library],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    assert proc.returncode == 0, proc.stdout


def test_unsupported_nodes_are_listed_once():
    class Odd(nn.Module):
        def forward(self, x):
            a = torch.sort(x).values   # unsupported: sort
            b = torch.fft.rfft(x).real  # rfft, and real (of a complex value)
            return a.sum() + b.sum() + F.pad(x, (1, 1), mode="reflect").sum()  # reflect padding

    with pytest.raises(kiln.UnsupportedError) as e:
        kiln.compile(Odd(), (torch.randn(3, 4),))
    msg = str(e.value)
    assert msg.startswith("Kiln cannot import 4 nodes of this program:")
    assert "aten.sort" in msg and "aten.fft_rfft" in msg and "aten.real" in msg and "pad mode 'reflect'" in msg
    # Each names the model's source line.
    assert len(re.findall(r"at tests/test_compile\.py:\d+ \(forward\)", msg)) == 4, msg


def same_step(make, inputs, compile_fn):
    """One forward and backward of compile_fn(module) against torch eager on
    a copy: the outputs and every parameter gradient agree."""
    m = make()
    ref = make()
    ref.load_state_dict(m.state_dict())
    out = compile_fn(m)(*inputs)
    want = ref(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    wants = want if isinstance(want, tuple) else (want,)
    outs[0].backward()
    wants[0].backward()
    for o, w in zip(outs, wants):
        torch.testing.assert_close(o, w, rtol=1e-5, atol=1e-6)
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6)
    return m


def test_torch_compile_backend():
    same_step(MLP, example(), lambda m: torch.compile(m, backend="kiln"))


def test_cuda_target_on_the_emulator():
    """target="cuda" compiles through kiln-lower-to-nvvm; "cuda-emulator" is
    the same library with its kernels run on the host."""
    x, y = example()
    m = same_step(MLP, (x, y), lambda m: kiln.compile(m, (x, y), target="cuda-emulator"))
    with pytest.raises(kiln.KilnError, match="target='tpu'"):
        kiln.compile(m, (x, y), target="tpu")


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)
        self.kv = nn.Linear(8, 8)

    def forward(self, x):
        q = self.q(x).view(1, 6, 4, 2).transpose(1, 2)
        k, v = self.kv(x).view(1, 6, 2, 4).transpose(1, 2).split(2, dim=-1)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                              enable_gqa=True).square().sum()


def test_cuda_target_attention_on_the_emulator():
    x = torch.randn(1, 6, 8)
    same_step(Attn, (x,), lambda m: kiln.compile(m, (x,), target="cuda-emulator"))


def test_deterministic_gpu_backward_on_the_emulator():
    """deterministic=True reaches kiln-compile (--gpu-deterministic: no float
    atomics in the attention backward); the step still equals torch's. The
    CPU backend is deterministic already and refuses the option."""
    x = torch.randn(1, 6, 8)
    same_step(Attn, (x,), lambda m: kiln.compile(m, (x,), target="cuda-emulator",
                                                 deterministic=True))
    with pytest.raises(kiln.KilnError, match="deterministic=True is for target='cuda'"):
        kiln.compile(Attn(), (x,), deterministic=True)


