"""Goldens of the scan, norm and sorting builtins of stdlib/order.go:
/usr/bin/python3 gen_order.py

cumsum cumprod logsumexp norm argsort sort topk with torch's argument
names, over dims (negative included), dtypes, 0-d and empty tensors, NaN
and infinities. Sorting cases use distinct values (torch's unstable sort
orders ties arbitrarily) except where stable=True asks for the order tref
always gives. randperm is tested for being a seeded permutation in
order_test.go (torch's generator differs from tref's).
"""

import torch

from gen_common import Golden

torch.manual_seed(11)
g = Golden("order")


def tag(dt):
    return str(dt).replace("torch.", "")


def distinct(shape, dt=torch.float32):
    n = 1
    for s in shape:
        n *= s
    return (torch.randperm(n).to(torch.float64) * 0.37 - n * 0.1).to(dt).reshape(shape)


# cumsum / cumprod
for name, fn in (("cumsum", torch.cumsum), ("cumprod", torch.cumprod)):
    x = torch.randn(3, 4, 5)
    if name == "cumprod":
        x = x * 0.5 + 1
    for dim in (0, 1, 2, -1):
        g.case("%s/d%d" % (name, dim), name, fn, [x, dim])
    for dt in (torch.float64, torch.int64, torch.uint8, torch.bool, torch.int32):
        xx = torch.randint(-3, 4, (4, 3)).to(dt) if dt != torch.bool else torch.rand(4, 3) > 0.4
        if dt == torch.uint8:
            xx = torch.randint(0, 4, (4, 3), dtype=dt)
        g.case("%s/%s" % (name, tag(dt)), name, fn, [xx, 0])
    g.case("%s/0d" % name, name, fn, [torch.tensor(2.5), 0])
    g.case("%s/empty" % name, name, fn, [torch.zeros(0, 3), 0])
    g.case("%s/empty-d1" % name, name, fn, [torch.zeros(0, 3), 1])
    g.case("%s/nan" % name, name, fn, [torch.tensor([1.0, float("nan"), 2.0]), 0])
    g.case("%s/dtype" % name, name, lambda x, dim, dtype: fn(x, dim, dtype=torch.float64), [torch.arange(6).reshape(2, 3), 1],
           tref_kwargs={"dtype": "float64"}, kwargs={"dtype": None})
    g.case("%s/kw" % name, name, lambda x, dim: fn(x, dim=dim), [torch.randn(2, 3)], {"dim": -2})
    g.error("%s/error/dim" % name, name, [torch.zeros(2, 3), 2], "dim")
g.case("cumsum/long", "cumsum", torch.cumsum, [torch.rand(5000), 0], rtol=1e-5, atol=1e-4)

# logsumexp
x = torch.randn(3, 4, 5)
for dim in (0, 1, -1, [0, 2], [1, 0]):
    for keepdim in (False, True):
        g.case("logsumexp/d%s%s" % (dim, "/keep" if keepdim else ""), "logsumexp", torch.logsumexp, [x, dim], {"keepdim": keepdim} if keepdim else {})
g.case("logsumexp/large", "logsumexp", torch.logsumexp, [torch.tensor([[1000.0, 1000.0], [-1000.0, 5.0]]), 1])
g.case("logsumexp/inf", "logsumexp", torch.logsumexp,
       [torch.tensor([[float("-inf"), float("-inf")], [float("inf"), 1.0], [float("nan"), 1.0], [float("-inf"), 2.0]]), 1])
g.case("logsumexp/int", "logsumexp", torch.logsumexp, [torch.tensor([[1, 2], [3, 4]]), 0])
g.case("logsumexp/f64", "logsumexp", torch.logsumexp, [x.double(), 2])
g.case("logsumexp/empty", "logsumexp", torch.logsumexp, [torch.zeros(2, 0), 1])
g.case("logsumexp/0d", "logsumexp", torch.logsumexp, [torch.tensor(1.5), 0])

# norm
x = torch.randn(3, 4, 5)
for p in (2, 1, 3, 0.5, 0, float("inf"), float("-inf"), "fro"):
    for dim in (None, 1, [0, 2], -1):
        kw = {"p": p}
        if dim is not None:
            kw["dim"] = dim
        tref_kw = dict(kw)
        if isinstance(p, float) and p in (float("inf"), float("-inf")):
            tref_kw["p"] = "inf" if p > 0 else "-inf"
        g.case("norm/p%s/d%s" % (p, dim), "norm", torch.norm, [x], kw, tref_kwargs=tref_kw)
g.case("norm/keepdim", "norm", torch.norm, [x], {"dim": 1, "keepdim": True})
g.case("norm/positional", "norm", lambda x, p, dim: torch.norm(x, p, dim), [x, 1, 2])
g.case("norm/f64", "norm", torch.norm, [x.double()], {"p": 3})
g.case("norm/zeros", "norm", torch.norm, [torch.zeros(2, 3)], {"dim": 1})
g.case("norm/nan", "norm", torch.norm, [torch.tensor([[1.0, float("nan")], [3.0, 4.0]])], {"dim": 1})
g.case("norm/empty", "norm", torch.norm, [torch.zeros(0, 3)], {"dim": 0})
g.case("norm/0d", "norm", torch.norm, [torch.tensor(-2.5)])
g.error("norm/error/int", "norm", [torch.tensor([1, 2])], "needs a float tensor")
g.error("norm/error/nuc", "norm", [x], "nuclear", {"p": "nuc"})
g.error("norm/error/empty-inf", "norm", [torch.zeros(0, 3)], "has no value", {"dim": 0, "p": "-inf"})

# argsort / sort / topk
x = distinct([4, 5, 6])
for dim in (0, 1, 2, -1):
    for desc in (False, True):
        kw = {"dim": dim}
        if desc:
            kw["descending"] = True
        nm = "d%d%s" % (dim, "/desc" if desc else "")
        g.case("argsort/" + nm, "argsort", torch.argsort, [x], kw)
        g.case("sort/" + nm, "sort", lambda x, **kw: tuple(torch.sort(x, **kw)), [x], kw)
for dt in (torch.float64, torch.int64, torch.uint8, torch.int32):
    xx = distinct([3, 7], dt) if dt not in (torch.uint8,) else torch.randperm(21).to(dt).reshape(3, 7)
    if dt == torch.int64:
        xx = torch.randperm(21).reshape(3, 7) - 10
    g.case("sort/%s" % tag(dt), "sort", lambda x: tuple(torch.sort(x)), [xx])
    g.case("argsort/%s/desc" % tag(dt), "argsort", torch.argsort, [xx], {"descending": True})
ties = torch.tensor([[3.0, 1.0, 3.0, 1.0, 2.0], [0.0, 0.0, 0.0, -1.0, 0.0]])
g.case("sort/stable", "sort", lambda x, **kw: tuple(torch.sort(x, **kw)), [ties], {"stable": True})
g.case("sort/stable/desc", "sort", lambda x, **kw: tuple(torch.sort(x, **kw)), [ties], {"stable": True, "descending": True})
g.case("argsort/stable", "argsort", lambda x, **kw: torch.sort(x, **kw)[1], [ties], {"stable": True, "dim": 1})
g.case("sort/bool", "sort", lambda x, **kw: tuple(torch.sort(x, **kw)), [torch.tensor([True, False, True, False])], {"stable": True})
nanx = torch.tensor([3.0, float("nan"), -1.0, float("inf"), float("-inf"), 0.5])
g.case("sort/nan", "sort", lambda x: tuple(torch.sort(x)), [nanx])
g.case("sort/nan/desc", "sort", lambda x, **kw: tuple(torch.sort(x, **kw)), [nanx], {"descending": True})
g.case("sort/0d", "sort", lambda x: tuple(torch.sort(x)), [torch.tensor(1.5)])
g.case("sort/empty", "sort", lambda x, **kw: tuple(torch.sort(x, **kw)), [torch.zeros(3, 0)], {"dim": 1})
g.case("sort/positional", "sort", lambda x, d, desc: tuple(torch.sort(x, d, desc)), [x, 0, True])

for k in (1, 3, 6):
    g.case("topk/k%d" % k, "topk", lambda x, k: tuple(torch.topk(x, k)), [x, k])
g.case("topk/smallest", "topk", lambda x, k, **kw: tuple(torch.topk(x, k, **kw)), [x, 2], {"largest": False})
g.case("topk/d0", "topk", lambda x, k, **kw: tuple(torch.topk(x, k, **kw)), [x, 3], {"dim": 0})
g.case("topk/d1", "topk", lambda x, k, d: tuple(torch.topk(x, k, d)), [x, 2, 1])
g.case("topk/k0", "topk", lambda x, k: tuple(torch.topk(x, k)), [x, 0])
g.case("topk/nan", "topk", lambda x, k: tuple(torch.topk(x, k)), [nanx, 3])
g.case("topk/nan/smallest", "topk", lambda x, k, **kw: tuple(torch.topk(x, k, **kw)), [nanx, 3], {"largest": False})
g.case("topk/i64", "topk", lambda x, k: tuple(torch.topk(x, k)), [torch.randperm(10) * 3 - 7, 4])
g.case("topk/0d", "topk", lambda x, k: tuple(torch.topk(x, k)), [torch.tensor(2.0), 1])
g.error("topk/error/k", "topk", [x, 7], "out of range")
g.error("topk/error/negative", "topk", [x, -1], "out of range")
g.error("argsort/error/dim", "argsort", [x], "dim", {"dim": 3})

g.write()
