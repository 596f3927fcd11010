"""Goldens for multi_dot and vander.

Run with Debian's python3-torch: /usr/bin/python3 gen_chains.py
"""

import torch

from gen_common import Golden

torch.manual_seed(22)
g = Golden("chains")
TOL = {"rtol": 1e-5, "atol": 1e-5}


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


md = lambda *ts: torch.linalg.multi_dot(list(ts))
for name, ts in [("two", [r(3, 4), r(4, 2)]), ("three", [r(10, 2), r(2, 10), r(10, 3)]),
                 ("five", [r(4, 6), r(6, 2), r(2, 7), r(7, 3), r(3, 5)]),
                 ("row-first", [r(4), r(4, 3), r(3, 2)]), ("column-last", [r(2, 4), r(4, 3), r(3)]),
                 ("vectors", [r(4), r(4)]), ("both-vectors", [r(3), r(3, 5), r(5)]),
                 ("f64", [r(2, 3, dtype=torch.float64), r(3, 3, dtype=torch.float64), r(3, 1, dtype=torch.float64)]),
                 ("int", [torch.randint(-3, 4, (2, 3)), torch.randint(-3, 4, (3, 4)), torch.randint(-3, 4, (4, 2))]),
                 ("empty", [r(2, 0), r(0, 3), r(3, 2)])]:
    g.case("multi_dot/" + name, "multi_dot", lambda *ts: torch.linalg.multi_dot(list(ts)), ts, tref_args=[ts], **TOL)
g.error("multi_dot/one", "multi_dot", [[r(2, 2)]], "expected at least 2 tensors, got 1")
g.error("multi_dot/inner", "multi_dot", [[r(2, 3), r(4, 2)]], "does not follow tensor 0")
g.error("multi_dot/middle-vector", "multi_dot", [[r(2, 3), r(3), r(3, 2)]], "expected a matrix")
g.error("multi_dot/dtype", "multi_dot", [[r(2, 3), r(3, 2, dtype=torch.float64)]], "they must have one dtype")

for name, x, kw in [("int", torch.tensor([1, 2, 3]), {}), ("float", r(4), {}), ("N", r(3), {"N": 5}),
                    ("increasing", r(3), {"increasing": True}), ("N0", r(2), {"N": 0}), ("N1", r(2), {"N": 1}),
                    ("bool", torch.tensor([True, False]), {}), ("int32", torch.tensor([2, -3], dtype=torch.int32), {"N": 4}),
                    ("f64", r(3, dtype=torch.float64), {"increasing": True})]:
    g.case("vander/" + name, "vander", lambda x, **k: torch.vander(x, **k), [x], kw, **TOL)
g.case("vander/batch-linalg", "vander", lambda x: torch.linalg.vander(x), [r(2, 3)], tref_kwargs={"increasing": True}, **TOL)
x = r(3)
# (torch 1.13's own vander backward fails on an in-place cumprod: the same
# powers written as pow.)
g.grad_case("vander", "vander", lambda x, N: x.unsqueeze(-1) ** torch.arange(N - 1, -1, -1), [x], {"N": 4}, atol=1e-4)
g.error("vander/scalar", "vander", [torch.tensor(1.0)], "at least one dimension")
g.error("vander/negative", "vander", [r(2)], "N must be a non-negative int", {"N": -1})
g.write()
