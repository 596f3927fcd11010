"""Goldens of the log/exp builtins of stdlib/pointwise.go
(runtime/ops/logexp.go): /usr/bin/python3 gen_logexp.py

log1p expm1 log2 log10 reciprocal over float32, float64, float16,
integers and bools (which give float32), 0-d and empty tensors, the
domain edges (NaN below it, infinities at it), tiny values (where log1p
and expm1 keep their precision), NaN and infinities. torch 1.13's
float32 log1p gives inf above about 1.7e38 (its kernel overflows); tref
gives the finite logarithm, so log1p's special values stop at 1e38.
"""

import torch

from gen_common import Golden

torch.manual_seed(11)
g = Golden("logexp")

SPECIAL = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 0.5, -0.5, 1.0, -1.0,
                        -1.5, 1e-30, -1e-30, 1e-7, -1e-7, 20.0, -20.0, 100.0, 1e10, 3.4e38])

FNS = {"log1p": torch.log1p, "expm1": torch.expm1, "log2": torch.log2, "log10": torch.log10,
       "reciprocal": torch.reciprocal}


def via_f32(fn):
    """The reference computes float16 in float32 and rounds, as tref does."""
    return lambda x: fn(x.float()).to(x.dtype)


for name, fn in FNS.items():
    for dt in (torch.float32, torch.float64):
        tag = str(dt).replace("torch.", "")
        g.case("%s/%s/unit" % (name, tag), name, fn, [torch.rand(3, 5, dtype=dt) * 2 - 0.9])
        g.case("%s/%s/wide" % (name, tag), name, fn, [torch.randn(4, 3, dtype=torch.float64).mul(3).exp().to(dt)])
        special = SPECIAL.clamp(max=1e38) if name == "log1p" else SPECIAL
        g.case("%s/%s/special" % (name, tag), name, fn, [special.to(dt)])
    g.case("%s/0d" % name, name, fn, [torch.tensor(0.25)])
    g.case("%s/empty" % name, name, fn, [torch.zeros(0, 3)])
    g.case("%s/int64" % name, name, fn, [torch.tensor([[-2, -1, 0], [1, 2, 3]])])
    g.case("%s/uint8" % name, name, fn, [torch.tensor([0, 1, 2, 5], dtype=torch.uint8)])
    g.case("%s/bool" % name, name, fn, [torch.tensor([True, False])])
    g.case("%s/f16" % name, name, via_f32(fn), [(torch.rand(7) * 1.8 + 0.05).half()], rtol=1e-3, atol=1e-3)
    g.case("%s/keyword" % name, name, lambda input: fn(input), [], {"input": torch.tensor([0.1, 3.0])})

g.write()
