"""Goldens of the torch functions of stdlib/linalg_port.go and
stdlib/stats_port.go: /usr/bin/python3 gen_porting_linalg2.py

vecdot, tensorinv, tensorsolve, inv_ex, solve_ex, lu_factor_ex and
cholesky_ex (torch.linalg), histogram, gradient, special.multigammaln and
the aliases gammaln, psi and ger: values (dtypes, batches, broadcasting,
keywords under torch's names; for the _ex forms singular and
non-positive-definite matrices, alone and in batches, with the info torch
reports and the inf and NaN its substitutions give), the gradients of the
differentiable ones (replayed by vjp_of_sum, as in gen_grad.py; gradient's
list result is differentiated in spec/torch_porting_linalg2.tr), and
errors.

The singular matrices are ones whose zero pivots are exact in any
arithmetic (tref's lu kernel works in float64 with fused multiply-adds,
so a pivot that only rounding zeroes may differ from LAPACK's).
"""

import torch

from gen_common import Golden

torch.manual_seed(41)
g = Golden("porting_linalg2")
grad_case = g.grad_case
L = torch.linalg

F32, F64, I64 = torch.float32, torch.float64, torch.int64
nan, inf = float("nan"), float("inf")


def rn(*shape, dtype=F32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def T(*vals, dtype=F32):
    return torch.tensor(vals, dtype=dtype)


def spd(*shape, dtype=F32):
    """Symmetric positive-definite matrices [..., n, n]."""
    x = torch.randn(shape, dtype=torch.float64)
    n = shape[-1]
    return (x @ x.mT + n * torch.eye(n, dtype=torch.float64)).to(dtype)


def well(*shape, dtype=F32):
    """Well-conditioned square matrices [..., n, n]."""
    n = shape[-1]
    return (torch.randn(shape, dtype=torch.float64) + 3 * torch.eye(n, dtype=torch.float64)).to(dtype)


def tag(dt):
    return str(dt).replace("torch.", "")


def rec(fn):
    """A record-valued torch function as the list golden_test compares."""
    return lambda *a, **k: list(fn(*a, **k))


# aliases: gammaln (lgamma), psi (digamma), ger (outer)
SPECIAL = T(0.5, 1.0, 2.5, -0.5, -2.5, 10.0, 1e-3, nan, inf, -inf, 0.0)
for name, fn in (("gammaln", torch.special.gammaln), ("psi", torch.special.psi)):
    g.case("%s/special" % name, name, fn, [SPECIAL])
    g.case("%s/float64" % name, name, fn, [SPECIAL.double()])
    g.case("%s/int" % name, name, fn, [T(1, 2, 3, -1, 0, dtype=I64)])
    g.case("%s/keywords" % name, name, lambda input, fn=fn: fn(input), [], {"input": rn(3).abs() + 0.5})
    grad_case(name, name, fn, [rn(2, 3).abs() + 0.5])
g.case("ger", "ger", torch.ger, [rn(3), rn(4)])
g.case("ger/int", "ger", torch.ger, [T(1, -2, dtype=I64), T(3, 4, 5, dtype=I64)])
g.case("ger/float64", "ger", torch.ger, [rn(2, dtype=F64), rn(2, dtype=F64)])
g.case("ger/keywords", "ger", lambda input, vec2: torch.ger(input, vec2), [], {"input": rn(2), "vec2": rn(3)})
grad_case("ger", "ger", torch.ger, [rn(3), rn(2)])
g.error("ger/rank", "ger", [rn(2, 2), rn(2)], "")

# multigammaln: p(p-1)/4·ln(π) + Σ lgamma(x - j/2); torch 1.13 does not
# check the domain (elements at or below (p-1)/2), it computes the formula
mv_x = rn(2, 3).abs() * 3 + 2.5
for p in (1, 2, 3, 5):
    g.case("multigammaln/p%d" % p, "multigammaln", torch.special.multigammaln, [mv_x, p])
g.case("multigammaln/float64", "multigammaln", torch.special.multigammaln, [mv_x.double(), 4])
g.case("multigammaln/int", "multigammaln", torch.special.multigammaln, [T(1, 2, 3, 7, dtype=I64), 2])
g.case("multigammaln/0d", "multigammaln", torch.special.multigammaln, [torch.tensor(3.0), 2])
g.case("multigammaln/empty", "multigammaln", torch.special.multigammaln, [torch.zeros(0, 2), 3])
g.case("multigammaln/special", "multigammaln", torch.special.multigammaln, [T(nan, inf, 1.0, 0.5, 0.0), 1])
g.case("multigammaln/below-domain", "multigammaln", torch.special.multigammaln, [T(0.2, -0.3, 1.0, 0.75), 3])
g.case("multigammaln/large-p", "multigammaln", torch.special.multigammaln, [T(30.0, 40.5), 40], rtol=2e-5)
g.case("multigammaln/keywords", "multigammaln", lambda input, p: torch.special.multigammaln(input, p), [], {"input": mv_x, "p": 2})
grad_case("multigammaln", "multigammaln", torch.special.multigammaln, [mv_x, 3])
grad_case("multigammaln/float64", "multigammaln", torch.special.multigammaln, [mv_x.double(), 2])
g.error("multigammaln/p0", "multigammaln", [mv_x, 0], "multigammaln: p must be at least 1, got 0")
g.error("multigammaln/negative-p", "multigammaln", [mv_x, -2], "multigammaln: p must be at least 1, got -2")
g.error("multigammaln/bool", "multigammaln", [T(True, dtype=torch.bool), 1], "multigammaln: the input must not be bool")

# histogram: {hist, bin_edges}
H = rec(torch.histogram)
hx = rn(50)
g.case("histogram/default", "histogram", H, [hx])
g.case("histogram/bins", "histogram", H, [hx, 7])
g.case("histogram/range", "histogram", H, [hx], {"bins": 5, "range": [-1.0, 1.0]})
g.case("histogram/weight", "histogram", H, [hx], {"bins": 6, "weight": rn(50).abs()})
g.case("histogram/density", "histogram", H, [hx], {"bins": 6, "density": True})
g.case("histogram/weight-density", "histogram", H, [hx], {"bins": 4, "range": [-2.0, 2.0], "weight": rn(50).abs(), "density": True})
g.case("histogram/float64", "histogram", H, [rn(30, dtype=F64), 9])
g.case("histogram/2d", "histogram", H, [rn(4, 5), 3])
g.case("histogram/2d-weight", "histogram", H, [T(1.0, 2.0, 3.0, 4.0).reshape(2, 2), 3], {"weight": T(1.0, 2.0, 3.0, 4.0).reshape(2, 2)})
g.case("histogram/on-edges", "histogram", H, [T(0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 2.0), 4])
g.case("histogram/outside", "histogram", H, [T(1.0, 2.0, 1.0, 4.0, 0.5, -inf, inf, 4.5, -0.5), 3], {"range": [0.0, 4.0]})
# NaN is not counted (torch 1.13 lets it through its range check: the bin
# it lands in is the last with bin edges, undefined with int bins; later
# torch skips it), so the expected output is torch's without the NaNs
g.expect("histogram/nan", "histogram", [T(1.0, nan, 2.0, 1.0, 4.0, nan, 0.5), 3], {"range": [0.0, 4.0]},
         list(torch.histogram(T(1.0, 2.0, 1.0, 4.0, 0.5), 3, range=(0.0, 4.0))))
g.expect("histogram/nan-edges", "histogram", [T(1.0, nan, 2.0, 5.0), T(0.0, 1.5, 3.0)], {},
         list(torch.histogram(T(1.0, 2.0, 5.0), T(0.0, 1.5, 3.0))))
g.case("histogram/empty", "histogram", H, [torch.zeros(0), 2])
g.case("histogram/one-value", "histogram", H, [T(2.0, 2.0), 2])
g.case("histogram/equal-range", "histogram", H, [T(1.0, 2.0, 1.0, 4.0, 0.5), 3], {"range": [1.0, 1.0]})
g.case("histogram/0d", "histogram", H, [torch.tensor(1.5), 2])
g.case("histogram/edges", "histogram", H, [hx, T(-3.0, -0.5, 0.0, 0.25, 2.0)])
g.case("histogram/edges-on-edges", "histogram", H, [T(0.0, 1.0, 1.5, 3.0, 3.5, -1.0), T(0.0, 1.5, 3.0)])
g.case("histogram/edges-repeated", "histogram", H, [T(0.0, 1.0, 1.0, 2.0, 0.5), T(0.0, 1.0, 1.0, 2.0)])
g.case("histogram/edges-decreasing", "histogram", H, [T(1.0, 2.0), T(3.0, 1.5, 0.0)])
g.case("histogram/edges-float64-weight", "histogram", H, [rn(20, dtype=F64), torch.linspace(-2, 2, 5, dtype=F64)], {"weight": rn(20, dtype=F64), "density": True})
g.case("histogram/density-empty", "histogram", H, [T(5.0), 2], {"range": [0.0, 1.0], "density": True})
g.case("histogram/negative-weights-density", "histogram", H, [T(1.0, 2.0, 3.0, dtype=F64), 2], {"weight": T(1.0, 0.0, -1.0, dtype=F64), "density": True})
g.case("histogram/keywords", "histogram", lambda input, bins, range, weight, density: list(torch.histogram(input, bins, range=range, weight=weight, density=density)), [],
       {"input": hx, "bins": 4, "range": [-1.5, 1.5], "weight": rn(50), "density": False})
g.error("histogram/int", "histogram", [T(1, 2, dtype=I64), 2], "histogram: the input must be float32 or float64, got int64")
g.error("histogram/bins0", "histogram", [hx, 0], "histogram: bins must be positive, got 0")
g.error("histogram/bins-negative", "histogram", [hx, -1], "histogram: bins must be positive, got -1")
g.error("histogram/one-edge", "histogram", [hx, T(1.0)], "histogram: a tensor of bin edges needs at least 2 edges (one bin), got 1")
g.error("histogram/no-edges", "histogram", [hx, torch.zeros(0)], "histogram: a tensor of bin edges needs at least 2 edges (one bin), got 0")
g.error("histogram/edges-2d", "histogram", [hx, torch.zeros(2, 2)], "histogram: a tensor of bin edges must be 1-d, got shape [2, 2]")
g.error("histogram/edges-dtype", "histogram", [hx, T(0.0, 1.0, dtype=F64)], "histogram: the bin edges are float64 but the input float32: they must have one dtype")
g.error("histogram/edges-range", "histogram", [hx, T(0.0, 1.0)], "histogram: range goes with an int bins, not with a tensor of bin edges", {"range": [0.0, 1.0]})
g.error("histogram/range-reversed", "histogram", [hx, 2], "histogram: max (1) must be larger than min (3)", {"range": [3.0, 1.0]})
g.error("histogram/range-inf", "histogram", [hx, 2], "histogram: the range [1, +Inf] is not finite", {"range": [1.0, inf]})
g.error("histogram/range-length", "histogram", [hx, 2], "histogram: range must be a list of two numbers [min, max], got 3 elements", {"range": [1.0, 2.0, 3.0]})
g.error("histogram/nan-input", "histogram", [T(1.0, nan), 2], "histogram: the range [NaN, NaN] is not finite")
g.error("histogram/inf-input", "histogram", [T(1.0, inf), 2], "histogram: the range [1, +Inf] is not finite")
g.error("histogram/weight-shape", "histogram", [hx, 2], "histogram: weight of shape [3] must have the input's shape [50]", {"weight": torch.ones(3)})
g.error("histogram/weight-dtype", "histogram", [hx, 2], "histogram: weight is float64 but the input float32: they must have one dtype", {"weight": torch.ones(50, dtype=F64)})

# gradient: a list, one tensor per dimension
G = lambda *a, **k: list(torch.gradient(*a, **k))
gx = rn(4, 5)
g.case("gradient/1d", "gradient", G, [rn(6)])
g.case("gradient/2d", "gradient", G, [gx])
g.case("gradient/spacing", "gradient", G, [gx], {"spacing": 0.5})
g.case("gradient/spacing-list", "gradient", G, [gx], {"spacing": [2.0, 0.25]})
g.case("gradient/spacing-int", "gradient", G, [gx], {"spacing": 2})
g.case("gradient/dim", "gradient", G, [gx], {"dim": 1})
g.case("gradient/dim-negative", "gradient", G, [rn(3, 4, 5)], {"dim": -2, "spacing": 3.0})
g.case("gradient/dims", "gradient", G, [rn(3, 4, 5)], {"dim": [2, 0], "spacing": [0.5, 2.0]})
g.case("gradient/dims-empty", "gradient", G, [gx], {"dim": []})
g.case("gradient/edge2", "gradient", G, [gx], {"edge_order": 2})
g.case("gradient/edge2-spacing", "gradient", G, [rn(3, 4)], {"edge_order": 2, "spacing": [0.5, 3.0]})
g.case("gradient/two-samples", "gradient", G, [rn(2, 3)])
g.case("gradient/three-samples-edge2", "gradient", G, [rn(3)], {"edge_order": 2})
g.case("gradient/float64", "gradient", G, [rn(3, 4, dtype=F64)], {"spacing": 0.1})
g.case("gradient/int", "gradient", G, [T(1, 2, 4, 8, 16, dtype=I64)])
g.case("gradient/int-spacing", "gradient", G, [T(1, 2, 4, 8, dtype=I64)], {"spacing": 2})
g.case("gradient/int-edge2", "gradient", G, [T(1, 2, 4, 8, 3, dtype=I64)], {"edge_order": 2, "spacing": 1.5})
g.case("gradient/int32", "gradient", G, [T(1, 5, 2, dtype=torch.int32)])
g.case("gradient/0d", "gradient", G, [torch.tensor(1.5)])
g.case("gradient/nan", "gradient", G, [T(1.0, nan, 3.0, 4.0, inf)])
coords = T(0.0, 0.5, 2.0, 2.5, 4.0)
g.case("gradient/coords", "gradient", G, [rn(5)], {"spacing": [coords]})
g.case("gradient/coords-edge2", "gradient", G, [rn(5)], {"spacing": [coords], "edge_order": 2})
g.case("gradient/coords-2d", "gradient", G, [rn(3, 5)], {"spacing": [T(0.0, 1.0, 3.0), coords]})
g.case("gradient/coords-2d-edge2", "gradient", G, [rn(3, 5)], {"spacing": [T(0.0, 1.0, 3.0), coords], "edge_order": 2})
g.case("gradient/coords-dim", "gradient", G, [rn(3, 5)], {"spacing": [coords], "dim": 1})
g.case("gradient/coords-dims", "gradient", G, [rn(3, 5)], {"spacing": [coords, T(-1.0, 0.0, 0.5)], "dim": [1, 0], "edge_order": 2})
g.case("gradient/coords-float64", "gradient", G, [rn(5)], {"spacing": [coords.double()]})
g.case("gradient/coords-float64-edge2", "gradient", G, [rn(5)], {"spacing": [coords.double()], "edge_order": 2})
g.case("gradient/coords-int", "gradient", G, [rn(4)], {"spacing": [T(0, 1, 3, 4, dtype=I64)], "edge_order": 2})
g.case("gradient/int-coords-int", "gradient", G, [T(1, 2, 4, 8, dtype=I64)], {"spacing": [T(0, 1, 3, 4, dtype=I64)], "edge_order": 2})
g.case("gradient/int-coords-float64", "gradient", G, [T(1, 2, 4, 8, dtype=I64)], {"spacing": [T(0.0, 1.0, 3.0, 4.0, dtype=F64)]})
g.case("gradient/float64-coords-float32", "gradient", G, [rn(4, dtype=F64)], {"spacing": [T(0.0, 1.0, 3.0, 4.5)], "edge_order": 2})
g.case("gradient/coords-repeated", "gradient", G, [T(1.0, 2.0, 3.0)], {"spacing": [T(0.0, 0.0, 1.0)]})
g.case("gradient/keywords", "gradient", lambda input, spacing, dim, edge_order: list(torch.gradient(input, spacing=spacing, dim=dim, edge_order=edge_order)), [],
       {"input": gx, "spacing": 2.0, "dim": 0, "edge_order": 2})
# one number for every dimension: torch 1.13 admits the list but reads past it
g.expect("gradient/spacing-one", "gradient", [gx], {"spacing": [2.0]}, list(torch.gradient(gx, spacing=2.0)))
g.error("gradient/edge3", "gradient", [gx], "gradient: edge_order must be 1 or 2, got 3", {"edge_order": 3})
g.error("gradient/edge0", "gradient", [gx], "gradient: edge_order must be 1 or 2, got 0", {"edge_order": 0})
g.error("gradient/short", "gradient", [torch.ones(2, 5)], "gradient: dimension 0 has 2 samples; edge_order 2 needs at least 3", {"edge_order": 2})
g.error("gradient/one-sample", "gradient", [torch.ones(1, 5)], "gradient: dimension 0 has 1 samples; edge_order 1 needs at least 2")
g.case("gradient/short-other-dim", "gradient", G, [rn(1, 5)], {"dim": 1})
g.error("gradient/dim-range", "gradient", [gx], "gradient: dim 2 of a tensor of shape [4, 5] is out of range", {"dim": 2})
g.error("gradient/dim-twice", "gradient", [gx], "gradient: dim 0 appears more than once in dim [0, -2]", {"dim": [0, -2]})
g.error("gradient/bool", "gradient", [T(True, False, True, dtype=torch.bool)], "gradient: bool input is not supported")
g.error("gradient/uint8", "gradient", [T(1, 2, 3, dtype=torch.uint8)], "gradient: uint8 input is not supported")
g.error("gradient/spacing-length", "gradient", [gx], "gradient: spacing must be a number or a list of 2 (one per dimension of the input) numbers or coordinate tensors, got a list of 3", {"spacing": [2.0, 1.0, 1.0]})
g.error("gradient/spacing-dim-length", "gradient", [gx], "gradient: spacing must be a number or a list of 1 (one per dimension in dim) numbers or coordinate tensors, got a list of 2", {"spacing": [2.0, 1.0], "dim": 1})
g.error("gradient/spacing-dims-length", "gradient", [gx], "gradient: spacing must be a number or a list of 2 (one per dimension in dim) numbers or coordinate tensors, got a list of 1", {"spacing": [2.0], "dim": [0, 1]})
g.error("gradient/coords-one", "gradient", [gx], "gradient: spacing must be a number or a list of 2 (one per dimension of the input)", {"spacing": [torch.arange(4.0)]})
g.error("gradient/coords-length", "gradient", [gx], "gradient: spacing's coordinate tensor 1 must be 1-d with the 5 samples of dimension 1, got shape [4]", {"spacing": [torch.arange(4.0), torch.arange(4.0)]})
g.error("gradient/coords-not-1d", "gradient", [gx], "gradient: spacing's coordinate tensor 0 must be 1-d with the 4 samples of dimension 0, got shape [4, 1]", {"spacing": [torch.ones(4, 1), torch.arange(5.0)]})
g.error("gradient/mixed", "gradient", [gx], "gradient: spacing must be a list of numbers or a list of 1-d coordinate tensors", {"spacing": [torch.arange(4.0), 2.0]})
g.error("gradient/spacing-type", "gradient", [gx], "gradient: spacing must be a number, a list of numbers or a list of 1-d coordinate tensors", {"spacing": "a"})

# vecdot: sum(x * y, dim) after broadcasting
g.case("vecdot", "vecdot", L.vecdot, [rn(2, 3), rn(3)])
g.case("vecdot/dim", "vecdot", L.vecdot, [rn(2, 3), rn(2, 1)], {"dim": 0})
g.case("vecdot/float64", "vecdot", L.vecdot, [rn(4, dtype=F64), rn(3, 4, dtype=F64)])
g.case("vecdot/0d", "vecdot", L.vecdot, [torch.tensor(2.0), torch.tensor(3.0)])
g.case("vecdot/empty", "vecdot", L.vecdot, [torch.zeros(2, 0), torch.zeros(0)])
g.case("vecdot/nan", "vecdot", L.vecdot, [T(1.0, nan), T(0.0, 1.0)])
g.case("vecdot/keywords", "vecdot", lambda x, y, dim: L.vecdot(x, y, dim=dim), [], {"x": rn(3, 2), "y": rn(3, 2), "dim": -2})
grad_case("vecdot", "vecdot", L.vecdot, [rn(2, 3), rn(3)])
grad_case("vecdot/dim", "vecdot", L.vecdot, [rn(3, 1, 2), rn(4, 2)], {"dim": 1})
g.error("vecdot/int", "vecdot", [T(1, 2, dtype=I64), T(3, 4, dtype=I64)], "vecdot: expected floating-point tensors, got int64")
g.error("vecdot/dtype", "vecdot", [rn(3), rn(3, dtype=F64)], "vecdot: x is float32 and y float64: they must have one dtype")
g.error("vecdot/shape", "vecdot", [rn(2, 3), rn(4)], "vecdot: x of shape [2, 3] and y of shape [4] do not broadcast")
g.error("vecdot/dim-range", "vecdot", [rn(2, 3), rn(3)], "vecdot: dim 2 of a tensor of shape [2, 3] is out of range", {"dim": 2})

# tensorinv, tensorsolve
ti = well(6, 6).reshape(2, 3, 6)
g.case("tensorinv", "tensorinv", L.tensorinv, [ti], {"ind": 2}, rtol=1e-4, atol=1e-5)
g.case("tensorinv/default", "tensorinv", L.tensorinv, [well(6, 6).reshape(2, 3, 3, 2)], rtol=1e-4, atol=1e-5)
g.case("tensorinv/ind1", "tensorinv", L.tensorinv, [well(4, 4).reshape(4, 2, 2)], {"ind": 1}, rtol=1e-4, atol=1e-5)
g.case("tensorinv/float64", "tensorinv", L.tensorinv, [well(6, 6, dtype=F64).reshape(6, 3, 2)], {"ind": 1})
g.case("tensorinv/ind-all", "tensorinv", L.tensorinv, [T(4.0).reshape(1, 1)], {"ind": 2})
g.case("tensorinv/empty", "tensorinv", L.tensorinv, [torch.zeros(0, 3, 0)], {"ind": 1})
grad_case("tensorinv", "tensorinv", L.tensorinv, [well(4, 4).reshape(2, 2, 4)], {"ind": 2}, atol=1e-4)
g.error("tensorinv/ind0", "tensorinv", [ti], "tensorinv: ind must be positive, got 0", {"ind": 0})
g.error("tensorinv/ind-large", "tensorinv", [ti], "tensorinv: ind 4 is more than the 3 dimensions of A of shape [2, 3, 6]", {"ind": 4})
g.error("tensorinv/not-square", "tensorinv", [ti], "tensorinv: A of shape [2, 3, 6] with ind=1 is not square: prod(A.shape[:ind]) = 2 but prod(A.shape[ind:]) = 18", {"ind": 1})
g.error("tensorinv/singular", "tensorinv", [torch.zeros(2, 2, 2, 2)], "A is singular")
g.error("tensorinv/int", "tensorinv", [torch.ones(2, 2, dtype=I64)], "tensorinv:", {"ind": 1})
ts = well(6, 6)
g.case("tensorsolve", "tensorsolve", L.tensorsolve, [ts.reshape(6, 2, 3), rn(6)], rtol=1e-4, atol=1e-5)
g.case("tensorsolve/2d-b", "tensorsolve", L.tensorsolve, [ts.reshape(2, 3, 6), rn(2, 3)], rtol=1e-4, atol=1e-5)
g.case("tensorsolve/b-shape-differs", "tensorsolve", L.tensorsolve, [ts.reshape(2, 3, 3, 2), rn(3, 2)], rtol=1e-4, atol=1e-5)
g.case("tensorsolve/dims", "tensorsolve", L.tensorsolve, [ts.reshape(2, 3, 3, 2), rn(3, 2)], {"dims": [0, 1]}, rtol=1e-4, atol=1e-5)
g.case("tensorsolve/dims-one", "tensorsolve", L.tensorsolve, [ts.reshape(3, 6, 2), rn(6)], {"dims": [0]}, rtol=1e-4, atol=1e-5)
g.case("tensorsolve/float64", "tensorsolve", L.tensorsolve, [well(4, 4, dtype=F64).reshape(2, 2, 4), rn(2, 2, dtype=F64)])
g.case("tensorsolve/0d", "tensorsolve", L.tensorsolve, [torch.tensor(2.0), torch.tensor(1.0)])
g.case("tensorsolve/keywords", "tensorsolve", lambda A, B, dims: L.tensorsolve(A, B, dims=dims), [], {"A": ts.reshape(6, 3, 2), "B": rn(6), "dims": [1]}, rtol=1e-4, atol=1e-5)
grad_case("tensorsolve", "tensorsolve", L.tensorsolve, [well(4, 4).reshape(2, 2, 2, 2), rn(2, 2)], atol=1e-4)
g.error("tensorsolve/mismatch", "tensorsolve", [ts.reshape(2, 3, 6), torch.ones(6)], "tensorsolve: A of shape [2, 3, 6] does not go with B of shape [6]")
g.error("tensorsolve/not-square", "tensorsolve", [torch.ones(8, 2), torch.ones(2)], "tensorsolve: A of shape [8, 2] does not go with B of shape [2]: prod(A.shape[:B.ndim]) = 8, prod(A.shape[B.ndim:]) = 2 and B's 2 elements must be equal")
g.error("tensorsolve/b-rank", "tensorsolve", [torch.ones(2), torch.ones(2, 1, 1)], "tensorsolve: B of shape [2, 1, 1] has more dimensions than A of shape [2]")
g.error("tensorsolve/dims-twice", "tensorsolve", [ts.reshape(2, 3, 3, 2), torch.ones(3, 2)], "tensorsolve: dim 0 appears more than once in dims [0, 0]", {"dims": [0, 0]})
g.error("tensorsolve/dims-range", "tensorsolve", [ts.reshape(2, 3, 3, 2), torch.ones(3, 2)], "tensorsolve: dim 4 of a tensor of shape [2, 3, 3, 2] is out of range", {"dims": [0, 4]})
g.error("tensorsolve/singular", "tensorsolve", [torch.ones(2, 2), torch.ones(2)], "A is singular")
g.error("tensorsolve/dtype", "tensorsolve", [torch.eye(2), torch.ones(2, dtype=F64)], "tensorsolve: A is float32 and B float64")

# inv_ex, solve_ex, lu_factor_ex: info is the first zero pivot (from 1)
# of the LU factorization (of Aᵀ for inv_ex and solve_ex, as torch 1.13
# factors it); a singular matrix gives inf and NaN, not an error
SING = [
    T(1.0, 2.0, 1.0, 2.0).reshape(2, 2),                                  # equal rows
    T(2.0, 1.0, 1.0, 0.0, 0.0, 3.0, 0.0, 0.0, 1.0).reshape(3, 3),         # a zero on the diagonal
    torch.zeros(3, 3),
    T(1.0, 2.0, 4.0, 2.0, 4.0, 8.0, 1.0, 1.0, 2.0).reshape(3, 3),         # rows 0 and 1 parallel
    T(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0).reshape(3, 3),         # the last pivot zero
]
IX = rec(L.inv_ex)
SX = rec(L.solve_ex)
LX = rec(L.lu_factor_ex)
CX = rec(L.cholesky_ex)
for dt in (F32, F64):
    t = tag(dt)
    g.case("inv_ex/%s" % t, "inv_ex", IX, [well(4, 4, dtype=dt)], rtol=1e-4, atol=1e-5)
    g.case("inv_ex/%s/batch" % t, "inv_ex", IX, [well(2, 3, 3, 3, dtype=dt)], rtol=1e-4, atol=1e-5)
    g.case("solve_ex/%s" % t, "solve_ex", SX, [well(3, 3, dtype=dt), rn(3, 2, dtype=dt)], rtol=1e-4, atol=1e-5)
    g.case("lu_factor_ex/%s" % t, "lu_factor_ex", LX, [rn(4, 4, dtype=dt)], rtol=1e-4, atol=1e-5)
    g.case("cholesky_ex/%s" % t, "cholesky_ex", CX, [spd(4, 4, dtype=dt)], rtol=1e-4, atol=1e-5)
    g.case("cholesky_ex/%s/batch" % t, "cholesky_ex", CX, [spd(2, 3, 3, dtype=dt)], rtol=1e-4, atol=1e-5)
    g.case("cholesky_ex/%s/upper" % t, "cholesky_ex", CX, [spd(3, 3, dtype=dt)], {"upper": True}, rtol=1e-4, atol=1e-5)
    for i, m in enumerate(SING):
        m = m.to(dt)
        g.case("inv_ex/%s/singular%d" % (t, i), "inv_ex", IX, [m])
        g.case("solve_ex/%s/singular%d" % (t, i), "solve_ex", SX, [m, torch.arange(1.0, 1.0 + m.shape[0], dtype=dt)])
        g.case("solve_ex/%s/singular%d-right" % (t, i), "solve_ex", SX, [m, rn(2, m.shape[0], dtype=dt)], {"left": False})
        g.case("lu_factor_ex/%s/singular%d" % (t, i), "lu_factor_ex", LX, [m])
    batch = torch.stack([well(3, 3, dtype=dt), SING[1].to(dt), SING[2].to(dt), SING[3].to(dt)])
    g.case("inv_ex/%s/batch-singular" % t, "inv_ex", IX, [batch], rtol=1e-4, atol=1e-5)
    g.case("lu_factor_ex/%s/batch-singular" % t, "lu_factor_ex", LX, [batch], rtol=1e-4, atol=1e-5)
    g.case("solve_ex/%s/batch-singular" % t, "solve_ex", SX, [batch, rn(3, 2, dtype=dt)], rtol=1e-4, atol=1e-5)
g.case("solve_ex/vector", "solve_ex", SX, [well(3, 3), rn(3)], rtol=1e-4, atol=1e-5)
g.case("solve_ex/batch-vector", "solve_ex", SX, [well(2, 3, 3), rn(2, 3)], rtol=1e-4, atol=1e-5)
g.case("solve_ex/bcast", "solve_ex", SX, [well(2, 3, 3), rn(4, 1, 3, 2)], rtol=1e-4, atol=1e-5)
g.case("solve_ex/bcast-a", "solve_ex", SX, [well(3, 3), rn(5, 3, 2)], rtol=1e-4, atol=1e-5)
g.case("solve_ex/right", "solve_ex", SX, [well(3, 3), rn(2, 3)], {"left": False}, rtol=1e-4, atol=1e-5)
g.case("solve_ex/right-bcast", "solve_ex", SX, [well(2, 3, 3), rn(4, 3)], {"left": False}, rtol=1e-4, atol=1e-5)
g.case("solve_ex/keywords", "solve_ex", lambda A, B, left, check_errors: list(L.solve_ex(A, B, left=left, check_errors=check_errors)), [],
       {"A": well(3, 3), "B": rn(3, 1), "left": True, "check_errors": True}, rtol=1e-4, atol=1e-5)
g.case("inv_ex/empty", "inv_ex", IX, [torch.zeros(0, 0)])
g.case("inv_ex/empty-batch", "inv_ex", IX, [torch.zeros(2, 0, 0)])
g.case("inv_ex/check-ok", "inv_ex", IX, [well(3, 3)], {"check_errors": True}, rtol=1e-4, atol=1e-5)
g.case("inv_ex/keywords", "inv_ex", lambda A, check_errors: list(L.inv_ex(A, check_errors=check_errors)), [], {"A": well(2, 2), "check_errors": False}, rtol=1e-4, atol=1e-5)
g.case("lu_factor_ex/wide", "lu_factor_ex", LX, [rn(2, 3, 5)], rtol=1e-4, atol=1e-5)
g.case("lu_factor_ex/tall", "lu_factor_ex", LX, [rn(5, 3)], rtol=1e-4, atol=1e-5)
g.case("lu_factor_ex/wide-singular", "lu_factor_ex", LX, [torch.ones(2, 3)])
g.case("lu_factor_ex/tall-singular", "lu_factor_ex", LX, [torch.ones(3, 2)])
g.case("lu_factor_ex/zero-column", "lu_factor_ex", LX, [T(0.0, 1.0, 0.0, 2.0).reshape(2, 2)])
g.case("lu_factor_ex/empty", "lu_factor_ex", LX, [torch.zeros(0, 2)])
g.case("lu_factor_ex/check-ok", "lu_factor_ex", LX, [rn(3, 3)], {"check_errors": True}, rtol=1e-4, atol=1e-5)
g.case("lu_factor_ex/keywords", "lu_factor_ex", lambda A, pivot, check_errors: list(L.lu_factor_ex(A, pivot=pivot, check_errors=check_errors)), [],
       {"A": rn(3, 3), "pivot": True, "check_errors": False}, rtol=1e-4, atol=1e-5)
grad_case("inv_ex", "inv_ex.inverse", lambda a: L.inv_ex(a).inverse, [well(3, 3)], atol=1e-4)
grad_case("inv_ex/batch", "inv_ex.inverse", lambda a: L.inv_ex(a).inverse, [well(2, 3, 3, dtype=F64)], atol=1e-6)
grad_case("solve_ex", "solve_ex.result", lambda a, b: L.solve_ex(a, b).result, [well(3, 3), rn(3, 2)], atol=1e-4)
grad_case("solve_ex/vector-bcast", "solve_ex.result", lambda a, b: L.solve_ex(a, b).result, [well(2, 3, 3), rn(3)], atol=1e-4)
grad_case("solve_ex/right", "solve_ex.result", lambda a, b, left: L.solve_ex(a, b, left=left).result, [well(3, 3), rn(4, 3)], {"left": False}, atol=1e-4)
grad_case("lu_factor_ex", "lu_factor_ex.LU", lambda a: L.lu_factor_ex(a).LU, [rn(4, 4)], atol=1e-4)
grad_case("lu_factor_ex/wide", "lu_factor_ex.LU", lambda a: L.lu_factor_ex(a).LU, [rn(3, 4)], atol=1e-4)
g.error("inv_ex/check", "inv_ex", [SING[1]], "inv_ex: A is singular (the diagonal element 3 of its LU factorization is zero)", {"check_errors": True})
g.error("inv_ex/check-batch", "inv_ex", [batch.float()], "inv_ex: matrix 1 of A's batch is singular (the diagonal element 3", {"check_errors": True})
g.error("inv_ex/shape", "inv_ex", [torch.ones(2, 3)], "inv_ex: expected square matrices [..., n, n], got shape [2, 3]")
g.error("inv_ex/int", "inv_ex", [torch.ones(2, 2, dtype=I64)], "inv_ex: expected float32 or float64 matrices, got int64")
g.error("solve_ex/check", "solve_ex", [SING[0], torch.ones(2)], "solve_ex: A is singular (the diagonal element 2", {"check_errors": True})
g.error("solve_ex/dtype", "solve_ex", [torch.eye(2), torch.ones(2, dtype=F64)], "solve_ex: A is float32 and B float64: they must have one dtype")
g.error("solve_ex/shape", "solve_ex", [torch.eye(3), torch.ones(2, 1)], "solve_ex: B of shape [2, 1] does not go with A of shape [3, 3]: want B[..., 3, k] or B[..., 3]")
g.error("solve_ex/right-shape", "solve_ex", [torch.eye(3), torch.ones(3, 2)], "solve_ex: B of shape [3, 2] does not go with A of shape [3, 3]: want B[..., k, 3]", {"left": False})
g.error("solve_ex/right-vector", "solve_ex", [torch.eye(3), torch.ones(3)], "solve_ex: B of shape [3] is a vector per matrix, which goes only with left=true (X @ A = B needs B[..., k, 3])", {"left": False})
g.error("solve_ex/right-1x1-vector", "solve_ex", [T(2.0).reshape(1, 1), T(3.0)], "solve_ex: B of shape [1] is a vector per matrix, which goes only with left=true", {"left": False})
g.error("solve_ex/batch", "solve_ex", [torch.ones(2, 3, 3), torch.ones(4, 3, 1)], "solve_ex: the batch dimensions")
g.error("lu_factor_ex/check", "lu_factor_ex", [SING[1]], "lu_factor_ex: U[1, 1] of A is zero: it is singular, and lu_solve would divide by it", {"check_errors": True})
g.error("lu_factor_ex/check-batch", "lu_factor_ex", [torch.stack([torch.eye(2), torch.ones(2, 2)])], "lu_factor_ex: U[1, 1] of matrix 1 of A's batch is zero", {"check_errors": True})
g.error("lu_factor_ex/pivot", "lu_factor_ex", [torch.eye(2)], "lu_factor_ex: pivot=false (LU without row exchanges) is not supported", {"pivot": False})
g.error("lu_factor_ex/int", "lu_factor_ex", [torch.ones(2, 2, dtype=I64)], "lu_factor_ex:")

# cholesky_ex: info is the order of the first leading minor that is not
# positive-definite; L then holds the columns before it, the failing
# pivot and A's lower triangle (LAPACK's unblocked potf2, what torch gives
# for small matrices)
NPD = [
    T(1.0, 2.0, 2.0, 1.0).reshape(2, 2),
    T(4.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, -1.0).reshape(3, 3),        # a zero pivot
    T(1.0, 2.0, 3.0, 2.0, 4.0, 5.0, 3.0, 5.0, 6.0).reshape(3, 3),
    T(-1.0, 0.0, 0.0, 2.0).reshape(2, 2),                                 # the first pivot
    T(4.0, 2.0, 1.0, 2.0, 5.0, 3.0, 1.0, 3.0, -2.0).reshape(3, 3),        # the last pivot
    torch.zeros(3, 3),
]
for dt in (F32, F64):
    t = tag(dt)
    for i, m in enumerate(NPD):
        g.case("cholesky_ex/%s/not-pd%d" % (t, i), "cholesky_ex", CX, [m.to(dt)])
        g.case("cholesky_ex/%s/not-pd%d-upper" % (t, i), "cholesky_ex", CX, [m.to(dt).mT.contiguous()], {"upper": True})
    nb = torch.stack([spd(3, 3, dtype=dt), NPD[1].to(dt), NPD[4].to(dt), spd(3, 3, dtype=dt)])
    g.case("cholesky_ex/%s/batch-not-pd" % t, "cholesky_ex", CX, [nb], rtol=1e-4, atol=1e-5)
g.case("cholesky_ex/nan", "cholesky_ex", CX, [T(1.0, nan, nan, 1.0).reshape(2, 2)])
g.case("cholesky_ex/inf", "cholesky_ex", CX, [T(1.0, 0.0, 0.0, inf).reshape(2, 2)])
g.case("cholesky_ex/upper-triangle-ignored", "cholesky_ex", CX, [T(4.0, 100.0, 2.0, 5.0).reshape(2, 2)])
g.case("cholesky_ex/empty", "cholesky_ex", CX, [torch.zeros(2, 0, 0)])
g.case("cholesky_ex/larger", "cholesky_ex", CX, [spd(12, 12, dtype=F64)])
g.case("cholesky_ex/check-ok", "cholesky_ex", CX, [spd(3, 3)], {"check_errors": True}, rtol=1e-4, atol=1e-5)
g.case("cholesky_ex/keywords", "cholesky_ex", lambda A, upper, check_errors: list(L.cholesky_ex(A, upper=upper, check_errors=check_errors)), [],
       {"A": spd(3, 3), "upper": True, "check_errors": False}, rtol=1e-4, atol=1e-5)
grad_case("cholesky_ex", "cholesky_ex.L", lambda a: L.cholesky_ex(a).L, [spd(3, 3)], atol=1e-4)
grad_case("cholesky_ex/upper", "cholesky_ex.L", lambda a, upper: L.cholesky_ex(a, upper=upper).L, [spd(2, 3, 3, dtype=F64)], {"upper": True}, atol=1e-6)
g.error("cholesky_ex/check", "cholesky_ex", [NPD[0]], "cholesky_ex: A is not positive-definite (its leading minor of order 2 is not)", {"check_errors": True})
g.error("cholesky_ex/check-batch", "cholesky_ex", [torch.stack([torch.eye(3), NPD[4]])], "cholesky_ex: matrix 1 of A's batch is not positive-definite (its leading minor of order 3 is not)", {"check_errors": True})
g.error("cholesky_ex/shape", "cholesky_ex", [torch.ones(2, 3)], "cholesky_ex: expected square matrices [..., n, n], got shape [2, 3]")
g.error("cholesky_ex/int", "cholesky_ex", [torch.ones(2, 2, dtype=I64)], "cholesky_ex: expected a float tensor, got int64")

g.write()
