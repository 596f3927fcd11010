"""Goldens of weight_norm (stdlib/weightnorm.go), torch._weight_norm:
/usr/bin/python3 gen_weightnorm.py

The weight nn.utils.weight_norm computes from weight_v and weight_g,
along dim 0, 1, a negative dim, and over everything (dim=-1 and none),
and its gradients with respect to both; then errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(1921)
g = Golden("weightnorm")


def wn(v, g, dim=0):
    return torch._weight_norm(v, g, -1 if dim is None else dim)


v4 = torch.randn(4, 3, 2, 2)
for label, v, gg, kw in [
    ("dim0-conv", v4, torch.randn(4, 1, 1, 1), {}),
    ("dim1", torch.randn(3, 5), torch.randn(1, 5), {"dim": 1}),
    ("dim-2", torch.randn(2, 3, 4), torch.randn(1, 3, 1), {"dim": -2}),
    ("all-minus-one", torch.randn(3, 4), torch.randn(()), {"dim": -1}),
    ("all-none", torch.randn(3, 4), torch.randn(()), {"dim": None}),
    ("1d", torch.randn(5), torch.randn(5), {}),
    ("float64", torch.randn(3, 4, dtype=torch.float64), torch.randn(3, 1, dtype=torch.float64), {}),
]:
    g.case("weight_norm/" + label, "weight_norm", wn, [v, gg], kw, rtol=1e-12 if v.dtype == torch.float64 else None)
    if v.dtype == torch.float32:
        g.grad_case("weight_norm/" + label, "weight_norm", wn, [v, gg], kw)

g.error("error/dim", "weight_norm", [torch.randn(3, 4), torch.randn(3, 1)], "weight_norm: dim 2 is out of range for v of 2 dimensions", {"dim": 2})
g.error("error/dtype", "weight_norm", [torch.randn(3, 4), torch.randn(3, 1, dtype=torch.float64)], "weight_norm: v and g must be float tensors of one dtype")
g.write()
