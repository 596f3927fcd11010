#!/usr/bin/python3
"""Writes the torch side of examples/train/gpt_check.tr (torch 1.13, run
with /usr/bin/python3 examples/train/gen_torch_gpt.py from the repository
root; Debian's fortunes-min must be installed):

  gpt_init.npz   the character-level GPT's initial weights (torch.manual_seed(0);
                 GPT-2's initialisation: normal(0, 0.02) weights, the residual
                 projections scaled by 1/sqrt(2 layers), zero biases, unit norms)
                 under the keys gpt_model.tr reads (wte, wpe, blocks.0.qkv_w, ...)
  gpt_torch.npz  offsets: the start of each sequence of the first 20 batches
                 (int64 [20, 16], in the training text: its first 90%), and
                 losses: torch's loss at each of those 20 steps of AdamW(1e-3)

The text is the three files of fortunes-min, concatenated; the vocabulary is
its distinct bytes in increasing order, as gpt_model.tr builds it.
"""
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
files = ["/usr/share/games/fortunes/" + n for n in ("literature", "fortunes", "riddles")]
text = b"".join(open(f, "rb").read() for f in files)
chars = sorted(set(text))
lut = {c: i for i, c in enumerate(chars)}
ids = torch.tensor([lut[c] for c in text], dtype=torch.int64)
vocab, seq, dim, heads, layers, batch, steps = len(chars), 64, 64, 4, 2, 16, 20
n_train = len(ids) * 9 // 10

torch.manual_seed(0)


def normal(*shape, std=0.02):
    return torch.randn(*shape) * std


p = {"wte": normal(vocab, dim), "wpe": normal(seq, dim)}
for i in range(layers):
    k = "blocks.%d." % i
    p[k + "ln1_w"], p[k + "ln1_b"] = torch.ones(dim), torch.zeros(dim)
    p[k + "qkv_w"], p[k + "qkv_b"] = normal(3 * dim, dim), torch.zeros(3 * dim)
    p[k + "proj_w"], p[k + "proj_b"] = normal(dim, dim, std=0.02 / math.sqrt(2 * layers)), torch.zeros(dim)
    p[k + "ln2_w"], p[k + "ln2_b"] = torch.ones(dim), torch.zeros(dim)
    p[k + "up_w"], p[k + "up_b"] = normal(4 * dim, dim), torch.zeros(4 * dim)
    p[k + "down_w"], p[k + "down_b"] = normal(dim, 4 * dim, std=0.02 / math.sqrt(2 * layers)), torch.zeros(dim)
p["lnf_w"], p["lnf_b"] = torch.ones(dim), torch.zeros(dim)
np.savez(os.path.join(here, "gpt_init.npz"), **{k: v.numpy() for k, v in p.items()})
offsets = torch.randint(0, n_train - seq - 1, (steps, batch))

causal = torch.ones(seq, seq, dtype=torch.bool).triu(1)


def forward(p, x):
    b, t = x.shape
    h = p["wte"][x] + p["wpe"][:t]
    for i in range(layers):
        k = "blocks.%d." % i
        a = F.layer_norm(h, (dim,), p[k + "ln1_w"], p[k + "ln1_b"])
        q, kk, v = F.linear(a, p[k + "qkv_w"], p[k + "qkv_b"]).split(dim, dim=-1)
        q, kk, v = [z.reshape(b, t, heads, dim // heads).permute(0, 2, 1, 3) for z in (q, kk, v)]
        s = (q @ kk.transpose(-2, -1)) / math.sqrt(dim // heads)
        att = torch.softmax(s.masked_fill(causal[:t, :t], float("-inf")), -1) @ v
        h = h + F.linear(att.permute(0, 2, 1, 3).reshape(b, t, dim), p[k + "proj_w"], p[k + "proj_b"])
        m = F.layer_norm(h, (dim,), p[k + "ln2_w"], p[k + "ln2_b"])
        h = h + F.linear(F.gelu(F.linear(m, p[k + "up_w"], p[k + "up_b"])), p[k + "down_w"], p[k + "down_b"])
    return F.linear(F.layer_norm(h, (dim,), p["lnf_w"], p["lnf_b"]), p["wte"])


params = {k: v.clone().requires_grad_() for k, v in p.items()}
opt = torch.optim.AdamW(list(params.values()), lr=1e-3)
losses = []
for s in range(steps):
    w = ids[offsets[s][:, None] + torch.arange(seq + 1)[None, :]]
    opt.zero_grad()
    loss = F.cross_entropy(forward(params, w[:, :seq]).reshape(-1, vocab), w[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    losses.append(loss.item())
np.savez(os.path.join(here, "gpt_torch.npz"), offsets=offsets.numpy(), losses=np.array(losses, dtype=np.float32))
print("vocab", vocab, "text", len(ids), "losses", losses)
