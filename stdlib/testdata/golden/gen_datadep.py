"""Goldens of the data-dependent functions of stdlib/datadep.go:
/usr/bin/python3 gen_datadep.py

nonzero (as_tuple, 0-d, empty, bools, floats), argwhere, unique (sorted,
return_inverse, return_counts, dim) and bincount (weights of float32 and
float64, minlength, empty), with errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(31)
g = Golden("datadep")

m = torch.tensor([[0, 1, 0], [2, 0, -3]])
g.case("nonzero", "nonzero", torch.nonzero, [m])
g.case("nonzero/tuple", "nonzero", lambda x, as_tuple: list(torch.nonzero(x, as_tuple=as_tuple)), [m], {"as_tuple": True})
g.case("nonzero/float", "nonzero", torch.nonzero, [torch.tensor([0.0, -0.0, 0.5, float("nan")])])
g.case("nonzero/bool3d", "nonzero", torch.nonzero, [torch.rand(2, 3, 2) > 0.5])
g.case("nonzero/0d", "nonzero", torch.nonzero, [torch.tensor(3)])
g.case("nonzero/empty", "nonzero", torch.nonzero, [torch.zeros(0, 2)])
g.case("argwhere", "argwhere", torch.argwhere, [m])

v = torch.tensor([3, 1, 3, 2, 1, 3])
g.case("unique", "unique", torch.unique, [v])
g.case("unique/all", "unique", lambda x, return_inverse, return_counts: list(torch.unique(x, return_inverse=return_inverse, return_counts=return_counts)),
       [v.reshape(2, 3)], {"return_inverse": True, "return_counts": True})
g.case("unique/float", "unique", torch.unique, [torch.tensor([0.5, -1.0, 0.5, float("inf"), -0.0, 0.0])])
rows = torch.tensor([[1, 2], [0, 5], [1, 2], [0, 4]])
g.case("unique/dim0", "unique", lambda x, dim, return_inverse, return_counts: list(torch.unique(x, dim=dim, return_inverse=return_inverse, return_counts=return_counts)),
       [rows], {"dim": 0, "return_inverse": True, "return_counts": True})
g.case("unique/dim1", "unique", lambda x, dim: torch.unique(x, dim=dim), [rows.t()], {"dim": 1})
g.case("unique/empty", "unique", torch.unique, [torch.zeros(0)])

b = torch.tensor([0, 3, 3, 1, 0, 3])
g.case("bincount", "bincount", torch.bincount, [b])
g.case("bincount/minlength", "bincount", torch.bincount, [b], {"minlength": 7})
g.case("bincount/weights32", "bincount", torch.bincount, [b, torch.rand(6) * 10])
g.case("bincount/weights64", "bincount", torch.bincount, [b, torch.rand(6, dtype=torch.float64)])
g.case("bincount/empty", "bincount", torch.bincount, [torch.zeros(0, dtype=torch.int64)])

g.error("bincount/negative", "bincount", [torch.tensor([1, -1])], "must not hold negative values")
g.error("bincount/2d", "bincount", [m], "must be a 1-d tensor of integers")
g.error("unique/dim", "unique", [m], "out of range", {"dim": 2})
g.write()
