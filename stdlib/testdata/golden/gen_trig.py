"""Goldens of the trigonometric and hyperbolic builtins of stdlib/pointwise.go
(runtime/ops/trig.go): /usr/bin/python3 gen_trig.py

tan asin acos atan sinh cosh asinh acosh atanh over float32, float64,
float16, integers and bools (which give float32), 0-d and empty tensors,
the domain edges (NaN outside it, infinities at it), NaN and infinities.
"""

import torch

from gen_common import Golden

torch.manual_seed(7)
g = Golden("trig")

SPECIAL = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 0.5, -0.5, 1.0, -1.0,
                        1.5, -1.5, 1e-30, -1e-30, 20.0, -20.0, 100.0, 1e10, 3.4e38])

FNS = {"tan": torch.tan, "asin": torch.asin, "acos": torch.acos, "atan": torch.atan,
       "sinh": torch.sinh, "cosh": torch.cosh, "asinh": torch.asinh, "acosh": torch.acosh,
       "atanh": torch.atanh}


def via_f32(fn):
    """torch's cpu lacks float16 kernels for some of these: the reference
    computes in float32 and rounds, as tref does."""
    return lambda x: fn(x.float()).to(x.dtype)


for name, fn in FNS.items():
    for dt in (torch.float32, torch.float64):
        tag = str(dt).replace("torch.", "")
        # Inside every domain ([-1, 1]) and beyond it (acosh from 1).
        g.case("%s/%s/unit" % (name, tag), name, fn, [torch.rand(3, 5, dtype=dt) * 2 - 1])
        g.case("%s/%s/wide" % (name, tag), name, fn, [torch.randn(4, 3, dtype=torch.float64).mul(3).to(dt)])
        g.case("%s/%s/special" % (name, tag), name, fn, [SPECIAL.to(dt)])
    g.case("%s/0d" % name, name, fn, [torch.tensor(0.25)])
    g.case("%s/empty" % name, name, fn, [torch.zeros(0, 3)])
    g.case("%s/int64" % name, name, fn, [torch.tensor([[-2, -1, 0], [1, 2, 3]])])
    g.case("%s/uint8" % name, name, fn, [torch.tensor([0, 1, 2, 5], dtype=torch.uint8)])
    g.case("%s/bool" % name, name, fn, [torch.tensor([True, False])])
    g.case("%s/f16" % name, name, via_f32(fn), [(torch.rand(7) * 1.8 - 0.9).half()], rtol=1e-3, atol=1e-3)
    g.case("%s/keyword" % name, name, lambda input: fn(input), [], {"input": torch.tensor([0.1, -0.3])})

g.write()
