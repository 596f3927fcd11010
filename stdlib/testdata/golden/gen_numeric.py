"""Goldens of dist, vector_norm, trapezoid, cumulative_trapezoid and histc:
/usr/bin/python3 gen_numeric.py
"""

import torch

from gen_common import Golden

torch.manual_seed(47)
g = Golden("numeric")

a, b = torch.randn(3, 4), torch.randn(4)
for p in (2.0, 1.0, 3.0, 0.0, float("inf"), float("-inf")):
    g.case("dist/p%s" % p, "dist", torch.dist, [a, b], {"p": p}, rtol=1e-5, atol=1e-6)
g.case("dist/float64", "dist", torch.dist, [a.double(), b.double()])
g.grad_case("dist", "dist", torch.dist, [a, b])
g.grad_case("dist-p1", "dist", torch.dist, [a, b], {"p": 1.0})
g.error("dist/int", "dist", [torch.tensor([1, 2]), torch.tensor([1, 2])], "floating point")

x = torch.randn(2, 3, 4)
for ord in (2.0, 1.0, 0.5, 0.0, float("inf"), float("-inf")):
    g.case("vector_norm/ord%s" % ord, "vector_norm", torch.linalg.vector_norm, [x], {"ord": ord}, rtol=1e-5, atol=1e-6)
g.case("vector_norm/dims", "vector_norm", torch.linalg.vector_norm, [x], {"dim": [0, 2], "keepdim": True}, rtol=1e-5)
g.case("vector_norm/dim-int", "vector_norm", torch.linalg.vector_norm, [x, 3.0, -1], rtol=1e-5)
g.case("vector_norm/dtype", "vector_norm", lambda t: torch.linalg.vector_norm(t, dtype=torch.float64), [x], tref_kwargs={"dtype": "float64"})
g.grad_case("vector_norm", "vector_norm", torch.linalg.vector_norm, [x], {"dim": [1]})
g.error("vector_norm/int", "vector_norm", [torch.tensor([3, 4])], "floating point")

y = torch.randn(3, 6)
for name, fn in (("trapezoid", torch.trapezoid), ("cumulative_trapezoid", torch.cumulative_trapezoid)):
    g.case("%s/default" % name, name, fn, [y], rtol=1e-5, atol=1e-6)
    g.case("%s/dx" % name, name, fn, [y], {"dx": 0.25, "dim": 0}, rtol=1e-5, atol=1e-6)
    g.case("%s/x-1d" % name, name, fn, [y, torch.sort(torch.randn(6)).values], rtol=1e-5, atol=1e-6)
    g.case("%s/x-full" % name, name, fn, [y, torch.randn(3, 6)], {"dim": 1}, rtol=1e-5, atol=1e-6)
    g.case("%s/int" % name, name, fn, [torch.tensor([1, 4, 9, 16])], rtol=1e-6)
    g.case("%s/one-point" % name, name, fn, [torch.tensor([[2.0], [3.0]])])
    g.case("%s/empty" % name, name, fn, [torch.zeros(2, 0)])
    g.case("%s/float64" % name, name, fn, [y.double()], {"dx": 0.1})
    g.grad_case(name, name, fn, [y, torch.sort(torch.randn(6)).values], atol=1e-4)
    g.grad_case(name + "-dx", name, fn, [y], {"dx": 0.5}, atol=1e-4)
    g.error("%s/both" % name, name, [y, torch.ones(6)], "pass x or dx, not both", {"dx": 1.0})
    g.error("%s/x-length" % name, name, [y, torch.ones(5)], "x has 5 points but y has 6")

h = torch.tensor([0.0, 0.5, 1.0, 1.0, 2.5, 3.0, -1.0, 4.0])
g.case("histc/range", "histc", torch.histc, [h], {"bins": 4, "min": 0.0, "max": 3.0})
# torch 1.13 counts a NaN in the first bin; tref counts it nowhere, as it
# does the elements outside [min, max].
g.expect("histc/nan", "histc", [torch.tensor([float("nan"), 2.9, 0.1])], {"bins": 4, "min": 0.0, "max": 3.0}, torch.tensor([1.0, 0.0, 0.0, 1.0]))
g.case("histc/auto", "histc", torch.histc, [torch.randn(1000)], {"bins": 10})
g.case("histc/default-bins", "histc", torch.histc, [torch.rand(3, 50)])
g.case("histc/float64", "histc", torch.histc, [torch.randn(200, dtype=torch.float64)], {"bins": 7, "min": -1.0, "max": 1.0})
g.case("histc/constant", "histc", torch.histc, [torch.full((5,), 2.0)], {"bins": 4})
g.case("histc/boundaries", "histc", torch.histc, [torch.linspace(0, 1, 11)], {"bins": 10, "min": 0.0, "max": 1.0})
g.error("histc/int", "histc", [torch.tensor([1, 2])], "floating point")
g.error("histc/bins", "histc", [h], "bins must be positive", {"bins": 0})
g.error("histc/order", "histc", [h], "must be larger than min", {"min": 2.0, "max": 1.0})
g.write()
