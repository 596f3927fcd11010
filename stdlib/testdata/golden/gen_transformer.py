"""Goldens of the transformer modules (stdlib/transformer.go):
/usr/bin/python3 gen_transformer.py

transformer_encoder_layer, transformer_decoder_layer, transformer_encoder,
transformer_decoder and transformer against torch 1.13's
nn.TransformerEncoderLayer, nn.TransformerDecoderLayer,
nn.TransformerEncoder, nn.TransformerDecoder and nn.Transformer, their
state_dict passed as tref's params record (every weight perturbed, so
that no bias is 0 and no norm 1). The modules run in training mode with
dropout 0 (torch's eval fast paths pad masked positions differently);
tref gets dropout=0. Post-norm and norm_first, relu and gelu,
batch_first, unbatched inputs, attention and key padding masks; then
gradients with respect to the inputs, and errors.
"""

import torch
import torch.nn as nn

from gen_common import Golden

torch.manual_seed(1919)
g = Golden("transformer")
E, H, F = 8, 2, 12


def rn(*shape):
    return torch.randn(*shape)


def weights(m):
    with torch.no_grad():
        for p in m.parameters():
            p.add_(torch.randn(p.shape) * 0.3)
    return {k: v.detach().clone() for k, v in m.state_dict().items()}


def layer_kw(make):
    kw = {"dropout": 0.0}
    for key in ("batch_first", "norm_first"):
        if make.get(key):
            kw[key] = True
    if make.get("activation"):
        kw["activation"] = make["activation"]
    return kw


def enc_layer(**make):
    return nn.TransformerEncoderLayer(E, H, dim_feedforward=F, dropout=0.0, **make)


def dec_layer(**make):
    return nn.TransformerDecoderLayer(E, H, dim_feedforward=F, dropout=0.0, **make)


def case(label, fn, m, inputs, kwargs, make, tref_extra=None):
    sd = weights(m)
    m.train()
    with torch.no_grad():
        want = m(*inputs, **kwargs)
    kw = dict(kwargs, **layer_kw(make))
    kw.update(tref_extra or {})
    g.expect(label, fn, _args(fn, inputs, sd), kw, want, atol=2e-5)


def _args(fn, inputs, sd):
    if fn == "transformer":
        return [inputs[0], inputs[1], sd, H]
    if fn.startswith("transformer_decoder"):
        return [inputs[0], inputs[1], sd, H]
    return [inputs[0], sd, H]


S, T, N = 5, 4, 3
causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
kpm = torch.zeros(N, S, dtype=torch.bool)
kpm[1, 3:] = True
tkpm = torch.zeros(N, T, dtype=torch.bool)
tkpm[2, 2:] = True

for label, make, inputs, kwargs in [
    ("post-relu", {}, (rn(S, N, E),), {}),
    ("norm-first-gelu-batch-first", {"norm_first": True, "activation": "gelu", "batch_first": True}, (rn(N, S, E),), {}),
    ("masks", {}, (rn(S, N, E),), {"src_mask": rn(S, S), "src_key_padding_mask": kpm}),
    ("unbatched-causal", {"norm_first": True}, (rn(T, E),), {"src_mask": causal}),
]:
    make2 = {k: v for k, v in make.items()}
    case("encoder_layer/" + label, "transformer_encoder_layer", enc_layer(**make2), inputs, kwargs, make)

for label, make, inputs, kwargs in [
    ("post-relu", {}, (rn(T, N, E), rn(S, N, E)), {}),
    ("masks", {}, (rn(T, N, E), rn(S, N, E)), {"tgt_mask": causal, "memory_mask": rn(T, S), "tgt_key_padding_mask": tkpm, "memory_key_padding_mask": kpm}),
    ("norm-first-gelu-batch-first", {"norm_first": True, "activation": "gelu", "batch_first": True}, (rn(N, T, E), rn(N, S, E)), {"tgt_mask": causal}),
]:
    case("decoder_layer/" + label, "transformer_decoder_layer", dec_layer(**make), inputs, kwargs, make)

enc = nn.TransformerEncoder(enc_layer(), num_layers=2, norm=nn.LayerNorm(E))
case("encoder/two-layers-norm", "transformer_encoder", enc, (rn(S, N, E),), {"mask": rn(S, S), "src_key_padding_mask": kpm}, {})
enc2 = nn.TransformerEncoder(enc_layer(norm_first=True, batch_first=True), num_layers=3)
case("encoder/three-layers-norm-first", "transformer_encoder", enc2, (rn(N, S, E),), {}, {"norm_first": True, "batch_first": True})
dec = nn.TransformerDecoder(dec_layer(), num_layers=2, norm=nn.LayerNorm(E))
case("decoder/two-layers-norm", "transformer_decoder", dec, (rn(T, N, E), rn(S, N, E)), {"tgt_mask": causal, "memory_key_padding_mask": kpm}, {})
tr = nn.Transformer(E, H, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=F, dropout=0.0)
case("transformer/masks", "transformer", tr, (rn(S, N, E), rn(T, N, E)), {"tgt_mask": causal, "src_key_padding_mask": kpm, "memory_key_padding_mask": kpm, "tgt_key_padding_mask": tkpm}, {})
tr2 = nn.Transformer(E, H, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=F, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
case("transformer/gelu-norm-first-batch-first", "transformer", tr2, (rn(N, S, E), rn(N, T, E)), {"tgt_mask": causal}, {"activation": "gelu", "batch_first": True, "norm_first": True})

# gradients with respect to the inputs
m = enc_layer()
sd = weights(m)
m.train()
g.grad_case("encoder_layer", "transformer_encoder_layer", lambda x, p, h, **kw: m(x, src_mask=kw.get("src_mask")), [rn(S, N, E), sd, H], {"src_mask": rn(S, S), "dropout": 0.0})
md = dec_layer(norm_first=True)
sdd = weights(md)
md.train()
g.grad_case("decoder_layer", "transformer_decoder_layer", lambda t, mem, p, h, **kw: md(t, mem, tgt_mask=kw.get("tgt_mask")), [rn(T, N, E), rn(S, N, E), sdd, H], {"tgt_mask": causal, "dropout": 0.0, "norm_first": True})

# errors
sd_enc = weights(enc_layer())
sd_dec = weights(dec_layer())
for label, fn, args, kw, msg in [
    ("activation", "transformer_encoder_layer", [rn(S, N, E), sd_enc, H], {"activation": "tanh"}, "transformer_encoder_layer: activation must be \"relu\" or \"gelu\", not \"tanh\""),
    ("unknown", "transformer_encoder_layer", [rn(S, N, E), sd_dec, H], {}, "transformer_encoder_layer: params has \"multihead_attn.in_proj_weight\", which is not a weight of nn.TransformerEncoderLayer"),
    ("missing-norm", "transformer_encoder_layer", [rn(S, N, E), {k: v for k, v in sd_enc.items() if k != "norm2.weight"}, H], {}, "transformer_encoder_layer: params has no norm2.weight"),
    ("linear-shape", "transformer_decoder_layer", [rn(T, N, E), rn(S, N, E), dict(sd_dec, **{"linear2.weight": rn(E, F + 1)}), H], {}, "transformer_decoder_layer: params.linear2.weight must be float32 [8, 12], got float32 [8, 13]"),
    ("stack-empty", "transformer_encoder", [rn(S, N, E), sd_enc, H], {}, "transformer_encoder: params has no weights under layers.0."),
    ("stack-unknown", "transformer_encoder", [rn(S, N, E), dict({"layers.0." + k: v for k, v in sd_enc.items()}, extra=rn(2)), H], {}, "transformer_encoder: params has \"extra\", which is not a weight of this 1-layer stack"),
    ("not-a-layer-norm", "transformer_encoder_layer", [rn(S, N, E), dict(sd_enc, **{"norm.weight": rn(E)}), H], {}, "transformer_encoder_layer: params has \"norm.weight\", which is not a weight of nn.TransformerEncoderLayer"),
    ("heads", "transformer_encoder_layer", [rn(S, N, E), sd_enc, 3], {}, "transformer_encoder_layer: embed_dim 8 must be divisible by num_heads 3"),
]:
    g.error("error/" + label, fn, args, msg, kw)

g.write()
