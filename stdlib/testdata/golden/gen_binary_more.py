"""Goldens of fmod, hypot, copysign and remainder, add's and sub's alpha,
div's rounding_mode and torch's aliases of builtins:
/usr/bin/python3 gen_binary_more.py

Broadcasting, numbers on either side, integer, bool, float32 and float64
inputs with torch's promotion, signed zeros, infinities and NaN, integer
division by zero, the gradients, and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(41)
g = Golden("binary_more")

SPECIAL = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, float("inf"), float("-inf"), float("nan"), 1e-30])
a = SPECIAL.reshape(-1, 1)
b = SPECIAL.reshape(1, -1)

for name, fn in (("fmod", torch.fmod), ("hypot", torch.hypot), ("copysign", torch.copysign), ("remainder", torch.remainder)):
    g.case("%s/special" % name, name, fn, [a, b])
    g.case("%s/special-f64" % name, name, fn, [a.double(), b.double()])
    g.case("%s/bcast" % name, name, fn, [torch.randn(2, 3, 1) * 4, torch.randn(4) * 2], rtol=1e-6, atol=1e-6)
    g.case("%s/number-right" % name, name, lambda x, y, fn=fn: fn(x, torch.tensor(y)), [torch.randn(5) * 3, 1.5], rtol=1e-6, atol=1e-6)
    g.case("%s/keywords" % name, name, lambda input, other, fn=fn: fn(input, other), [], {"input": torch.tensor([5.5, -5.5]), "other": torch.tensor([2.0, 2.0])})
    if name != "hypot":
        g.case("%s/f32-f64" % name, name, fn, [torch.randn(3), torch.randn(3, dtype=torch.float64)])
        g.case("%s/int-float" % name, name, fn, [torch.tensor([7, -7, 3]), torch.tensor([2.5, 2.5, -0.0])])
for name, fn in (("fmod", torch.fmod), ("remainder", torch.remainder)):
    g.case("%s/int" % name, name, fn, [torch.tensor([7, -7, 7, -7, 0, 5]), torch.tensor([3, 3, -3, -3, 4, -1])])
    g.case("%s/int-number" % name, name, lambda x, y, fn=fn: fn(x, torch.tensor(y)), [torch.tensor([7, -7, 9]), 4])
    g.error("%s/int-zero" % name, name, [torch.tensor([1, 2]), torch.tensor([1, 0])], "division by zero")
    g.error("%s/bool" % name, name, [torch.tensor([True]), torch.tensor([True])], "bool")
g.case("copysign/int", "copysign", torch.copysign, [torch.tensor([3, -3, 0]), torch.tensor([-1, 1, -1])])
g.case("copysign/bool", "copysign", torch.copysign, [torch.tensor([True, False]), torch.tensor([True, True])])
g.case("copysign/number-left", "copysign", lambda x, y: torch.copysign(torch.tensor(x), y), [2.0, torch.tensor([-0.0, 0.0, float("nan"), -3.0])])
g.case("hypot/large", "hypot", torch.hypot, [torch.tensor([3e30, 3e-30, 1e38]), torch.tensor([4e30, 4e-30, 1e38])])
g.error("hypot/int", "hypot", [torch.tensor([3]), torch.tensor([4])], "hypot takes floating-point tensors")
g.error("fmod/shape", "fmod", [torch.ones(2), torch.ones(3)], "cannot broadcast")

g.grad_case("fmod", "fmod", torch.fmod, [torch.randn(2, 3) * 3, torch.rand(3) + 0.5])
g.grad_case("hypot", "hypot", torch.hypot, [torch.randn(2, 3), torch.randn(3)])
g.grad_case("copysign", "copysign", torch.copysign, [torch.tensor([1.5, -2.0, 0.0, 3.0]), torch.tensor([-1.0, -1.0, 1.0, 2.0])])
g.grad_case("copysign-bcast", "copysign", torch.copysign, [torch.randn(2, 3), torch.randn(2, 1)])
g.grad_case("remainder", "remainder", torch.remainder, [torch.randn(2, 3) * 3, torch.rand(3) + 0.5])

# add and sub with alpha; div with rounding_mode
for name, fn in (("add", torch.add), ("sub", torch.sub)):
    g.case("%s/alpha" % name, name, fn, [torch.randn(2, 3), torch.randn(3)], {"alpha": 2.5}, rtol=1e-6, atol=1e-6)
    g.case("%s/alpha-int" % name, name, fn, [torch.tensor([5, 5, -2]), torch.tensor([1, 2, 3])], {"alpha": 3})
    g.case("%s/alpha-float64" % name, name, fn, [torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)], {"alpha": -0.5})
    g.error("%s/alpha-float-int" % name, name, [torch.tensor([1, 2]), torch.tensor([1, 2])], "alpha must be an int for int64 tensors", {"alpha": 0.5})
    g.grad_case("%s-alpha" % name, name, fn, [torch.randn(2, 3), torch.randn(2, 3)], {"alpha": -1.5})
dv = torch.tensor([7.0, -7.0, 2.5, -2.5, 0.0, 1.0, float("inf"), float("nan")])
dd = torch.tensor([2.0, 2.0, -0.5, 0.5, 3.0, 0.0, 2.0, 1.0])
for mode in ("trunc", "floor"):
    g.case("div/%s" % mode, "div", torch.div, [dv, dd], {"rounding_mode": mode})
    g.case("div/%s-int" % mode, "div", torch.div, [torch.tensor([7, -7, 7, -7, 0]), torch.tensor([2, 2, -2, -2, 5])], {"rounding_mode": mode})
    g.case("div/%s-int-float" % mode, "div", torch.div, [torch.tensor([7, -7]), torch.tensor([2.0, 2.0])], {"rounding_mode": mode})
    g.case("div/%s-bcast" % mode, "div", torch.div, [torch.randn(2, 3) * 5, torch.randn(3)], {"rounding_mode": mode})
    g.grad_case("div-%s" % mode, "div", torch.div, [torch.randn(2, 3) * 5, torch.rand(3) + 0.5], {"rounding_mode": mode})
    g.error("div/%s-int-zero" % mode, "div", [torch.tensor([1, 2]), torch.tensor([1, 0])], "division by zero", {"rounding_mode": mode})
g.case("div/none", "div", torch.div, [dv, dd], {"rounding_mode": None})
g.error("div/mode", "div", [dv, dd], "rounding_mode must be none", {"rounding_mode": "round"})

# torch's aliases
g.case("clip", "clip", torch.clip, [dv], {"min": -1.0, "max": 2.0})
g.case("multiply", "multiply", torch.multiply, [dv, dd])
g.case("subtract-alpha", "subtract", torch.subtract, [dv, dd], {"alpha": 2.0})
g.case("divide-floor", "divide", torch.divide, [dv, dd], {"rounding_mode": "floor"})
g.case("true_divide", "true_divide", torch.true_divide, [torch.tensor([7, -7]), torch.tensor([2, 2])])
for alias, fn in (("greater", torch.greater), ("greater_equal", torch.greater_equal), ("less", torch.less), ("less_equal", torch.less_equal), ("not_equal", torch.not_equal)):
    g.case(alias, alias, fn, [dv, dd])
for alias, fn in (("negative", torch.negative), ("absolute", torch.absolute), ("fix", torch.fix), ("sgn", torch.sgn)):
    g.case(alias, alias, fn, [dv])
u = torch.tensor([-0.5, 0.0, 0.9])
for alias, fn in (("arccos", torch.arccos), ("arcsin", torch.arcsin), ("arctan", torch.arctan), ("arcsinh", torch.arcsinh), ("arctanh", torch.arctanh)):
    g.case(alias, alias, fn, [u], rtol=1e-6)
g.case("arccosh", "arccosh", torch.arccosh, [torch.tensor([1.0, 2.0, 10.0])], rtol=1e-6)
g.case("arctan2", "arctan2", torch.arctan2, [dv, dd], rtol=1e-6)
g.case("concat", "concat", lambda ts, dim: torch.concat(ts, dim), [[torch.ones(2, 1), torch.zeros(2, 2)], 1])
g.case("concatenate", "concatenate", lambda ts: torch.concatenate(ts) if hasattr(torch, "concatenate") else torch.cat(ts), [[torch.ones(2), torch.zeros(1)]])
g.case("moveaxis", "moveaxis", torch.moveaxis, [torch.randn(2, 3, 4), 0, -1])
g.grad_case("clip", "clip", torch.clip, [torch.randn(5)], {"min": -0.5, "max": 0.5})
g.write()
