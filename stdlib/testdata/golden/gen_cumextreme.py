"""Goldens of cummax, cummin and logcumsumexp:
/usr/bin/python3 gen_cumextreme.py

Values and indices along each dim, ties (the last index wins), NaN (the
last NaN wins once one is seen), infinities, integer, bool and float64
inputs, 0-d and empty inputs, the gradients (to the elements that were
the extremes), and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(37)
g = Golden("cumextreme")

x = torch.tensor([[1.0, 3.0, 3.0, -1.0, float("nan"), 7.0], [float("-inf"), 0.0, float("inf"), 2.0, 2.0, float("nan")]])
for name, fn in (("cummax", torch.cummax), ("cummin", torch.cummin)):
    g.case("%s/special" % name, name, lambda t, dim, fn=fn: list(fn(t, dim)), [x, 1])
    g.case("%s/dim0" % name, name, lambda t, dim, fn=fn: list(fn(t, dim)), [torch.randn(4, 3), 0])
    g.case("%s/negative-dim" % name, name, lambda t, dim, fn=fn: list(fn(t, dim)), [torch.randn(2, 3, 4), -2])
    g.case("%s/int" % name, name, lambda t, dim, fn=fn: list(fn(t, dim)), [torch.tensor([[2, 1, 1, 5], [0, 5, 5, -1]]), 1])
    g.case("%s/bool" % name, name, lambda t, dim, fn=fn: list(fn(t, dim)), [torch.tensor([False, True, False, True]), 0])
    g.case("%s/float64" % name, name, lambda t, dim, fn=fn: list(fn(t, dim)), [torch.randn(5, dtype=torch.float64), 0])
    g.case("%s/0d" % name, name, lambda t, dim, fn=fn: list(fn(t, dim)), [torch.tensor(2.5), 0])
    g.case("%s/empty" % name, name, lambda t, dim, fn=fn: list(fn(t, dim)), [torch.zeros(2, 0), 1])
    g.case("%s/keywords" % name, name, lambda input, dim, fn=fn: list(fn(input, dim)), [], {"input": torch.tensor([3.0, 1.0, 4.0]), "dim": 0})
    g.grad_case(name, name + ".values", lambda t, dim, fn=fn: fn(t, dim).values, [torch.tensor([[1.0, 3.0, 2.0, 3.0, 0.5], [4.0, 4.0, -1.0, 5.0, 5.0]]), 1])
    g.grad_case(name + "-dim0", name + ".values", lambda t, dim, fn=fn: fn(t, dim).values, [torch.randn(4, 3), 0])
    g.error("%s/dim" % name, name, [torch.ones(2, 3), 2], "out of range")

# logcumsumexp: large and small magnitudes (no overflow), infinities and
# NaN, float64, 0-d and empty inputs, the gradients (both signs of the
# cotangent), and errors
big = torch.tensor([[1000.0, 1000.0, -1000.0, 3.0], [float("-inf"), 0.0, float("inf"), 1.0], [float("-inf"), float("-inf"), 2.0, float("nan")]])
g.case("logcumsumexp/special", "logcumsumexp", torch.logcumsumexp, [big, 1], rtol=1e-6)
g.case("logcumsumexp/dim0", "logcumsumexp", torch.logcumsumexp, [torch.randn(4, 3) * 10, 0], rtol=1e-6, atol=1e-6)
g.case("logcumsumexp/negative-dim", "logcumsumexp", torch.logcumsumexp, [torch.randn(2, 3, 4), -2], rtol=1e-6, atol=1e-6)
g.case("logcumsumexp/float64", "logcumsumexp", torch.logcumsumexp, [torch.randn(6, dtype=torch.float64) * 50, 0])
g.case("logcumsumexp/long", "logcumsumexp", torch.logcumsumexp, [torch.randn(3000), 0], rtol=1e-5, atol=1e-5)
g.case("logcumsumexp/0d", "logcumsumexp", torch.logcumsumexp, [torch.tensor(1.5), 0])
g.case("logcumsumexp/empty", "logcumsumexp", torch.logcumsumexp, [torch.zeros(2, 0), 1])
g.case("logcumsumexp/keywords", "logcumsumexp", lambda input, dim: torch.logcumsumexp(input, dim), [], {"input": torch.tensor([0.0, 0.0]), "dim": 0})
g.grad_case("logcumsumexp", "logcumsumexp", torch.logcumsumexp, [torch.randn(3, 5) * 3, 1], atol=1e-4)
g.grad_case("logcumsumexp-dim0", "logcumsumexp", torch.logcumsumexp, [torch.randn(4, 2), 0], atol=1e-4)
g.grad_case("logcumsumexp-large", "logcumsumexp", torch.logcumsumexp, [torch.tensor([500.0, -500.0, 499.0, 1.0]), 0], atol=1e-4)
g.error("logcumsumexp/int", "logcumsumexp", [torch.tensor([1, 2]), 0], "floating-point")
g.error("logcumsumexp/dim", "logcumsumexp", [torch.ones(2), 1], "out of range")
g.write()
