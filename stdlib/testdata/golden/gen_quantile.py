"""Goldens of quantile, nanquantile and kthvalue:
/usr/bin/python3 gen_quantile.py

Every interpolation, q as a number, a 0-d and a 1-d tensor, dim none and
each dim, keepdim, NaN (quantile's NaN, nanquantile's skipping and all-NaN
slices), float64, 0-d input, the gradients, and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(43)
g = Golden("quantile")

x = torch.randn(3, 5)
xn = torch.tensor([[1.0, float("nan"), 3.0, 2.0], [float("nan"), float("nan"), float("nan"), float("nan")], [4.0, 0.0, -1.0, 7.0]])
qs = torch.tensor([0.0, 0.1, 0.5, 0.75, 1.0])
for name, fn in (("quantile", torch.quantile), ("nanquantile", torch.nanquantile)):
    for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
        g.case("%s/%s" % (name, mode), name, fn, [x, qs], {"dim": 1, "interpolation": mode}, rtol=1e-6, atol=1e-6)
        g.case("%s/%s-nan" % (name, mode), name, fn, [xn, qs], {"dim": 1, "interpolation": mode}, rtol=1e-6, atol=1e-6)
    g.case("%s/flat" % name, name, fn, [x, 0.3], rtol=1e-6, atol=1e-6)
    g.case("%s/flat-keepdim" % name, name, fn, [x, 0.3], {"keepdim": True}, rtol=1e-6, atol=1e-6)
    g.case("%s/dim0-keepdim" % name, name, fn, [x, qs[:2].contiguous()], {"dim": 0, "keepdim": True}, rtol=1e-6, atol=1e-6)
    g.case("%s/negative-dim" % name, name, fn, [torch.randn(2, 3, 4), 0.6], {"dim": -2}, rtol=1e-6, atol=1e-6)
    g.case("%s/q-0d" % name, name, fn, [x, torch.tensor(0.25)], {"dim": 1}, rtol=1e-6, atol=1e-6)
    g.case("%s/float64" % name, name, fn, [x.double(), qs.double()], {"dim": 1})
    g.case("%s/0d" % name, name, fn, [torch.tensor(2.5), 0.5])
    g.case("%s/nearest-half" % name, name, fn, [torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0]), torch.tensor([0.125, 0.375, 0.625])], {"interpolation": "nearest"})
    g.grad_case(name, name, fn, [torch.randn(3, 6), 0.3], {"dim": 1})
    g.grad_case(name + "-many", name, fn, [torch.randn(7), torch.tensor([0.2, 0.5, 0.9])])
    g.error("%s/q-range" % name, name, [x, 1.5], "q must be in [0, 1], got 1.5")
    g.error("%s/q-dtype" % name, name, [x, torch.tensor([0.5], dtype=torch.float64)], "one dtype")
    g.error("%s/int" % name, name, [torch.tensor([1, 2]), 0.5], "float32 or float64")
    g.error("%s/empty" % name, name, [torch.zeros(0), 0.5], "must not be empty")
    g.error("%s/empty-batch" % name, name, [torch.zeros(0, 3), 0.5], "must not be empty", {"dim": 1})
    g.error("%s/half" % name, name, [torch.ones(3).half(), 0.5], "float32 or float64")
    g.case("%s/0d-keepdim" % name, name, fn, [torch.tensor(2.0), 0.5], {"dim": 0, "keepdim": True})
    g.case("%s/many-q-3d" % name, name, fn, [torch.randn(2, 3, 5), torch.tensor([0.1, 0.6, 0.9])], {"dim": 2, "keepdim": True}, rtol=1e-6, atol=1e-6)
    g.error("%s/mode" % name, name, [x, 0.5], "interpolation must be one of", {"interpolation": "cubic"})
    g.error("%s/q-2d" % name, name, [x, torch.ones(2, 2) * 0.5], "q must be a number or a 0-d or 1-d tensor")
g.grad_case("nanquantile-nan", "nanquantile", torch.nanquantile, [torch.tensor([1.0, float("nan"), 3.0, 2.0]), 0.5])

# kthvalue: distinct values (torch's index among equal ones is unspecified)
d = torch.randperm(20).reshape(4, 5).float()
g.case("kthvalue/dim-last", "kthvalue", lambda t, k: list(torch.kthvalue(t, k)), [d, 2])
g.case("kthvalue/dim0-keepdim", "kthvalue", lambda t, k, dim, keepdim: list(torch.kthvalue(t, k, dim, keepdim)), [d, 4, 0, True])
g.case("kthvalue/nan", "kthvalue", lambda t, k: list(torch.kthvalue(t, k)), [torch.tensor([3.0, float("nan"), 1.0]), 3])
g.case("kthvalue/int", "kthvalue", lambda t, k: list(torch.kthvalue(t, k)), [torch.tensor([[5, 2, 9], [1, 7, 3]]), 3])
g.case("kthvalue/0d", "kthvalue", lambda t, k: list(torch.kthvalue(t, k)), [torch.tensor(4.5), 1])
g.grad_case("kthvalue", "kthvalue.values", lambda t, k: torch.kthvalue(t, k, 1).values, [torch.randn(3, 5), 2])
g.error("kthvalue/k", "kthvalue", [d, 6], "k = 6 is out of range for a dimension of size 5")
g.error("kthvalue/k0", "kthvalue", [d, 0], "out of range")
g.write()
