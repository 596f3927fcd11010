"""Goldens of scatter_reduce (stdlib/gather.go, runtime/ops/scatter_reduce.go):
/usr/bin/python3 gen_scatter_reduce.py

torch.scatter_reduce with every reduction, include_self true and false,
over dims (negative included), dtypes (integer mean is floor division),
repeated indices, index smaller than src, NaN, keyword arguments and the
errors of a bad reduction, out-of-range indices and bool tensors.
"""

import torch

from gen_common import Golden

torch.manual_seed(11)
g = Golden("scatter_reduce")

REDUCE = ("sum", "prod", "mean", "amax", "amin")


def data(dt, shape):
    if dt.is_floating_point:
        return torch.randn(shape, dtype=torch.float64).mul(3).to(dt)
    if dt == torch.uint8:
        return torch.randint(0, 6, shape, dtype=dt)
    return torch.randint(-9, 9, shape, dtype=dt)


def ref(x, dim, index, src, reduce, include_self=True):
    return torch.scatter_reduce(x, dim, index, src, reduce, include_self=include_self)


x = torch.randn(4, 5, dtype=torch.float64)
for red in REDUCE:
    for inc in (True, False):
        t = "%s/%s" % (red, "self" if inc else "noself")
        for dim in (0, 1, -1):
            ishape = [6, 5] if dim == 0 else [4, 7]
            idx = torch.randint(0, x.shape[dim], ishape)
            src = torch.randn(ishape, dtype=torch.float64)
            g.case("%s/d%d" % (t, dim), "scatter_reduce", ref, [x, dim, idx, src, red], {"include_self": inc})
        # index smaller than src and than x in the other dimension
        idx = torch.randint(0, 4, (3, 2))
        g.case("%s/small-index" % t, "scatter_reduce", ref, [x.float(), 0, idx, torch.randn(5, 6), red], {"include_self": inc})
        for dt in (torch.int64, torch.int32, torch.uint8, torch.float32):
            xx = data(dt, [3, 4])
            idx = torch.randint(0, 4, (3, 6))
            g.case("%s/%s" % (t, str(dt).replace("torch.", "")), "scatter_reduce", ref, [xx, 1, idx, data(dt, [3, 6]), red], {"include_self": inc})
        g.case("%s/f16" % t, "scatter_reduce", ref,
               [data(torch.float16, [5]), 0, torch.tensor([0, 0, 3, 1]), torch.tensor([0.5, -1.0, 2.0, 1.5], dtype=torch.float16), red],
               {"include_self": inc}, rtol=1e-3, atol=1e-3)

nanx = torch.tensor([1.0, float("nan"), 3.0, -2.0])
for red in ("amax", "amin", "sum"):
    g.case("%s/nan" % red, "scatter_reduce", ref, [nanx, 0, torch.tensor([0, 0, 2, 1]), torch.tensor([float("nan"), 5.0, -7.0, 0.0]), red])
g.case("3d/d1", "scatter_reduce", ref, [torch.randn(2, 3, 4), 1, torch.randint(0, 3, (2, 5, 4)), torch.randn(2, 5, 4), "amax"])
g.case("empty-index", "scatter_reduce", ref, [torch.randn(3), 0, torch.zeros(0, dtype=torch.int64), torch.randn(0), "prod"])
g.case("keywords", "scatter_reduce", lambda input, dim, index, src, reduce: torch.scatter_reduce(input, dim, index, src, reduce), [],
       {"input": torch.arange(4.0), "dim": 0, "index": torch.tensor([1, 1]), "src": torch.tensor([2.0, 3.0]), "reduce": "prod"})
g.error("error/reduce", "scatter_reduce", [torch.zeros(3), 0, torch.tensor([1]), torch.ones(1), "max"], "reduce must be")
g.error("error/index", "scatter_reduce", [torch.zeros(3), 0, torch.tensor([3]), torch.ones(1), "sum"], "out of bounds")
g.error("error/bool", "scatter_reduce", [torch.tensor([True]), 0, torch.tensor([0]), torch.tensor([False]), "amax"], "not supported on bool")
g.write()
