"""Goldens for lu_factor, lu, lu_unpack and lu_solve: values, errors and
gradients (torch's linalg_lu_backward, reached through each builtin).

Run with Debian's python3-torch: /usr/bin/python3 gen_lu.py
"""

import torch

from gen_common import Golden

torch.manual_seed(22)
g = Golden("lu")
TOL = {"rtol": 1e-4, "atol": 1e-4}


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


zero_col = torch.tensor([[0.0, 1.0, 2.0], [0.0, 2.0, 1.0], [0.0, 3.0, 5.0]])
for name, a in [("square", r(4, 4)), ("tall", r(5, 3)), ("wide", r(3, 5)), ("batch", r(2, 3, 3)),
                ("f64", r(4, 2, dtype=torch.float64)), ("empty", r(0, 3)), ("one", r(1, 1))]:
    g.case("lu_factor/" + name, "lu_factor", lambda a: list(torch.linalg.lu_factor(a)), [a], **TOL)
    g.case("lu/" + name, "lu", lambda a: list(torch.linalg.lu(a)), [a], **TOL)
g.case("lu/singular", "lu", lambda a: list(torch.linalg.lu(a)), [zero_col], **TOL)
g.case("lu/rank1", "lu", lambda a: list(torch.linalg.lu(a)), [torch.tensor([[1.0, 2.0], [2.0, 4.0]])], **TOL)
g.error("lu_factor/singular", "lu_factor", [zero_col], "U[0, 0] is zero")
g.error("lu_factor/singular-batch", "lu_factor", [torch.stack([torch.eye(3), zero_col])], "matrix 1 of the batch")
g.error("lu_factor/half", "lu_factor", [r(2, 2, dtype=torch.float16)], "expected float32 or float64")
g.error("lu_factor/int", "lu_factor", [torch.ones(2, 2, dtype=torch.int64)], "expected a float tensor")
g.error("lu_factor/vector", "lu_factor", [r(3)], "expected matrices")
g.error("lu/no-pivot", "lu", [r(2, 2)], "pivot=false", {"pivot": False})

# lu_unpack of lu_factor's results, in part or whole.
for name, a in [("square", r(4, 4)), ("tall", r(4, 2)), ("wide", r(2, 3, 4))]:
    lu, piv = torch.linalg.lu_factor(a)
    g.case("lu_unpack/" + name, "lu_unpack", lambda lu, piv: list(torch.lu_unpack(lu, piv)), [lu, piv], **TOL)
lu, piv = torch.linalg.lu_factor(r(3, 3))
g.case("lu_unpack/no-data", "lu_unpack", lambda lu, piv, unpack_data: list(torch.lu_unpack(lu, piv, unpack_data=unpack_data)),
       [lu, piv], {"unpack_data": False}, **TOL)
g.case("lu_unpack/no-pivots", "lu_unpack", lambda lu, piv, unpack_pivots: list(torch.lu_unpack(lu, piv, unpack_pivots=unpack_pivots)),
       [lu, piv], {"unpack_pivots": False}, **TOL)
g.error("lu_unpack/pivot-range", "lu_unpack", [lu, piv + 5], "outside [1, 3]")
g.error("lu_unpack/pivot-shape", "lu_unpack", [lu, piv[:2]], "do not go with LU")
g.error("lu_unpack/pivot-float", "lu_unpack", [lu, piv.float()], "pivots must be int32")

# lu_solve: every side and transpose, batches broadcast against B.
A, B = r(3, 3, dtype=torch.float64), r(3, 2, dtype=torch.float64)
lu, piv = torch.linalg.lu_factor(A)
for left in [True, False]:
    for adjoint in [False, True]:
        b = B if left else B.mT.contiguous()
        g.case("lu_solve/left=%s-adjoint=%s" % (left, adjoint), "lu_solve",
               lambda lu, piv, b, left, adjoint: torch.linalg.lu_solve(lu, piv, b, left=left, adjoint=adjoint),
               [lu, piv, b], {"left": left, "adjoint": adjoint})
lub, pivb = torch.linalg.lu_factor(r(2, 3, 3))
g.case("lu_solve/batch-bcast", "lu_solve", torch.linalg.lu_solve, [lub, pivb, r(3, 1)], **TOL)
g.case("lu_solve/bcast-B-batch", "lu_solve", torch.linalg.lu_solve, [lu.float(), piv, r(2, 3, 2)], **TOL)
g.error("lu_solve/rows", "lu_solve", [lu, piv, r(2, 2, dtype=torch.float64)], "does not go with A")
g.error("lu_solve/vector", "lu_solve", [lu, piv, r(3, dtype=torch.float64)], "expected matrices B")
g.error("lu_solve/nonsquare", "lu_solve", [r(3, 4), torch.ones(3, dtype=torch.int32), r(3, 1)], "expected square matrices")

# Gradients through each builtin: square, tall and wide.
g.grad_case("lu.L-square", "lu.L", lambda a: torch.linalg.lu(a).L, [r(4, 4)], atol=1e-4)
g.grad_case("lu.U-square", "lu.U", lambda a: torch.linalg.lu(a).U, [r(3, 3)], atol=1e-4)
g.grad_case("lu.L-tall", "lu.L", lambda a: torch.linalg.lu(a).L, [r(5, 3)], atol=1e-4)
g.grad_case("lu.U-tall", "lu.U", lambda a: torch.linalg.lu(a).U, [r(5, 3)], atol=1e-4)
g.grad_case("lu.L-wide", "lu.L", lambda a: torch.linalg.lu(a).L, [r(2, 3, 5)], atol=1e-4)
g.grad_case("lu.U-wide", "lu.U", lambda a: torch.linalg.lu(a).U, [r(3, 5)], atol=1e-4)
g.grad_case("lu_factor.LU", "lu_factor.LU", lambda a: torch.linalg.lu_factor(a).LU, [r(4, 4)], atol=1e-4)
g.grad_case("lu_factor.LU-wide", "lu_factor.LU", lambda a: torch.linalg.lu_factor(a).LU, [r(3, 4)], atol=1e-4)
lu, piv = torch.linalg.lu_factor(r(3, 3))
g.grad_case("lu_solve", "lu_solve", torch.linalg.lu_solve, [lu, piv, r(3, 2)], atol=1e-4)
g.grad_case("lu_solve-right-adjoint", "lu_solve", lambda lu, piv, b, left, adjoint: torch.linalg.lu_solve(lu, piv, b, left=left, adjoint=adjoint),
            [lu, piv, r(2, 3)], {"left": False, "adjoint": True}, atol=1e-4)
g.grad_case("lu_unpack.L", "lu_unpack.L", lambda lu, piv: torch.lu_unpack(lu, piv).L, [lu, piv], atol=1e-4)
g.write()
