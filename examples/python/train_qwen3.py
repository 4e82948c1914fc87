"""Trains a tiny Hugging Face Qwen3 with Kiln: kiln.compile builds the forward
and backward once, a plain torch optimizer does the rest.

    PYTHONPATH=python KILN_BUILD_DIR=build ~/.cache/kiln/venv/bin/python examples/python/train_qwen3.py
"""
import torch
from transformers import AutoModelForCausalLM, Qwen3Config

import kiln

cfg = Qwen3Config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, head_dim=8, use_cache=False)
torch.manual_seed(0)
model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa").train()
ids = torch.randint(0, 64, (2, 8))
mask = torch.tensor([[1] * 8, [1] * 5 + [0] * 3])          # the second row is padded
batch = {"input_ids": ids, "attention_mask": mask, "labels": ids.masked_fill(mask == 0, -100)}

compiled = kiln.compile(model, example_kwargs=batch)       # cached on disk after the first run
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for step in range(30):
    opt.zero_grad()
    loss = compiled(**batch).loss
    loss.backward()                                         # fills model's .grad
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 5 == 0 or step == 29:
        print("step %2d  loss %.4f" % (step, loss.item()))
