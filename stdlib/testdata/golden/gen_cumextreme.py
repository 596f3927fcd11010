"""Goldens of cummax and cummin: /usr/bin/python3 gen_cumextreme.py

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
g.write()
