"""Goldens of fmod, hypot, copysign and remainder:
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
g.write()
