"""Goldens of the composed torch functions of stdlib/nnfunc.go:
/usr/bin/python3 gen_nnfunc.py

normalize, cosine_similarity, hardtanh, relu6, logsigmoid, mish, selu,
softmin, glu, logaddexp, square, isfinite, lerp, clamp_min, clamp_max,
narrow, movedim, unbind, addmm and diff: values, keywords under torch's
names, special values (NaN, infinities, zeros), integer and bool inputs
where torch takes them, and errors.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(17)
g = Golden("nnfunc")


def randn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


SPECIAL = torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 6.0, -6.0,
                        25.0, -25.0, 1e-8, 80.0, -80.0])

for dt in (torch.float32, torch.float64):
    tag = str(dt).replace("torch.", "")
    x = randn(3, 4, dtype=dt)
    g.case("normalize/%s" % tag, "normalize", F.normalize, [x])
    g.case("normalize/%s/p1dim0" % tag, "normalize", F.normalize, [x], {"p": 1.0, "dim": 0})
    g.case("normalize/%s/zero" % tag, "normalize", F.normalize, [torch.zeros(2, 3, dtype=dt)])
    g.case("cosine_similarity/%s" % tag, "cosine_similarity", F.cosine_similarity, [x, randn(3, 4, dtype=dt)])
    g.case("cosine_similarity/%s/bcast" % tag, "cosine_similarity", F.cosine_similarity, [randn(2, 1, 5, dtype=dt), randn(3, 5, dtype=dt)], {"dim": -1})
    for name, fn in (("logsigmoid", F.logsigmoid), ("mish", F.mish), ("selu", F.selu), ("relu6", F.relu6), ("hardtanh", F.hardtanh)):
        g.case("%s/%s" % (name, tag), name, fn, [randn(3, 5, dtype=dt).mul(4)])
        g.case("%s/%s/special" % (name, tag), name, fn, [SPECIAL.to(dt)])
    g.case("softmin/%s" % tag, "softmin", F.softmin, [x], {"dim": 1})
    g.case("glu/%s" % tag, "glu", F.glu, [randn(2, 6, dtype=dt)])
    g.case("glu/%s/dim0" % tag, "glu", F.glu, [randn(4, 3, dtype=dt)], {"dim": 0})
    g.case("logaddexp/%s" % tag, "logaddexp", torch.logaddexp, [x.mul(30), randn(3, 4, dtype=dt).mul(30)])
    big = torch.tensor([float("inf"), float("-inf"), float("inf"), 1e30, -1e30, float("nan"), 0.0], dtype=dt)
    other = torch.tensor([float("inf"), float("-inf"), float("-inf"), 1e30, 5.0, 1.0, 0.0], dtype=dt)
    g.case("logaddexp/%s/special" % tag, "logaddexp", torch.logaddexp, [big, other])
    g.case("lerp/%s/scalar-low" % tag, "lerp", torch.lerp, [x, randn(3, 4, dtype=dt), 0.25])
    g.case("lerp/%s/scalar-high" % tag, "lerp", torch.lerp, [x, randn(3, 4, dtype=dt), 0.75])
    g.case("lerp/%s/tensor" % tag, "lerp", torch.lerp, [x, randn(3, 4, dtype=dt), torch.rand(3, 4, dtype=dt) * 2 - 0.5])
    g.case("square/%s" % tag, "square", torch.square, [x])
    g.case("isfinite/%s" % tag, "isfinite", torch.isfinite, [SPECIAL.to(dt)])
    g.case("addmm/%s" % tag, "addmm", torch.addmm, [randn(2, 3, dtype=dt), randn(2, 4, dtype=dt), randn(4, 3, dtype=dt)])
    g.case("addmm/%s/scaled" % tag, "addmm", torch.addmm, [randn(3, dtype=dt), randn(2, 4, dtype=dt), randn(4, 3, dtype=dt)], {"beta": 0.5, "alpha": 2.0})
    g.case("addmm/%s/beta0" % tag, "addmm", torch.addmm, [torch.full((2, 3), float("nan"), dtype=dt), randn(2, 4, dtype=dt), randn(4, 3, dtype=dt)], {"beta": 0.0})
    g.case("diff/%s" % tag, "diff", torch.diff, [x])
    g.case("diff/%s/n2dim0" % tag, "diff", torch.diff, [randn(4, 3, dtype=dt)], {"n": 2, "dim": 0})

g.case("hardtanh/range", "hardtanh", F.hardtanh, [torch.linspace(-3, 3, 13)], {"min_val": -2.0, "max_val": 0.5})
g.case("square/int64", "square", torch.square, [torch.tensor([[-3, 0, 7]])])
g.case("square/bool", "square", torch.square, [torch.tensor([True, False])])
g.case("isfinite/int64", "isfinite", torch.isfinite, [torch.tensor([1, -5])])
g.case("isfinite/bool", "isfinite", torch.isfinite, [torch.tensor([True])])
g.case("clamp_min", "clamp_min", torch.clamp_min, [randn(3, 4), 0.1])
g.case("clamp_max", "clamp_max", torch.clamp_max, [randn(3, 4), -0.1])
g.case("clamp_min/int64", "clamp_min", torch.clamp_min, [torch.tensor([-3, 5]), 0])
n = torch.arange(24).reshape(2, 3, 4)
g.case("narrow", "narrow", torch.narrow, [n, 2, 1, 2])
g.case("narrow/negative", "narrow", torch.narrow, [n, -2, -2, 2])
g.case("narrow/keywords", "narrow", lambda input, dim, start, length: torch.narrow(input, dim, start, length), [], {"input": n, "dim": 0, "start": 1, "length": 1})
g.case("movedim", "movedim", torch.movedim, [n, 0, 2])
g.case("movedim/lists", "movedim", torch.movedim, [n, [0, 1], [2, 0]])
g.case("movedim/negative", "movedim", torch.movedim, [n, -1, 0])
g.case("unbind", "unbind", lambda x: list(torch.unbind(x)), [n])
g.case("unbind/dim", "unbind", lambda x, dim: list(torch.unbind(x, dim)), [n], {"dim": -1})
g.case("diff/int64", "diff", torch.diff, [torch.tensor([1, 4, 9, 16])])
g.case("diff/bool", "diff", torch.diff, [torch.tensor([True, True, False, True])])
g.case("diff/n-large", "diff", torch.diff, [torch.tensor([1.0, 4.0])], {"n": 3})
g.case("cosine_similarity/zero", "cosine_similarity", F.cosine_similarity, [torch.zeros(2, 3), randn(2, 3)])

g.error("cosine_similarity/int", "cosine_similarity", [torch.tensor([[1, 2, 3]]), torch.tensor([[3, 2, 1]])], "must be floating point")
g.error("glu/odd", "glu", [randn(2, 5)], "has odd size 5")
g.error("narrow/range", "narrow", [n, 2, 3, 2], "start (3) + length (2) exceeds dimension 2 of size 4")
g.error("movedim/repeat", "movedim", [n, [0, 0], [1, 2]], "repeated dimension")
g.error("addmm/shape", "addmm", [randn(2, 2), randn(2, 4), randn(4, 3)], "does not broadcast")
g.error("logsigmoid/int", "logsigmoid", [torch.tensor([1])], "must be floating point")
g.error("hardtanh/inverted", "hardtanh", [randn(2)], "must not be above max_val", {"min_val": 1.0, "max_val": 0.0})
g.write()
