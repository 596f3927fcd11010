"""Goldens of the special functions erfc, erfinv, lgamma, digamma and
polygamma: /usr/bin/python3 gen_special.py

Values over special points (zeros, poles, infinities, NaN), float32,
float64 and integer inputs, polygamma of several orders (at negative x
too, and below -64 where tref sums the terms at negative arguments in
closed form), the gradients, and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(29)
g = Golden("special")


grad_case = g.grad_case


SPECIAL = torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-8, 7.0, -3.0, 30.0])
UNIT = torch.tensor([-1.0, -0.999, -0.5, -0.0, 0.0, 1e-6, 0.3, 0.9999, 1.0, 1.5, float("nan")])

for name, fn in (("erfc", torch.erfc), ("erfinv", torch.erfinv), ("lgamma", torch.lgamma), ("digamma", torch.digamma)):
    pts = UNIT if name == "erfinv" else SPECIAL
    g.case("%s/special" % name, name, fn, [pts], rtol=2e-6, atol=1e-6)
    g.case("%s/special-f64" % name, name, fn, [pts.double()], rtol=1e-12, atol=1e-12)
    g.case("%s/int" % name, name, fn, [torch.tensor([[1, 2, 3], [0, -1, 5]])], rtol=2e-6, atol=1e-6)
    g.case("%s/input-keyword" % name, name, lambda input, fn=fn: fn(input), [], {"input": torch.tensor([0.25, 0.75])}, rtol=2e-6, atol=1e-6)
    g.error("%s/arity" % name, name, [torch.ones(2), torch.ones(2)], "")

g.case("erfc/tail", "erfc", torch.erfc, [torch.tensor([3.0, 5.0, 9.0, 26.0, -4.0])], rtol=2e-6)
g.case("erfc/tail-f64", "erfc", torch.erfc, [torch.tensor([5.0, 10.0, 26.0], dtype=torch.float64)], rtol=1e-12)
g.case("lgamma/large", "lgamma", torch.lgamma, [torch.tensor([1e3, 1e10, 1e30, -1e10 - 0.5], dtype=torch.float64)], rtol=1e-12)
g.case("digamma/random", "digamma", torch.digamma, [torch.randn(4, 5) * 5], rtol=1e-5, atol=1e-5)
g.case("digamma/negative-f64", "digamma", torch.digamma, [torch.tensor([-0.25, -1.5, -10.3, -100.75, -1e6 - 0.5], dtype=torch.float64)], rtol=1e-9)

# polygamma: orders 0 to 4, positive and negative (non-integer) x
px = torch.tensor([0.1, 0.5, 1.0, 2.5, 9.5, 10.0, 40.0, -0.5, -2.25, -7.75, 0.0, -3.0, float("inf"), float("nan")])
# At a negative integer, torch's float32 trigamma (n = 1) divides by the
# square of sin(π·x) computed in float32 (about 1e-7) and gives about 1e16,
# tref's computes in float64 (sin about 1e-16) and gives about 1e31: the
# pole itself is left out of the float32 case of n = 1.
for n in range(5):
    pts = px[px != -3.0] if n == 1 else px
    g.case("polygamma/n%d" % n, "polygamma", torch.polygamma, [n, pts], rtol=2e-5, atol=1e-5)
    g.case("polygamma/n%d-f64" % n, "polygamma", torch.polygamma, [n, px.double()], rtol=1e-10, atol=1e-12)
far = torch.tensor([-64.5, -65.25, -100.25, -777.875, -1e4 - 0.3], dtype=torch.float64)
for n in (2, 3):
    g.case("polygamma/far-n%d" % n, "polygamma", torch.polygamma, [n, far], rtol=1e-7, atol=1e-9)
g.case("polygamma/int", "polygamma", torch.polygamma, [1, torch.tensor([1, 2, 3])], rtol=2e-6)
g.case("polygamma/keywords", "polygamma", lambda n, input: torch.polygamma(n, input), [], {"n": 2, "input": torch.tensor([1.5, 3.0])}, rtol=2e-6)
g.case("polygamma/n20", "polygamma", torch.polygamma, [20, torch.tensor([1.0, 4.0, 30.0], dtype=torch.float64)], rtol=1e-10)
g.error("polygamma/negative-n", "polygamma", [-1, torch.ones(2)], "n must be in [0, 170], got -1")
g.error("polygamma/large-n", "polygamma", [171, torch.ones(2)], "n must be in [0, 170], got 171")
g.error("polygamma/float-n", "polygamma", [1.5, torch.ones(2)], "n must be an int")

# gradients: erfc anywhere, erfinv inside (-1, 1), the gamma family at
# positive x and between negative poles
grad_case("erfc", "erfc", torch.erfc, [torch.randn(3, 4)])
grad_case("erfinv", "erfinv", torch.erfinv, [torch.rand(3, 4) * 1.8 - 0.9], atol=1e-4, rtol=1e-4)
grad_case("lgamma", "lgamma", torch.lgamma, [torch.rand(3, 4) * 5 + 0.1], atol=1e-4, rtol=1e-5)
grad_case("lgamma-negative", "lgamma", torch.lgamma, [torch.tensor([-0.5, -1.25, -2.75])], atol=1e-4, rtol=1e-5)
grad_case("digamma", "digamma", torch.digamma, [torch.rand(3, 4) * 5 + 0.1], atol=1e-3, rtol=1e-5)
for n in (1, 2):
    grad_case("polygamma-n%d" % n, "polygamma", torch.polygamma, [n, torch.rand(2, 3) * 4 + 0.5], atol=1e-4, rtol=1e-5)
g.write()
