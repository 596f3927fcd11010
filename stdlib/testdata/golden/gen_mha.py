"""Goldens of scaled_dot_product_attention and multi_head_attention
(stdlib/mha.go): /usr/bin/python3 gen_mha.py

multi_head_attention against torch 1.13's nn.MultiheadAttention (eval,
so without dropout), its state_dict passed as tref's params record:
batched, batch_first and unbatched inputs, kdim/vdim (separate
projection weights), no bias, add_bias_kv, add_zero_attn, key padding
and attention masks (bool and float, 2-d and 3-d), per-head weights.
Results compare flattened: (attn_output, attn_output_weights).

scaled_dot_product_attention is torch 2's; torch 1.13 has no
F.scaled_dot_product_attention, so its reference is that function's
documented math: softmax(q·kᵀ·scale + bias)·v, a bool mask's false
positions -inf in bias. Then gradients with respect to the tensors
passed directly, and errors.
"""

import math

import torch
import torch.nn as nn

from gen_common import Golden

torch.manual_seed(1918)
g = Golden("mha")


def rn(*shape):
    return torch.randn(*shape)


def mha_case(label, q, k, v, heads, kwargs=None, **make):
    kwargs = kwargs or {}
    m = nn.MultiheadAttention(q.shape[-1], heads, **make)
    # a bias that is not zero (torch starts in_proj_bias and out_proj.bias at 0)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if "bias" in name:
                p.copy_(torch.randn(p.shape) * 0.5)
    sd = {n: p.detach().clone() for n, p in m.state_dict().items()}
    m.eval()
    with torch.no_grad():
        out, w = m(q, k, v, **kwargs)
    kw = dict(kwargs)
    for key in ("batch_first", "add_zero_attn"):
        if make.get(key):
            kw[key] = True
    g.expect("mha/" + label, "multi_head_attention", [q, k, v, sd, heads], kw, [out, w], atol=1e-5)


L, S, N, E = 4, 6, 3, 8
mha_case("self", *(lambda x: (x, x, x))(rn(L, N, E)), 2)
mha_case("cross", rn(L, N, E), rn(S, N, E), rn(S, N, E), 4)
mha_case("batch-first", rn(N, L, E), rn(N, S, E), rn(N, S, E), 2, batch_first=True)
mha_case("unbatched", rn(L, E), rn(S, E), rn(S, E), 2)
mha_case("kdim-vdim", rn(L, N, E), rn(S, N, 5), rn(S, N, 3), 2, kdim=5, vdim=3)
mha_case("no-bias", rn(L, N, E), rn(S, N, E), rn(S, N, E), 2, bias=False)
mha_case("bias-kv", rn(L, N, E), rn(S, N, E), rn(S, N, E), 2, add_bias_kv=True)
mha_case("zero-attn-bias-kv", rn(L, N, E), rn(S, N, E), rn(S, N, E), 2, add_bias_kv=True, add_zero_attn=True)
kpm = torch.zeros(N, S, dtype=torch.bool)
kpm[0, 4:] = True
kpm[2, :2] = True
mha_case("key-padding", rn(L, N, E), rn(S, N, E), rn(S, N, E), 2, {"key_padding_mask": kpm})
mha_case("key-padding-zero-attn", rn(L, N, E), rn(S, N, E), rn(S, N, E), 2, {"key_padding_mask": kpm}, add_zero_attn=True, add_bias_kv=True)
causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
mha_case("causal-bool", *(lambda x: (x, x, x))(rn(L, N, E)), 2, {"attn_mask": causal})
mha_case("float-3d-mask", rn(L, N, E), rn(S, N, E), rn(S, N, E), 2, {"attn_mask": rn(N * 2, L, S)})
mha_case("masks-per-head", rn(L, N, E), rn(S, N, E), rn(S, N, E), 4, {"attn_mask": rn(L, S), "key_padding_mask": kpm, "average_attn_weights": False})
mha_case("unbatched-key-padding", rn(L, E), rn(S, E), rn(S, E), 2, {"key_padding_mask": kpm[0], "average_attn_weights": False})


def sdpa(q, k, v, attn_mask=None, is_causal=False, scale=None):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(-2, -1) * scale
    if is_causal:
        attn_mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            s = s.masked_fill(~attn_mask, float("-inf"))
        else:
            s = s + attn_mask
    return torch.softmax(s, -1) @ v


g.case("sdpa/plain", "scaled_dot_product_attention", sdpa, [rn(2, 3, L, E), rn(2, 3, S, E), rn(2, 3, S, 5)])
g.case("sdpa/bool-mask", "scaled_dot_product_attention", sdpa, [rn(2, L, E), rn(2, S, E), rn(2, S, E)], {"attn_mask": torch.rand(L, S) > 0.3})
g.case("sdpa/float-mask-broadcast", "scaled_dot_product_attention", sdpa, [rn(2, 3, L, E), rn(2, 3, S, E), rn(2, 3, S, E)], {"attn_mask": rn(3, 1, S)})
g.case("sdpa/causal-scale", "scaled_dot_product_attention", sdpa, [rn(3, L, E), rn(3, S, E), rn(3, S, E)], {"is_causal": True, "scale": 0.25})
g.case("sdpa/eval-dropout", "scaled_dot_product_attention", lambda q, k, v, **kw: sdpa(q, k, v, attn_mask=kw["attn_mask"]), [rn(L, E), rn(S, E), rn(S, E)], {"attn_mask": torch.rand(L, S) > 0.2, "dropout_p": 0.5, "train": False})

# gradients
g.grad_case("sdpa/bool-mask", "scaled_dot_product_attention", sdpa, [rn(2, L, E), rn(2, S, E), rn(2, S, E)], {"attn_mask": torch.rand(L, S) > 0.3})
g.grad_case("sdpa/float-mask", "scaled_dot_product_attention", sdpa, [rn(2, L, E), rn(2, S, E), rn(2, S, E), rn(L, S)])
m = nn.MultiheadAttention(E, 2, kdim=5, vdim=3, add_bias_kv=True)
sd = {n: p.detach().clone() for n, p in m.state_dict().items()}
g.grad_case("mha/output", "multi_head_attention.output", lambda q, k, v, p, h, **kw: m(q, k, v, **kw)[0], [rn(L, N, E), rn(S, N, 5), rn(S, N, 3), sd, 2], {"key_padding_mask": kpm})
m2 = nn.MultiheadAttention(E, 4)
sd2 = {n: p.detach().clone() for n, p in m2.state_dict().items()}
g.grad_case("mha/weights", "multi_head_attention.weights", lambda q, k, v, p, h, **kw: m2(q, k, v)[1], [rn(L, N, E), rn(S, N, E), rn(S, N, E), sd2, 4])

# errors
sd8 = {n: p.detach() for n, p in nn.MultiheadAttention(E, 2).state_dict().items()}
for label, fn, args, kw, msg in [
    ("heads", "multi_head_attention", [rn(L, N, E), rn(S, N, E), rn(S, N, E), sd8, 3], {}, "multi_head_attention: embed_dim 8 must be divisible by num_heads 3"),
    ("missing", "multi_head_attention", [rn(L, N, E), rn(S, N, E), rn(S, N, E), {k: v for k, v in sd8.items() if k != "out_proj.weight"}, 2], {}, "multi_head_attention: params has no out_proj.weight"),
    ("unknown", "multi_head_attention", [rn(L, N, E), rn(S, N, E), rn(S, N, E), dict(sd8, weight=rn(2)), 2], {}, "multi_head_attention: params has \"weight\", which is not a weight of nn.MultiheadAttention"),
    ("packed-kdim", "multi_head_attention", [rn(L, N, E), rn(S, N, 5), rn(S, N, E), sd8, 2], {}, "multi_head_attention: key and value have 5 and 8 features where the packed in_proj_weight takes the query's 8"),
    ("kpm", "multi_head_attention", [rn(L, N, E), rn(S, N, E), rn(S, N, E), sd8, 2], {"key_padding_mask": torch.zeros(N, L, dtype=torch.bool)}, "multi_head_attention: key_padding_mask must be bool [3, 6], got bool [3, 4]"),
    ("mask", "multi_head_attention", [rn(L, N, E), rn(S, N, E), rn(S, N, E), sd8, 2], {"attn_mask": rn(L, L)}, "multi_head_attention: attn_mask must be [4, 6] or [6, 4, 6]"),
    ("batch", "multi_head_attention", [rn(L, N, E), rn(S, 2, E), rn(S, 2, E), sd8, 2], {}, "multi_head_attention: key and value must have the query's batch size 3"),
    ("sdpa-both", "scaled_dot_product_attention", [rn(L, E), rn(S, E), rn(S, E)], {"attn_mask": torch.ones(L, S, dtype=torch.bool), "is_causal": True}, "scaled_dot_product_attention: an attn_mask and is_causal both given"),
    ("sdpa-dropout", "scaled_dot_product_attention", [rn(L, E), rn(S, E), rn(S, E)], {"dropout_p": -0.5}, "scaled_dot_product_attention: dropout_p must be in [0, 1], got -0.5"),
    ("sdpa-mask-dtype", "scaled_dot_product_attention", [rn(L, E), rn(S, E), rn(S, E)], {"attn_mask": torch.ones(L, S, dtype=torch.int64)}, "scaled_dot_product_attention: attn_mask must be bool or the query's dtype float32, got int64"),
]:
    g.error("error/" + label, fn, args, msg, kw)

g.write()
