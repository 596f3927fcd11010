"""Goldens for qr, eigh, eigvalsh, svd, svdvals, pinv, pinverse, lstsq,
matrix_rank, matrix_norm and cond: values (eigenvectors and singular
vectors with tref's signs: each vector's entry of largest magnitude
positive) and gradients.

Run with Debian's python3-torch: /usr/bin/python3 gen_decompose.py
"""

import math

import torch

from gen_common import Golden

torch.manual_seed(21)
g = Golden("decompose")
TOL = {"rtol": 1e-4, "atol": 1e-4}


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


def sym(*shape, dtype=torch.float32):
    a = r(*shape, dtype=torch.float64)
    return (a + a.mT).div(2).to(dtype)


def signs(v):
    """The factor making each column's entry of largest magnitude positive."""
    if v.shape[-2] == 0:
        return torch.ones(*v.shape[:-2], 1, v.shape[-1], dtype=v.dtype)
    at = v.gather(-2, v.abs().argmax(-2, keepdim=True))
    return torch.where(at < 0, -1.0, 1.0).to(v.dtype)


def eigh_(a, UPLO="L"):
    w, v = torch.linalg.eigh(a, UPLO=UPLO)
    return [w, v * signs(v)]


def svd_(a, full_matrices=True):
    u, s, vh = torch.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    f = signs(u)
    u = u * f
    vf = torch.cat([f[..., :k], signs(vh[..., k:, :].mT)], -1) if vh.shape[-2] > k else f[..., :k]
    return [u, s, vh * vf.mT]


# qr: LAPACK's signs are tref's, so the factors compare directly.
for name, a in [("tall", r(5, 3)), ("wide", r(3, 5)), ("square", r(4, 4)), ("batch", r(2, 3, 2)),
                ("f64", r(4, 3, dtype=torch.float64)), ("zero-column", torch.tensor([[0.0, 1.0], [0.0, 2.0], [0.0, 0.0]])),
                ("empty", r(0, 3))]:
    g.case("qr/" + name, "qr", lambda a: list(torch.linalg.qr(a)), [a], **TOL)
g.case("qr/complete", "qr", lambda a, mode: list(torch.linalg.qr(a, mode=mode)), [r(4, 2)], {"mode": "complete"}, **TOL)
g.case("qr/r", "qr", lambda a, mode: list(torch.linalg.qr(a, mode=mode)), [r(4, 2)], {"mode": "r"}, **TOL)
g.error("qr/mode", "qr", [r(2, 2)], 'mode must be "reduced", "complete" or "r", not "full"', {"mode": "full"})
g.error("qr/vector", "qr", [r(3)], "expected matrices [..., m, n]")
g.error("qr/int", "qr", [torch.ones(2, 2, dtype=torch.int64)], "expected a float tensor")

# eigh: distinct eigenvalues; the other triangle holds junk it must not read.
junk = torch.tensor([[2.0, 100.0, 100.0], [1.0, 3.0, 100.0], [0.5, -1.0, 4.0]])
for name, a, kw in [("4x4", sym(4, 4), {}), ("batch-f64", sym(2, 3, 3, dtype=torch.float64), {}),
                    ("lower-only", junk, {}), ("upper", junk.mT.contiguous(), {"UPLO": "U"}), ("empty", r(0, 0), {})]:
    g.case("eigh/" + name, "eigh", eigh_, [a], kw, **TOL)
    g.case("eigvalsh/" + name, "eigvalsh", lambda a, **k: torch.linalg.eigvalsh(a, **k), [a], kw, **TOL)
g.case("eigh/nan", "eigh", eigh_, [torch.tensor([[1.0, 0.0], [math.nan, 2.0]])])
g.error("eigh/uplo", "eigh", [sym(2, 2)], 'UPLO must be "L" or "U", not "X"', {"UPLO": "X"})
g.error("eigh/nonsquare", "eigh", [r(2, 3)], "expected square matrices")

# svd: reduced and full (the completion unique up to sign: one vector).
for name, a in [("tall", r(4, 3)), ("wide", r(3, 4)), ("square-f64", r(3, 3, dtype=torch.float64)), ("batch", r(2, 2, 3))]:
    g.case("svd/" + name, "svd", svd_, [a], **TOL)
    g.case("svd/" + name + "-reduced", "svd", svd_, [a], {"full_matrices": False}, **TOL)
    g.case("svdvals/" + name, "svdvals", torch.linalg.svdvals, [a], **TOL)
# (A rank-deficient svd's vectors for the zero singular values are not
# comparable: their signs pair arbitrarily.)
g.case("svdvals/rank1", "svdvals", torch.linalg.svdvals, [torch.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])], **TOL)
g.error("svd/nan", "svd", [torch.tensor([[1.0, math.nan], [0.0, 1.0]])], "non-finite")

# pinv and friends, rank-deficient ones included.
rank2 = (r(5, 2, dtype=torch.float64) @ r(2, 4, dtype=torch.float64)).float()
for name, a, kw in [("tall", r(5, 3), {}), ("wide", r(2, 4), {}), ("rank2", rank2, {}), ("batch-f64", r(2, 3, 3, dtype=torch.float64), {}),
                    ("atol", r(3, 3), {"atol": 0.5}), ("rtol", r(3, 3), {"rtol": 0.3}), ("hermitian", sym(3, 3), {"hermitian": True})]:
    g.case("pinv/" + name, "pinv", lambda a, **k: torch.linalg.pinv(a, **k), [a], kw, **TOL)
g.case("pinverse", "pinverse", torch.pinverse, [r(3, 4)], **TOL)
g.case("pinverse/rcond", "pinverse", torch.pinverse, [rank2], {"rcond": 1e-5}, **TOL)
for name, a, kw in [("full", r(4, 3), {}), ("rank2", rank2, {}), ("batch", r(2, 3, 3), {}), ("atol", r(3, 3), {"atol": 1.0}),
                    ("hermitian", sym(4, 4), {"hermitian": True}), ("zero", torch.zeros(3, 2), {})]:
    g.case("matrix_rank/" + name, "matrix_rank", lambda a, **k: torch.linalg.matrix_rank(a, **k), [a], kw)
a, b = r(5, 3), r(5, 2)
g.case("lstsq/tall", "lstsq", lambda a, b: list(torch.linalg.lstsq(a, b)), [a, b], **TOL)
a, b = r(2, 4, 4, dtype=torch.float64), r(2, 4, 1, dtype=torch.float64)
g.case("lstsq/batch-f64", "lstsq", lambda a, b: list(torch.linalg.lstsq(a, b)), [a, b])
g.case("lstsq/vector", "lstsq", lambda a, b: list(torch.linalg.lstsq(a, b)), [r(4, 2), r(4)], **TOL)
g.case("lstsq/vector-batch", "lstsq", lambda a, b: list(torch.linalg.lstsq(a, b)), [r(3, 4, 2), r(3, 4)], **TOL)
g.error("lstsq/rows", "lstsq", [r(3, 2), r(4, 1)], "expected A[..., m, n] and B[..., m, k]")

for ord_ in ["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2]:
    g.case("matrix_norm/%s" % ord_, "matrix_norm", lambda a, ord: torch.linalg.matrix_norm(a, ord=ord), [r(2, 3, 4)], {"ord": ord_}, **TOL)
    g.case("cond/%s" % ord_, "cond", lambda a, p: torch.linalg.cond(a, p=p), [r(3, 3)], {"p": ord_}, **TOL)
g.case("matrix_norm/dims", "matrix_norm", lambda a, **k: torch.linalg.matrix_norm(a, **k), [r(3, 2, 4)],
       {"ord": 1, "dim": [2, 0], "keepdim": True}, **TOL)
a = r(2, 3, 4)
g.case("norm/nuc", "norm", lambda a, p: torch.norm(a, p=p), [a[0]], {"p": "nuc"}, **TOL)
g.case("norm/nuc-dim", "norm", lambda a, p, dim: torch.norm(a, p=p, dim=dim), [a], {"p": "nuc", "dim": [0, 2]}, **TOL)
g.case("norm/nuc-keepdim", "norm", lambda a, p, dim, keepdim: torch.norm(a, p=p, dim=dim, keepdim=keepdim), [a], {"p": "nuc", "dim": [1, 2], "keepdim": True}, **TOL)
g.error("norm/nuc-3d", "norm", [a], "needs dim", {"p": "nuc"})
g.error("norm/nuc-one-dim", "norm", [a], "two dimensions", {"p": "nuc", "dim": 1})
g.case("cond/none-tall", "cond", torch.linalg.cond, [r(4, 2)], **TOL)
g.case("cond/empty", "cond", torch.linalg.cond, [r(2, 0, 0)])
g.case("cond/empty-fro", "cond", lambda a, p: torch.linalg.cond(a, p=p), [r(0, 0)], {"p": "fro"})
g.error("matrix_norm/ord", "matrix_norm", [r(2, 2)], 'ord must be "fro", "nuc", inf, -inf, 1, -1, 2 or -2', {"ord": 3})

# matrix_exp: every Padé degree (1-norms from 0.01 to past 5.4, squared).
for name, a in [("tiny", r(3, 3) * 0.002), ("small", r(3, 3) * 0.05), ("mid", r(3, 3) * 0.25), ("unit", r(4, 4) * 0.5),
                ("large", r(4, 4) * 3), ("huge-f64", r(2, 3, 3, dtype=torch.float64) * 20), ("empty", r(0, 0)),
                ("nilpotent", torch.tensor([[0.0, 1.0], [0.0, 0.0]]))]:
    g.case("matrix_exp/" + name, "matrix_exp", torch.linalg.matrix_exp, [a], **TOL)
g.grad_case("matrix_exp", "matrix_exp", torch.linalg.matrix_exp, [r(3, 3)], atol=1e-4)
g.grad_case("matrix_exp-large", "matrix_exp", torch.linalg.matrix_exp, [r(2, 3, 3) * 3], atol=1e-3)
g.error("matrix_exp/nonsquare", "matrix_exp", [r(2, 3)], "matrix_exp: expected square matrices")

# solve_triangular: junk in the other triangle and on a unit diagonal.
def tri(n, upper, dtype=torch.float32):
    a = r(n, n, dtype=torch.float64)
    a.diagonal().copy_(a.diagonal().abs() + 2)
    return a.to(dtype)


for name, a, b, kw in [("lower", tri(3, False), r(3, 2), {"upper": False}), ("upper", tri(3, True), r(3, 2), {"upper": True}),
                       ("right", tri(3, True), r(2, 3), {"upper": True, "left": False}),
                       ("unit", tri(3, False), r(3, 1), {"upper": False, "unitriangular": True}),
                       ("batch-bcast-f64", tri(3, True, torch.float64).expand(2, 3, 3), r(3, 4, dtype=torch.float64), {"upper": True})]:
    g.case("solve_triangular/" + name, "solve_triangular", lambda a, b, **k: torch.linalg.solve_triangular(a, b, **k), [a, b], kw, **TOL)
g.grad_case("solve_triangular", "solve_triangular", lambda a, b, upper: torch.linalg.solve_triangular(a, b, upper=upper), [tri(3, False), r(3, 2)], {"upper": False}, atol=1e-4)
g.grad_case("solve_triangular-right-unit", "solve_triangular", lambda a, b, upper, left, unitriangular: torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular),
            [tri(3, True), r(2, 3)], {"upper": True, "left": False, "unitriangular": True}, atol=1e-4)
g.error("solve_triangular/no-upper", "solve_triangular", [tri(2, True), r(2, 1)], "upper")
# A zero on the diagonal: inf, and NaN where 0·inf arises, as LAPACK's trsm.
for name, a, upper in [("zero-diag-lower", [[0.0, 0.0], [0.0, 1.0]], False), ("zero-diag-lower2", [[0.0, 0.0], [1.0, 1.0]], False),
                       ("zero-diag-upper", [[1.0, 0.0], [0.0, 0.0]], True), ("zero-diag-upper2", [[1.0, 2.0], [0.0, 0.0]], True)]:
    g.case("solve_triangular/" + name, "solve_triangular", lambda a, b, upper: torch.linalg.solve_triangular(a, b, upper=upper),
           [torch.tensor(a), torch.ones(2, 1)], {"upper": upper})
# Past 64 rows with many right-hand sides the substitution runs by blocks.
big = tri(70, False, torch.float64) / 4 + torch.eye(70, dtype=torch.float64) * 2
for upper in [False, True]:
    g.case("solve_triangular/blocked-upper=%s" % upper, "solve_triangular", lambda a, b, upper: torch.linalg.solve_triangular(a, b, upper=upper),
           [big if not upper else big.mT.contiguous(), r(70, 12, dtype=torch.float64)], {"upper": upper}, rtol=1e-10, atol=1e-10)

# Gradients: every factor, with torch's autograd through its own
# decompositions (signs normalised as constants).
g.grad_case("qr.Q", "qr.Q", lambda a: torch.linalg.qr(a).Q, [r(4, 3)], atol=1e-4)
g.grad_case("qr.R-wide", "qr.R", lambda a: torch.linalg.qr(a).R, [r(2, 4)], atol=1e-4)
g.grad_case("qr.Q-wide", "qr.Q", lambda a: torch.linalg.qr(a).Q, [r(2, 3, 4)], atol=1e-4)
g.grad_case("eigh.eigenvectors", "eigh.eigenvectors", lambda a: eigh_(a)[1], [sym(3, 3)], atol=1e-4)
g.grad_case("eigh.eigenvalues", "eigh.eigenvalues", lambda a: torch.linalg.eigh(a).eigenvalues, [sym(3, 3)], atol=1e-4)
g.grad_case("eigvalsh-upper", "eigvalsh", lambda a, UPLO: torch.linalg.eigvalsh(a, UPLO=UPLO), [r(3, 3)], {"UPLO": "U"}, atol=1e-4)
g.grad_case("svd.U", "svd.U", lambda a, full_matrices: svd_(a, full_matrices)[0], [r(4, 3)], {"full_matrices": False}, atol=1e-4)
g.grad_case("svd.Vh-wide", "svd.Vh", lambda a, full_matrices: svd_(a, full_matrices)[2], [r(2, 4)], {"full_matrices": False}, atol=1e-4)
g.grad_case("svd.S", "svd.S", lambda a: torch.linalg.svd(a).S, [r(3, 4)], atol=1e-4)
g.grad_case("svdvals", "svdvals", torch.linalg.svdvals, [r(2, 4, 3)], atol=1e-4)
g.grad_case("pinv", "pinv", torch.linalg.pinv, [r(4, 3)], atol=1e-4)
g.grad_case("pinv-wide", "pinv", torch.linalg.pinv, [r(2, 3, 5)], atol=1e-4)
g.grad_case("matrix_norm-nuc", "matrix_norm", lambda a, ord: torch.linalg.matrix_norm(a, ord=ord), [r(3, 4)], {"ord": "nuc"}, atol=1e-4)
g.grad_case("lstsq", "lstsq.solution", lambda a, b: torch.linalg.lstsq(a, b).solution, [r(5, 3), r(5, 2)], atol=1e-4)
# Values alone at repeated and zero singular values and eigenvalues: the
# vectors' terms vanish, as torch's early exit gives.
eye2 = torch.eye(2)
g.grad_case("svdvals-identity", "svdvals", torch.linalg.svdvals, [eye2], atol=1e-5)
g.grad_case("eigvalsh-identity", "eigvalsh", torch.linalg.eigvalsh, [eye2], atol=1e-5)
g.grad_case("nuc-identity", "matrix_norm", lambda a, ord: torch.linalg.matrix_norm(a, ord=ord), [eye2], {"ord": "nuc"}, atol=1e-5)
g.grad_case("svdvals-rank1-tall", "svdvals", torch.linalg.svdvals, [torch.tensor([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])], atol=1e-5)

# float64 matrices far from 1 in magnitude (scaled to 1 first, as LAPACK).
M = torch.tensor([[1.0, 0.5, 0.2], [0.5, 1.0, 0.1], [0.2, 0.1, 1.0]], dtype=torch.float64)
for e in [150, -200]:
    A = M * 10.0 ** e
    g.case("svdvals/1e%d" % e, "svdvals", torch.linalg.svdvals, [A], rtol=1e-10, atol=0)
    g.case("eigvalsh/1e%d" % e, "eigvalsh", torch.linalg.eigvalsh, [A], rtol=1e-10, atol=0)
    g.case("pinv/1e%d" % e, "pinv", torch.linalg.pinv, [A], rtol=1e-10, atol=1e-10 * 10.0 ** -e)
g.case("pinv/hermitian-nan", "pinv", lambda a, hermitian: torch.linalg.pinv(a, hermitian=hermitian),
       [torch.tensor([[1.0, math.nan], [math.nan, 1.0]])], {"hermitian": True})
g.write()
