"""Tiny Hugging Face decoder LMs (random init, no weights downloaded) and a
padded batch, shared by the model tests and examples."""
import torch

VOCAB = 64
BATCH = 2
SEQ = 8


def configs():
    from transformers import Gemma2Config, GPT2Config, LlamaConfig, Qwen3Config
    common = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                  use_cache=False)
    return {
        "qwen3": (Qwen3Config(head_dim=8, **common), "sdpa"),
        "llama": (LlamaConfig(**common), "sdpa"),
        "gpt2": (GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False),
                 "sdpa"),
        # Gemma2: sliding window on every other layer, attention and final
        # logit softcapping; transformers runs it eagerly (no sdpa path).
        "gemma2": (Gemma2Config(head_dim=8, sliding_window=4, attn_logit_softcapping=50.0,
                                final_logit_softcapping=30.0, query_pre_attn_scalar=8,
                                **common), "eager"),
    }


MODELS = ["qwen3", "llama", "gpt2", "gemma2"]


def make_model(name, seed=0):
    from transformers import AutoModelForCausalLM
    cfg, impl = configs()[name]
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation=impl)
    return model.train()


def make_batch(seed=1, batch=BATCH, seq=SEQ, lengths=(SEQ, 5)):
    """Token ids, a right-padded attention mask (rows of different
    lengths) and labels ignoring the padding."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, VOCAB, (batch, seq), generator=g)
    mask = torch.zeros(batch, seq, dtype=torch.long)
    for b, n in enumerate(lengths):
        mask[b, :n] = 1
    labels = ids.masked_fill(mask == 0, -100)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}
