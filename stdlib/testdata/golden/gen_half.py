"""Goldens of float16 and bfloat16 compute: /usr/bin/python3 gen_half.py

Halves stay halves through the ops, and reductions accumulate in float32
as torch's do (a float16 sum of 10000 values of 0.1 is 1000, not the 256
a float16 accumulator stalls at). Ops that torch 1.13 lacks for halves on
the cpu are left out (torch raises "not implemented for 'Half'").
"""

import torch

from gen_common import Golden

torch.manual_seed(17)
g = Golden("half")

long_h = torch.full((10000,), 0.1).half()
x = torch.randn(4, 6)
CASES = [
    ("sum", torch.sum, lambda t: [t]),
    ("sum/dim", lambda t, dim: torch.sum(t, dim=dim), lambda t: [t, 1] if t.dim() > 1 else [t, 0]),
    ("mean", torch.mean, lambda t: [t]),
    ("max", torch.max, lambda t: [t]),
    ("prod", torch.prod, lambda t: [t[:8] if t.dim() == 1 else t[:1]]),
    ("add", torch.add, lambda t: [t, t]),
    ("mul", torch.mul, lambda t: [t, t]),
    ("relu", torch.relu, lambda t: [t]),
    ("exp", torch.exp, lambda t: [t]),
    ("sigmoid", torch.sigmoid, lambda t: [t]),
    ("where", lambda t: torch.where(t > 0, t, torch.zeros_like(t)), lambda t: [t]),
]
for dt, tag, rtol in ((torch.float16, "f16", 1e-3), (torch.bfloat16, "bf16", 1e-2)):
    for src_tag, src in (("long", long_h.to(dt)), ("4x6", x.to(dt))):
        for name, fn, args in CASES:
            fname = name.split("/")[0]
            a = args(src)
            try:
                fn(*a)
            except RuntimeError:
                continue
            if name == "where":
                g.expect("%s/%s/%s" % (name, tag, src_tag), "where", [a[0] > 0, a[0], torch.zeros_like(a[0])], {},
                         fn(*a), rtol=rtol, atol=rtol)
                continue
            g.case("%s/%s/%s" % (name, tag, src_tag), fname, fn, a, rtol=rtol, atol=rtol)

# Convolutions and attention on halves: torch 1.13 has no cpu kernels for
# them, so the expected values are torch's float32 results rounded to the
# half type, which is how tref computes them.
import torch.nn.functional as F  # noqa: E402

img, w = torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3)
q, k, v = torch.randn(2, 4, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8)
for dt, tag, tol in ((torch.float16, "f16", 2e-3), (torch.bfloat16, "bf16", 2e-2)):
    g.expect("conv2d/%s" % tag, "conv2d", [img.to(dt), w.to(dt)], {"padding": 1},
             F.conv2d(img.to(dt).float(), w.to(dt).float(), padding=1).to(dt), rtol=tol, atol=tol)
    g.expect("conv_transpose2d/%s" % tag, "conv_transpose2d", [img.to(dt), w.transpose(0, 1).contiguous().to(dt)], {"stride": 2},
             F.conv_transpose2d(img.to(dt).float(), w.transpose(0, 1).contiguous().to(dt).float(), stride=2).to(dt), rtol=tol, atol=tol)
    qs, ks, vs = q.to(dt).float(), k.to(dt).float(), v.to(dt).float()
    ref = torch.softmax(qs @ ks.transpose(-2, -1) / 8 ** 0.5, -1) @ vs
    g.expect("attention/%s" % tag, "attention", [q.to(dt), k.to(dt), v.to(dt)], {}, ref.to(dt), rtol=tol, atol=tol)
g.write()
