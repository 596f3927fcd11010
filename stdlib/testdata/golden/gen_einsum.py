"""Goldens for einsum: contractions, batches, diagonals, broadcasting,
ellipses, implicit outputs, three operands, and its errors.

Run with Debian's python3-torch: /usr/bin/python3 gen_einsum.py
"""

import torch

from gen_common import Golden

torch.manual_seed(5)
g = Golden("einsum")

# Products accumulate in another order than torch's; as for matmul.
TOL = {"rtol": 1e-4, "atol": 1e-4}


def r(*shape, dtype=torch.float32):
    """Normal values rounded to multiples of 1/8 (short to print)."""
    return (torch.randn(*shape, dtype=torch.float64) * 8).round().div(8).to(dtype)


def ri(*shape):
    return torch.randint(-9, 10, shape, dtype=torch.int64)


for name, eq, ops in [
    ("matmul", "ij,jk->ik", [r(3, 4), r(4, 5)]),
    ("matmul-implicit", "ij,jk", [r(3, 4), r(4, 5)]),
    ("matmul-odd", "ik,kj->ij", [r(33, 65), r(65, 17)]),
    ("transpose", "ij->ji", [r(3, 4)]),
    ("identity", "ij", [r(3, 4)]),
    ("implicit-order", "ba", [r(3, 4)]),
    ("implicit-upper-first", "aB", [r(3, 4)]),
    ("sum-all", "ij->", [r(3, 4)]),
    ("sum-rows", "ij->i", [r(3, 4)]),
    ("sum-cols", "ij->j", [r(3, 4)]),
    ("dot", "i,i->", [r(7), r(7)]),
    ("dot-implicit", "i,i", [r(7), r(7)]),
    ("outer", "i,j->ij", [r(3), r(4)]),
    ("hadamard", "ij,ij->ij", [r(3, 4), r(3, 4)]),
    ("bmm", "bij,bjk->bik", [r(2, 3, 4), r(2, 4, 5)]),
    ("bmm-bt", "bij,bkj->bik", [r(2, 3, 4), r(2, 5, 4)]),
    ("attention-scores", "bhqd,bhkd->bhqk", [r(2, 3, 5, 8), r(2, 3, 7, 8)]),
    ("heads-merge", "bhqk,bhkd->bqhd", [r(2, 3, 5, 7), r(2, 3, 7, 4)]),
    ("bilinear", "bn,anm,bm->ba", [r(2, 3), r(4, 3, 5), r(2, 5)]),
    ("three-chain", "ij,jk,kl->il", [r(2, 3), r(3, 4), r(4, 5)]),
    ("three-outer", "i,j,k->ijk", [r(2), r(3), r(4)]),
    ("diagonal", "ii->i", [r(4, 4)]),
    ("trace", "ii", [r(4, 4)]),
    ("trace-explicit", "ii->", [r(4, 4)]),
    ("diagonal-3", "iii->i", [r(3, 3, 3)]),
    ("diagonal-batch", "bii->bi", [r(2, 3, 3)]),
    ("diagonal-mixed", "iji->ij", [r(3, 2, 3)]),
    ("diagonal-contract", "ii,ij->j", [r(3, 3), r(3, 4)]),
    ("bcast-rows", "ij,ij->ij", [r(2, 3), r(1, 3)]),
    ("bcast-contract", "ij,jk->ik", [r(2, 1), r(3, 4)]),
    ("bcast-separate", "ij,kl", [r(2, 3), r(1, 4)]),
    ("ellipsis-transpose", "...ij->...ji", [r(2, 3, 4, 5)]),
    ("ellipsis-matmul", "...ij,...jk", [r(5, 2, 3), r(3, 4)]),
    ("ellipsis-bcast", "...ij,...jk->...ik", [r(5, 2, 3), r(1, 3, 4)]),
    ("ellipsis-middle", "i...j->j...i", [r(2, 3, 4, 5)]),
    ("ellipsis-summed", "...ij->ij", [r(5, 2, 3)]),
    ("ellipsis-empty", "...ij->...ji", [r(2, 3)]),
    ("ellipsis-only", "...", [r(3)]),
    ("scalar-operand", ",ij->ij", [torch.tensor(2.5), r(2, 3)]),
    ("spaces", " i j , j k -> i k ", [r(2, 3), r(3, 4)]),
    ("zero-contract", "ij,jk->ik", [r(2, 0), r(0, 3)]),
    ("zero-free", "ij,jk->ik", [r(0, 3), r(3, 4)]),
    ("f64", "bij,bjk->bik", [r(2, 3, 4, dtype=torch.float64), r(2, 4, 5, dtype=torch.float64)]),
    ("i64", "ij,jk->ik", [ri(3, 4), ri(4, 5)]),
    ("i64-trace", "ii", [ri(3, 3)]),
]:
    g.case("einsum/" + name, "einsum", torch.einsum, [eq] + ops, **TOL)
g.case("einsum/list", "einsum", lambda eq, ops: torch.einsum(eq, ops), ["ij,jk->ik", [r(2, 3), r(3, 4)]], **TOL)

g.error("einsum/mismatch", "einsum", ["ij,jk->ik", r(2, 3), r(4, 5)], "subscript j has size 4 in operand 1")
g.error("einsum/rank", "einsum", ["ij", r(2, 3, 4)], "operand 0 has 3 dimension(s)")
g.error("einsum/rank-ellipsis", "einsum", ["ijk...", r(2, 3)], "fewer than the 3 subscript(s)")
g.error("einsum/unknown-output", "einsum", ["ij->iz", r(2, 3)], "output subscript z appears in no operand")
g.error("einsum/repeated-output", "einsum", ["ij->jj", r(2, 3)], "output subscript j appears more than once")
g.error("einsum/diagonal-sizes", "einsum", ["ii", r(2, 3)], "repeated in operand 0 with sizes 2 and 3")
g.error("einsum/operand-count", "einsum", ["ij,jk", r(2, 3)], "has 2 operand(s), the call passes 1")
g.error("einsum/bad-char", "einsum", ["i#", r(2, 3)], "is not a subscript")
g.error("einsum/stray-dot", "einsum", ["i.j", r(2, 3)], "does not begin an ellipsis")
g.error("einsum/two-ellipses", "einsum", ["......", r(2, 3)], "more than one ellipsis")
g.error("einsum/two-arrows", "einsum", ["i->i->i", r(2)], "more than one ->")
g.error("einsum/equation-type", "einsum", [3, r(2)], "the equation must be a string")
g.error("einsum/no-operands", "einsum", ["i"], "at least one operand")

g.write()
