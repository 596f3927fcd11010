"""Goldens for matmul, linear, outer, conv2d, max_pool2d, attention, det,
inverse and solve.

Run with Debian's python3-torch: /usr/bin/python3 gen_linalg.py
"""

import math

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(3)
g = Golden("linalg")

# float32 products accumulate in a different order than torch's BLAS; the
# issue asks for relative error under 1e-4, with an absolute floor for
# entries that cancel to near zero.
TOL = {"rtol": 1e-4, "atol": 1e-4}


def r(*shape, dtype=torch.float32):
    """Normal values rounded to multiples of 1/8: they print short, which
    keeps the file small, and products of them sum exactly."""
    return (torch.randn(*shape, dtype=torch.float64) * 8).round().div(8).to(dtype)


def ri(*shape):
    return torch.randint(-9, 10, shape, dtype=torch.int64)


# matmul: every rank combination of torch.matmul, broadcasting, dtypes.
for name, a, b in [
    ("dot", r(5), r(5)),
    ("mm", r(3, 4), r(4, 5)),
    ("vec-mat", r(4), r(4, 5)),
    ("mat-vec", r(3, 4), r(4)),
    ("bmm", r(2, 3, 4), r(2, 4, 5)),
    ("batch-mat", r(2, 3, 4), r(4, 5)),
    ("mat-batch", r(3, 4), r(2, 4, 5)),
    ("bcast-batch", r(2, 1, 3, 4), r(1, 3, 4, 5)),
    ("bcast-4d-3d", r(2, 3, 3, 4), r(3, 4, 2)),
    ("vec-batch", r(4), r(2, 4, 5)),
    ("batch-vec", r(2, 3, 4), r(4)),
    ("odd-33x65x17", r(33, 65), r(65, 17)),
    ("odd-67x40x35", r(67, 40), r(40, 35)),
    ("batched-odd", r(3, 7, 33), r(3, 33, 17)),
    ("k0", r(2, 0), r(0, 3)),
    ("m0", r(0, 3), r(3, 4)),
    ("batch0", r(0, 2, 3), r(3, 4)),
]:
    g.case("matmul/" + name, "matmul", torch.matmul, [a, b], **TOL)
g.case("matmul/mm-f64", "matmul", torch.matmul, [r(3, 4, dtype=torch.float64), r(4, 5, dtype=torch.float64)])
g.case("matmul/bmm-f64", "matmul", torch.matmul, [r(2, 3, 4, dtype=torch.float64), r(1, 4, 5, dtype=torch.float64)])
g.case("matmul/mm-i64", "matmul", torch.matmul, [ri(3, 4), ri(4, 5)])
g.case("matmul/dot-i64", "matmul", torch.matmul, [ri(6), ri(6)])
g.case("matmul/bcast-i64", "matmul", torch.matmul, [ri(2, 1, 3, 4), ri(3, 4, 2)])
g.error("matmul/mismatch", "matmul", [r(2, 3), r(4, 5)], "matmul: shapes [2, 3] and [4, 5] do not align (3 != 4)")
g.error("matmul/mismatch-vec", "matmul", [r(3), r(4)], "do not align (3 != 4)")
g.error("matmul/scalar", "matmul", [torch.tensor(2.0), r(3)], "at least one dimension")
g.error("matmul/batch", "matmul", [r(2, 3, 4), r(3, 4, 5)], "do not broadcast")

# linear: x @ w.T + b with w [out, in].
for name, args in [
    ("bias", [r(4, 5), r(3, 5), r(3)]),
    ("no-bias", [r(2, 3, 5), r(6, 5)]),
    ("vec-input", [r(5), r(3, 5), r(3)]),
    ("vec-weight", [r(4, 5), r(5)]),
    ("bias-2d", [r(4, 5), r(3, 5), r(4, 3)]),
    ("odd", [r(3, 13, 33), r(17, 33), r(17)]),
    ("wide", [r(20, 40), r(35, 40), r(35)]),
]:
    g.case("linear/" + name, "linear", F.linear, args, **TOL)
g.case("linear/none-bias", "linear", F.linear, [r(4, 5), r(3, 5), None], **TOL)
g.case("linear/f64", "linear", F.linear, [r(4, 5, dtype=torch.float64), r(3, 5, dtype=torch.float64), r(3, dtype=torch.float64)])
g.error("linear/mismatch", "linear", [r(4, 5), r(3, 6)], "linear: input shape [4, 5] and weight shape [3, 6] do not align (5 != 6)")
g.error("linear/bad-bias", "linear", [r(4, 5), r(3, 5), r(4)], "does not broadcast")

# outer
g.case("outer/f32", "outer", torch.outer, [r(3), r(4)])
g.case("outer/i64", "outer", torch.outer, [ri(3), ri(5)])
g.case("outer/mixed", "outer", torch.outer, [ri(3), r(2)])
g.error("outer/2d", "outer", [r(2, 2), r(3)], "1-d")

# conv2d: stride, padding, dilation, groups, bias, unbatched, same/valid.
x = r(2, 3, 8, 8)
w = r(4, 3, 3, 3)
b = r(4)
g.case("conv2d/basic", "conv2d", F.conv2d, [x, w, b], **TOL)
g.case("conv2d/no-bias", "conv2d", F.conv2d, [x, w], **TOL)
g.case("conv2d/stride2-pad1", "conv2d", F.conv2d, [x, w, b], {"stride": 2, "padding": 1}, **TOL)
g.case("conv2d/pairs", "conv2d", F.conv2d, [r(1, 3, 9, 7), r(2, 3, 3, 2), None],
       {"stride": [2, 1], "padding": [1, 2]}, **TOL)
g.case("conv2d/dilation", "conv2d", F.conv2d, [x, w, b], {"dilation": 2, "padding": 2}, **TOL)
g.case("conv2d/groups", "conv2d", F.conv2d, [r(2, 4, 6, 6), r(6, 2, 3, 3), r(6)], {"groups": 2, "padding": 1}, **TOL)
g.case("conv2d/depthwise", "conv2d", F.conv2d, [r(1, 3, 5, 5), r(3, 1, 3, 3)], {"groups": 3}, **TOL)
g.case("conv2d/unbatched", "conv2d", F.conv2d, [r(3, 7, 7), r(5, 3, 3, 3), r(5)], {"padding": 1}, **TOL)
g.case("conv2d/pointwise", "conv2d", F.conv2d, [r(2, 8, 5, 5), r(6, 8, 1, 1), r(6)], **TOL)
g.case("conv2d/pointwise-stride", "conv2d", F.conv2d, [r(2, 8, 5, 5), r(6, 8, 1, 1)], {"stride": 2}, **TOL)
g.case("conv2d/same-even", "conv2d", F.conv2d, [r(1, 2, 6, 7), r(3, 2, 4, 2)], {"padding": "same"}, **TOL)
g.case("conv2d/valid", "conv2d", F.conv2d, [x, w], {"padding": "valid"}, **TOL)
g.case("conv2d/large", "conv2d", F.conv2d, [r(2, 16, 9, 9), r(20, 16, 3, 3), r(20)], {"padding": 1}, **TOL)
g.case("conv2d/strided-wide", "conv2d", F.conv2d, [r(1, 3, 17, 19), r(4, 3, 5, 5), r(4)], {"stride": 3, "padding": 2}, **TOL)
g.case("conv2d/f64", "conv2d", F.conv2d, [x.double(), w.double(), b.double()], {"padding": 1})
g.error("conv2d/channels", "conv2d", [x, r(4, 2, 3, 3)], "channels")
g.error("conv2d/too-small", "conv2d", [r(1, 3, 2, 2), w], "smaller than the kernel")
g.error("conv2d/int", "conv2d", [ri(1, 1, 3, 3), ri(1, 1, 2, 2)], "float32 or float64")
g.error("conv2d/same-stride", "conv2d", [x, w], "stride 1", kwargs={"padding": "same", "stride": 2})

# max_pool2d
p = r(2, 3, 7, 8)
g.case("max_pool2d/k2", "max_pool2d", F.max_pool2d, [p, 2])
g.case("max_pool2d/k3-s2-p1", "max_pool2d", F.max_pool2d, [p, 3], {"stride": 2, "padding": 1})
g.case("max_pool2d/pairs", "max_pool2d", F.max_pool2d, [p, [2, 3]], {"stride": [1, 2]})
g.case("max_pool2d/ceil", "max_pool2d", F.max_pool2d, [p, 3], {"stride": 2, "ceil_mode": True})
g.case("max_pool2d/dilation", "max_pool2d", F.max_pool2d, [p, 2], {"stride": 1, "dilation": 2})
g.case("max_pool2d/unbatched", "max_pool2d", F.max_pool2d, [r(3, 5, 5), 2])
nan = r(1, 1, 4, 4)
nan[0, 0, 1, 1] = float("nan")
g.case("max_pool2d/nan", "max_pool2d", F.max_pool2d, [nan, 2])
g.case("max_pool2d/f64", "max_pool2d", F.max_pool2d, [p.double(), 2], {"padding": 1})
g.error("max_pool2d/padding", "max_pool2d", [p, 2], "at most half", kwargs={"padding": 2})
g.error("max_pool2d/too-small", "max_pool2d", [r(1, 1, 2, 2), 3], "smaller than the kernel")


# attention: softmax(q @ k.T * scale + mask) @ v (torch 1.13 has no public
# scaled_dot_product_attention, so the reference is written out in float64).
def sdpa(q, k, v, causal=False, scale=None):
    dt = q.dtype
    q, k, v = q.double(), k.double(), v.double()
    s = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1) * s
    if causal:
        L, S = q.shape[-2], k.shape[-2]
        mask = torch.ones(L, S, dtype=torch.bool).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v).to(dt)


ATOL = {"rtol": 1e-4, "atol": 1e-5}
for name, args, kw in [
    ("basic", [r(2, 3, 5, 8), r(2, 3, 7, 8), r(2, 3, 7, 6)], {}),
    ("causal", [r(2, 3, 6, 8), r(2, 3, 6, 8), r(2, 3, 6, 8)], {"causal": True}),
    ("causal-short-q", [r(1, 5, 4), r(1, 7, 4), r(1, 7, 3)], {"causal": True}),
    ("causal-long-q", [r(1, 7, 4), r(1, 5, 4), r(1, 5, 3)], {"causal": True}),
    ("bcast-kv", [r(2, 3, 5, 8), r(1, 3, 7, 8), r(3, 7, 6)], {}),
    ("2d", [r(5, 8), r(9, 8), r(9, 4)], {}),
    ("scale", [r(2, 5, 8), r(2, 9, 8), r(2, 9, 4)], {"scale": 0.5}),
    ("long", [r(130, 8), r(130, 8), r(130, 4)], {}),
    ("long-causal", [r(130, 8), r(140, 8), r(140, 4)], {"causal": True}),
]:
    g.case("attention/" + name, "attention", sdpa, args, kw, **ATOL)
g.case("attention/f64", "attention", sdpa,
       [r(2, 5, 8, dtype=torch.float64), r(2, 7, 8, dtype=torch.float64), r(2, 7, 3, dtype=torch.float64)], {"causal": True})
g.error("attention/features", "attention", [r(5, 8), r(9, 7), r(9, 4)], "feature dimension")
g.error("attention/keys", "attention", [r(5, 8), r(9, 8), r(8, 4)], "sequence dimension")

# Argument parsing of the builtins.
g.error("conv2d/bad-padding", "conv2d", [x, w], 'padding must be an int, a list of 2 ints, "same" or "valid"',
        kwargs={"padding": "full"})
g.error("conv2d/bad-stride", "conv2d", [x, w], "stride must be an int or a list of 2 ints, got [1, 2, 3]",
        kwargs={"stride": [1, 2, 3]})
g.case("max_pool2d/stride-none", "max_pool2d", F.max_pool2d, [p, 3], {"stride": None})
lw, lb = r(3, 4), r(3)
g.case("linear/kwargs", "linear", F.linear, [r(2, 4)], {"weight": lw, "bias": lb},
       tref_kwargs={"w": lw, "b": lb}, **TOL)


# det, inverse and solve: well-conditioned matrices (the identity plus
# small normals), batches that broadcast, B as a vector, float64, errors.
def wc(*shape, dtype=torch.float32):
    n = shape[-1]
    return (torch.eye(n, dtype=torch.float64) * 2 + torch.randn(*shape, dtype=torch.float64) * 0.5).to(dtype)


LA = {"rtol": 1e-4, "atol": 1e-5}
g.case("det/3x3", "det", torch.det, [wc(3, 3)], **LA)
g.case("det/batch", "det", torch.det, [wc(2, 3, 4, 4)], **LA)
g.case("det/f64", "det", torch.det, [wc(5, 5, dtype=torch.float64)])
g.case("det/singular", "det", torch.det, [torch.tensor([[1.0, 2.0], [2.0, 4.0]])], **LA)
g.case("det/empty", "det", torch.det, [torch.zeros(2, 0, 0)])
g.case("inverse/4x4", "inverse", torch.inverse, [wc(4, 4)], **LA)
g.case("inverse/batch-f64", "inverse", torch.inverse, [wc(3, 2, 2, dtype=torch.float64)])
g.case("solve/matrix", "solve", torch.linalg.solve, [wc(4, 4), r(4, 3)], **LA)
g.case("solve/vector", "solve", torch.linalg.solve, [wc(3, 3), r(3)], **LA)
g.case("solve/batch-vector", "solve", torch.linalg.solve, [wc(2, 3, 3), r(2, 3)], **LA)
g.case("solve/broadcast", "solve", torch.linalg.solve, [wc(2, 1, 3, 3), r(4, 3, 2)], **LA)
g.case("solve/shared-vector", "solve", torch.linalg.solve, [wc(2, 3, 3), r(3)], **LA)
g.case("solve/f64", "solve", torch.linalg.solve, [wc(5, 5, dtype=torch.float64), r(5, 2, dtype=torch.float64)])
g.error("solve/singular", "solve", [torch.tensor([[1.0, 2.0], [2.0, 4.0]]), r(2)], "singular")
g.error("solve/mismatch", "solve", [wc(3, 3), r(4)], "does not go with")
g.error("solve/dtypes", "solve", [wc(2, 2), r(2, dtype=torch.float64)], "one dtype")
g.error("det/not-square", "det", [r(2, 3)], "square")
g.error("det/int", "det", [ri(2, 2)], "float")


# cholesky, cholesky_solve, cholesky_inverse: symmetric positive-definite
# matrices (M·Mᵀ + n·I); the upper triangle of cholesky's input is not
# read; the gradients (torch's symmetric one for cholesky), and errors.
def spd(*shape, dtype=torch.float32):
    n = shape[-1]
    m = torch.randn(*shape, dtype=torch.float64)
    return (m @ m.transpose(-1, -2) + n * torch.eye(n, dtype=torch.float64)).to(dtype)


g.case("cholesky/3x3", "cholesky", torch.linalg.cholesky, [spd(3, 3)], **LA)
g.case("cholesky/batch-upper", "cholesky", torch.linalg.cholesky, [spd(2, 4, 4)], {"upper": True}, **LA)
g.case("cholesky/f64", "cholesky", torch.linalg.cholesky, [spd(5, 5, dtype=torch.float64)])
g.case("cholesky/lower-triangle-only", "cholesky", torch.linalg.cholesky, [torch.tensor([[4.0, 100.0], [2.0, 3.0]])], **LA)
g.case("cholesky/empty", "cholesky", torch.linalg.cholesky, [torch.zeros(0, 0)])
g.case("cholesky_solve/matrix", "cholesky_solve", torch.cholesky_solve, [r(3, 2), torch.linalg.cholesky(spd(3, 3))], **LA)
g.case("cholesky_solve/upper-broadcast", "cholesky_solve", torch.cholesky_solve, [r(2, 3, 1), torch.linalg.cholesky(spd(3, 3), upper=True)], {"upper": True}, **LA)
g.case("cholesky_solve/batch-f64", "cholesky_solve", torch.cholesky_solve, [r(2, 4, 3, dtype=torch.float64), torch.linalg.cholesky(spd(2, 4, 4, dtype=torch.float64))])
g.case("cholesky_inverse/3x3", "cholesky_inverse", torch.cholesky_inverse, [torch.linalg.cholesky(spd(3, 3))], **LA)
g.case("cholesky_inverse/upper-batch", "cholesky_inverse", torch.cholesky_inverse, [torch.linalg.cholesky(spd(2, 3, 3), upper=True)], {"upper": True}, **LA)
g.grad_case("cholesky", "cholesky", torch.linalg.cholesky, [spd(3, 3)], atol=1e-4)
g.grad_case("cholesky-batch-upper", "cholesky", torch.linalg.cholesky, [spd(2, 3, 3)], {"upper": True}, atol=1e-4)
g.grad_case("cholesky_solve", "cholesky_solve", torch.cholesky_solve, [r(3, 2), torch.linalg.cholesky(spd(3, 3))], atol=1e-4)
g.grad_case("cholesky_inverse", "cholesky_inverse", torch.cholesky_inverse, [torch.linalg.cholesky(spd(3, 3))], atol=1e-4)
g.error("cholesky/not-positive-definite", "cholesky", [torch.tensor([[1.0, 2.0], [2.0, 1.0]])], "A is not positive-definite (its leading minor of order 2 is not)")
g.error("cholesky/batch", "cholesky", [torch.stack([torch.eye(2), -torch.eye(2)])], "matrix 1 of A's batch is not positive-definite (its leading minor of order 1 is not)")
g.error("cholesky/not-square", "cholesky", [r(2, 3)], "square")
g.error("cholesky_solve/vector", "cholesky_solve", [r(3), torch.eye(3)], "want B[..., 3, k]")

# slogdet and logdet: signs of both kinds, a singular matrix, a
# determinant beyond float32 (10^200), batches, float64, gradients.
g.case("slogdet/3x3", "slogdet", lambda a: list(torch.linalg.slogdet(a)), [wc(3, 3)], **LA)
g.case("slogdet/negative", "slogdet", lambda a: list(torch.linalg.slogdet(a)), [torch.tensor([[2.0, 1.0], [1.0, -3.0]])], **LA)
g.case("slogdet/singular", "slogdet", lambda a: list(torch.linalg.slogdet(a)), [torch.tensor([[1.0, 2.0], [2.0, 4.0]])])
g.case("slogdet/huge", "slogdet", lambda a: list(torch.linalg.slogdet(a)), [torch.eye(200) * 10.0], **LA)
g.case("slogdet/batch-f64", "slogdet", lambda a: list(torch.linalg.slogdet(a)), [wc(2, 3, 4, 4, dtype=torch.float64)])
g.case("slogdet/empty", "slogdet", lambda a: list(torch.linalg.slogdet(a)), [torch.zeros(0, 0)])
g.case("logdet/positive", "logdet", torch.logdet, [spd(3, 3)], **LA)
g.case("logdet/batch-signs", "logdet", torch.logdet, [torch.stack([torch.eye(2) * 3, torch.tensor([[0.0, 1.0], [1.0, 0.0]]), torch.zeros(2, 2)])])
g.grad_case("slogdet", "slogdet.logabsdet", lambda a: torch.linalg.slogdet(a).logabsdet, [wc(3, 3)], atol=1e-4)
g.grad_case("slogdet-negative-batch", "slogdet.logabsdet", lambda a: torch.linalg.slogdet(a).logabsdet, [torch.stack([wc(3, 3), -wc(3, 3)])], atol=1e-4)
g.grad_case("logdet", "logdet", torch.logdet, [spd(3, 3)], atol=1e-4)
g.error("slogdet/not-square", "slogdet", [r(2, 3)], "slogdet: expected square matrices")
g.error("logdet/int", "logdet", [ri(2, 2)], "float")

# cholesky's upper=true reads A's upper triangle; a NaN is not an error
g.case("cholesky/upper-reads-upper", "cholesky", torch.linalg.cholesky, [torch.tensor([[4.0, 2.0], [99.0, 5.0]])], {"upper": True}, **LA)
g.error("cholesky/upper-not-positive-definite", "cholesky", [torch.tensor([[4.0, 99.0], [2.0, 5.0]])], "not positive-definite", {"upper": True})
g.case("cholesky/nan-last", "cholesky", torch.linalg.cholesky, [torch.tensor([[1.0, 0.0], [0.0, float("nan")]])])
g.write()
