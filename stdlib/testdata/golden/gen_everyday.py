"""Goldens of PyTorch's everyday functions added as tref builtins:
/usr/bin/python3 gen_everyday.py

logical_and/or/xor, addcmul, addcdiv, hstack, vstack, dstack, tile,
swapaxes, swapdims, unflatten, expand_as, view_as, reshape_as, type_as,
amax, amin, count_nonzero, var_mean, std_mean, isclose, frac, exp2, logit,
atan2, huber_loss, pairwise_distance, median, diagonal, trace, tensordot,
cross and cdist: values (with broadcasting, keywords under torch's names,
special values, integer and bool inputs where torch takes them), the
gradients of the differentiable ones (replayed by vjp_of_sum, as in
gen_grad.py), and errors.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(23)
g = Golden("everyday")


def rn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


grad_case = g.grad_case


SPECIAL = torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e-8])

# logical_and, logical_or, logical_xor
mixed_a = torch.tensor([0.0, 1.0, float("nan"), -2.0, 0.5, -0.0])
mixed_b = torch.tensor([[1], [0]])
for name, fn in (("logical_and", torch.logical_and), ("logical_or", torch.logical_or), ("logical_xor", torch.logical_xor)):
    g.case("%s/bcast" % name, name, fn, [mixed_a, mixed_b])
    g.case("%s/bool" % name, name, fn, [torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False])])
    g.case("%s/int-float" % name, name, fn, [torch.tensor([[0, 3, -1]]), torch.tensor([[0.0], [2.0]])])
    g.case("%s/other-keyword" % name, name, lambda input, other: fn(input, other), [], {"input": torch.tensor([1, 0]), "other": torch.tensor([1, 1])})
    g.error("%s/shape" % name, name, [torch.ones(2, 3), torch.ones(4)], "cannot broadcast")

# addcmul, addcdiv
for name, fn in (("addcmul", torch.addcmul), ("addcdiv", torch.addcdiv)):
    g.case("%s/bcast" % name, name, fn, [rn(3, 1), rn(1, 4), rn(3, 4)])
    g.case("%s/value" % name, name, fn, [rn(2, 3), rn(2, 3), rn(3)], {"value": -0.5})
    g.case("%s/float64" % name, name, fn, [rn(2, 3, dtype=torch.float64), rn(2, 3, dtype=torch.float64), rn(2, 3, dtype=torch.float64)], {"value": 2.0})
    grad_case("%s" % name, name, fn, [rn(3, 1), rn(1, 4), rn(3, 4) + 3.0], {"value": 0.75})
    g.error("%s/shape" % name, name, [rn(2, 3), rn(2, 3), rn(4)], "cannot broadcast")
g.case("addcmul/int64", "addcmul", torch.addcmul, [torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6])], {"value": 2})
g.error("addcdiv/int", "addcdiv", [torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6])], "integer division")

# hstack, vstack, dstack
for name, fn in (("hstack", torch.hstack), ("vstack", torch.vstack), ("dstack", torch.dstack)):
    g.case("%s/1d" % name, name, lambda ts, fn=fn: fn(ts), [[torch.tensor([1, 2]), torch.tensor([3, 4, 5]) if name == "hstack" else torch.tensor([3, 4])]])
    g.case("%s/0d" % name, name, lambda ts, fn=fn: fn(ts), [[torch.tensor(1.5), torch.tensor(2.5)]])
    g.case("%s/2d" % name, name, lambda ts, fn=fn: fn(ts), [[rn(2, 3), rn(2, 3)]])
    g.case("%s/3d" % name, name, lambda ts, fn=fn: fn(ts), [[rn(2, 3, 2), rn(2, 3, 2)]])
    g.error("%s/empty" % name, name, [[]], "non-empty list")
g.case("hstack/columns", "hstack", lambda ts: torch.hstack(ts), [[rn(2, 1), rn(2, 3)]])
g.case("vstack/mixed", "vstack", lambda ts: torch.vstack(ts), [[torch.tensor([1, 2]), torch.tensor([[3, 4], [5, 6]])]])
g.case("dstack/mixed", "dstack", lambda ts: torch.dstack(ts), [[rn(2, 3), rn(2, 3, 2)]])
g.case("dstack/tensors-keyword", "dstack", lambda tensors: torch.dstack(tensors), [], {"tensors": [torch.tensor([1, 2])]})
g.error("hstack/rank", "hstack", [[rn(2, 3), rn(3)]], "hstack: tensor 1 has shape [3]")
g.error("vstack/shape", "vstack", [[rn(3), rn(4)]], "vstack")

# tile, swapaxes, swapdims, unflatten
n = torch.arange(6).reshape(2, 3)
g.case("tile/fewer", "tile", torch.tile, [n, [2]])
g.case("tile/same", "tile", torch.tile, [n, [2, 1]])
g.case("tile/more", "tile", torch.tile, [n, [2, 1, 3]])
g.case("tile/0d", "tile", torch.tile, [torch.tensor(7.0), [3]])
grad_case("tile", "tile", torch.tile, [rn(2, 3), [2, 1, 2]])
g.error("tile/negative", "tile", [n, [-1, 2]], "tile: sizes must not be negative")
g.case("swapaxes", "swapaxes", torch.swapaxes, [torch.arange(24).reshape(2, 3, 4), 0, -1])
g.case("swapaxes/keywords", "swapaxes", lambda input, axis0, axis1: torch.swapaxes(input, axis0, axis1), [], {"input": n, "axis0": 1, "axis1": 0})
g.case("swapdims/keywords", "swapdims", lambda input, dim0, dim1: torch.swapdims(input, dim0, dim1), [], {"input": n, "dim0": 1, "dim1": 0})
grad_case("swapdims", "swapdims", torch.swapdims, [rn(2, 3, 4), 2, 0])
g.error("swapaxes/range", "swapaxes", [n, 0, 2], "swapaxes of a tensor of shape [2, 3]")
g.error("swapdims/range", "swapdims", [n, -3, 0], "swapdims of a tensor of shape [2, 3]")
m = torch.arange(24).reshape(2, 12)
g.case("unflatten", "unflatten", torch.unflatten, [m, 1, [3, 4]])
g.case("unflatten/infer", "unflatten", torch.unflatten, [m, -1, [2, -1, 3]])
g.case("unflatten/dim0", "unflatten", torch.unflatten, [m, 0, [1, 2, 1]])
grad_case("unflatten", "unflatten", torch.unflatten, [rn(2, 12), 1, [4, -1]])
g.error("unflatten/product", "unflatten", [m, 1, [5, 2]], "unflatten: sizes [5, 2] multiply to 10, but the dimension has size 12")
g.error("unflatten/two-free", "unflatten", [m, 1, [-1, -1]], "unflatten: sizes [-1, -1] may hold one -1")
g.error("unflatten/indivisible", "unflatten", [m, 1, [5, -1]], "unflatten: sizes [5, -1] cannot split a dimension of size 12")
g.error("unflatten/dim", "unflatten", [m, 2, [3, 4]], "unflatten: dim 2 is out of range for a tensor of shape [2, 12]")
g.error("unflatten/empty", "unflatten", [m, 1, []], "unflatten: sizes must be a non-empty list")

# expand_as, view_as, reshape_as, type_as
g.case("expand_as", "expand_as", lambda x, o: x.expand_as(o), [rn(3, 1), rn(2, 3, 4)])
g.case("view_as", "view_as", lambda x, o: x.view_as(o), [torch.arange(6), rn(3, 2)])
g.case("reshape_as", "reshape_as", lambda x, o: x.reshape_as(o), [rn(2, 3), rn(6)])
g.case("type_as/int-float", "type_as", lambda x, o: x.type_as(o), [torch.tensor([1, -2]), rn(1, dtype=torch.float64)])
g.case("type_as/float-int", "type_as", lambda x, o: x.type_as(o), [torch.tensor([1.7, -2.7]), torch.tensor([1])])
g.case("type_as/bool", "type_as", lambda x, o: x.type_as(o), [torch.tensor([0.0, 2.0]), torch.tensor([True])])
grad_case("expand_as", "expand_as", lambda x, o: x.expand_as(o), [rn(3, 1), torch.zeros(2, 3, 4, dtype=torch.int64)])
grad_case("view_as", "view_as", lambda x, o: x.view_as(o), [rn(2, 3), torch.zeros(3, 2, dtype=torch.int64)])
grad_case("reshape_as", "reshape_as", lambda x, o: x.reshape_as(o), [rn(2, 3), torch.zeros(6, dtype=torch.int64)])
grad_case("type_as", "type_as", lambda x, o: x.type_as(o), [rn(2, 3), torch.zeros(1, dtype=torch.float64)])
g.error("expand_as/shape", "expand_as", [rn(6), rn(2, 3)], "expand_as: cannot expand [6] to [2, 3]")
g.error("view_as/numel", "view_as", [rn(6), rn(4)], "view_as:")
g.error("reshape_as/numel", "reshape_as", [rn(6), rn(4)], "reshape_as:")

# amax, amin, count_nonzero, var_mean, std_mean
ties = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 1.0], [5.0, 1.0, 5.0, 5.0]])
for name, fn in (("amax", torch.amax), ("amin", torch.amin)):
    g.case("%s/dim" % name, name, fn, [ties], {"dim": 1})
    g.case("%s/dims-keepdim" % name, name, fn, [rn(2, 3, 4)], {"dim": [0, -1], "keepdim": True})
    g.case("%s/all" % name, name, fn, [rn(2, 3)])
    g.case("%s/empty-list" % name, name, fn, [rn(2, 3)], {"dim": []})
    g.case("%s/int64" % name, name, fn, [torch.tensor([[3, -1], [7, 2]])], {"dim": 0})
    g.case("%s/nan" % name, name, fn, [torch.tensor([[1.0, float("nan")], [2.0, 3.0]])], {"dim": 1})
    grad_case("%s/ties" % name, name, fn, [ties], {"dim": [1]})
    grad_case("%s/all-ties" % name, name, fn, [ties])
    g.error("%s/dim-range" % name, name, [rn(2, 3), 2], "%s: dimension 2 out of range" % name)
    g.error("%s/dim-type" % name, name, [rn(2, 3), "a"], "%s: argument \"dim\" must be an int, a list of ints or none" % name)
cz = torch.tensor([[0.0, 1.5, float("nan")], [-0.0, 0.0, -2.0]])
g.case("count_nonzero/all", "count_nonzero", torch.count_nonzero, [cz])
g.case("count_nonzero/dim", "count_nonzero", torch.count_nonzero, [cz], {"dim": 0})
g.case("count_nonzero/dims", "count_nonzero", torch.count_nonzero, [torch.arange(24).reshape(2, 3, 4) % 3], {"dim": [0, 2]})
g.case("count_nonzero/bool", "count_nonzero", torch.count_nonzero, [torch.tensor([True, False, True])])
g.error("count_nonzero/dim-range", "count_nonzero", [cz, 3], "count_nonzero: dimension 3 out of range")
for name, fn in (("var_mean", torch.var_mean), ("std_mean", torch.std_mean)):
    g.case("%s/all" % name, name, fn, [rn(3, 4)])
    g.case("%s/dim" % name, name, fn, [rn(3, 4)], {"dim": 1})
    g.case("%s/dims-keepdim" % name, name, fn, [rn(2, 3, 4)], {"dim": [0, 2], "keepdim": True})
    g.case("%s/correction0" % name, name, lambda x, dim, correction, fn=fn: fn(x, dim, correction=correction), [rn(3, 4, dtype=torch.float64), 0, 0])
    for i, field in enumerate((name[:3], "mean")):
        grad_case("%s/%s" % (name, field), "%s.%s" % (name, field), lambda x, dim, fn=fn, i=i: fn(x, dim=dim)[i], [rn(3, 5)], {"dim": 1})
    g.error("%s/int" % name, name, [torch.tensor([1, 2])], name + ":")

# isclose, frac, exp2, logit
near = torch.tensor([1.0, float("nan"), float("inf"), 1.0, float("-inf"), 0.0, -0.0, 100.0, 1e-9])
other = torch.tensor([1.000001, float("nan"), float("inf"), float("inf"), float("inf"), 1e-9, 0.0, 100.001, 0.0])
g.case("isclose", "isclose", torch.isclose, [near, other])
g.case("isclose/equal_nan", "isclose", torch.isclose, [near, other], {"equal_nan": True})
g.case("isclose/tolerances", "isclose", torch.isclose, [near, other], {"rtol": 1e-3, "atol": 1e-2})
g.case("isclose/exact", "isclose", torch.isclose, [near, other], {"rtol": 0.0, "atol": 0.0})
g.case("isclose/float64-bcast", "isclose", torch.isclose, [rn(2, 3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)], {"atol": 0.5})
g.case("isclose/int64", "isclose", torch.isclose, [torch.tensor([1, 5, 100]), torch.tensor([1, 6, 101])], {"rtol": 0.0, "atol": 1.0})
g.error("isclose/dtypes", "isclose", [torch.ones(2), torch.ones(2, dtype=torch.float64)], "isclose: input is float32 but other is float64")
g.error("isclose/negative", "isclose", [torch.ones(2), torch.ones(2)], "isclose: rtol (-1) and atol", {"rtol": -1.0})
for dt in (torch.float32, torch.float64):
    tag = str(dt).replace("torch.", "")
    g.case("frac/%s" % tag, "frac", torch.frac, [rn(3, 4, dtype=dt) * 5])
    g.case("frac/%s/special" % tag, "frac", torch.frac, [SPECIAL.to(dt)])
    g.case("exp2/%s" % tag, "exp2", torch.exp2, [rn(3, 4, dtype=dt) * 4])
    g.case("exp2/%s/special" % tag, "exp2", torch.exp2, [SPECIAL.to(dt)])
    probs = torch.tensor([0.0, 1e-4, 0.1, 0.5, 0.9, 1.0, float("nan"), -0.5, 2.0], dtype=dt)
    g.case("logit/%s" % tag, "logit", torch.logit, [probs])
    g.case("logit/%s/eps" % tag, "logit", torch.logit, [probs], {"eps": 0.05})
g.case("exp2/int64", "exp2", torch.exp2, [torch.tensor([0, 3, -2, 10])])
g.case("logit/int64", "logit", torch.logit, [torch.tensor([0, 1])])
g.error("frac/int", "frac", [torch.tensor([1, 2])], "frac: the input must be floating point")
g.error("logit/eps-type", "logit", [torch.rand(3), "a"], "logit: argument \"eps\" must be a number or none")
grad_case("frac", "frac", torch.frac, [rn(3, 4) * 3])
grad_case("exp2", "exp2", torch.exp2, [rn(3, 4)])
grad_case("logit", "logit", torch.logit, [torch.rand(3, 4) * 0.9 + 0.05])
grad_case("logit/eps", "logit", torch.logit, [torch.tensor([0.01, 0.2, 0.5, 0.97, 0.6])], {"eps": 0.1})

# huber_loss, pairwise_distance, cdist
for red in ("mean", "sum", "none"):
    g.case("huber_loss/%s" % red, "huber_loss", F.huber_loss, [rn(3, 4) * 2, rn(3, 4) * 2], {"reduction": red})
g.case("huber_loss/delta", "huber_loss", F.huber_loss, [rn(3, 4) * 2, rn(3, 4) * 2], {"delta": 0.5, "reduction": "none"})
g.case("huber_loss/float64", "huber_loss", F.huber_loss, [rn(5, dtype=torch.float64) * 3, rn(5, dtype=torch.float64)], {"delta": 2.0})
grad_case("huber_loss", "huber_loss", F.huber_loss, [rn(3, 4) * 2, rn(3, 4) * 2], {"delta": 1.5})
g.error("huber_loss/delta-zero", "huber_loss", [rn(3), rn(3)], "huber_loss: delta must be positive, got 0", {"delta": 0.0})
g.error("huber_loss/reduction", "huber_loss", [rn(3), rn(3)], "huber_loss: reduction must be", {"reduction": "avg"})
g.error("huber_loss/shape", "huber_loss", [rn(3), rn(4)], "huber_loss: cannot broadcast")
g.case("pairwise_distance", "pairwise_distance", F.pairwise_distance, [rn(4, 5), rn(4, 5)])
g.case("pairwise_distance/bcast-keepdim", "pairwise_distance", F.pairwise_distance, [rn(3, 1, 5), rn(4, 5)], {"keepdim": True})
g.case("pairwise_distance/p1-eps", "pairwise_distance", F.pairwise_distance, [rn(4, 5), rn(4, 5)], {"p": 1.0, "eps": 0.1})
g.case("pairwise_distance/1d", "pairwise_distance", F.pairwise_distance, [rn(5, dtype=torch.float64), rn(5, dtype=torch.float64)], {"p": 3.0})
grad_case("pairwise_distance", "pairwise_distance", F.pairwise_distance, [rn(4, 5), rn(4, 5)])
g.error("pairwise_distance/shape", "pairwise_distance", [rn(4, 5), rn(4, 3)], "pairwise_distance: cannot broadcast")
g.error("pairwise_distance/int", "pairwise_distance", [torch.tensor([[1, 2]]), torch.tensor([[1, 2]])], "pairwise_distance: x1 and x2 must be floating point")
g.case("cdist", "cdist", torch.cdist, [rn(4, 3), rn(5, 3)])
g.case("cdist/batch-bcast", "cdist", torch.cdist, [rn(2, 1, 4, 3), rn(3, 5, 3)])
for p in (0.0, 1.0, 3.0, float("inf")):
    g.case("cdist/p%s" % p, "cdist", torch.cdist, [rn(4, 3), rn(5, 3)], {"p": p})
grad_case("cdist", "cdist", torch.cdist, [rn(4, 3), rn(5, 3)])
grad_case("cdist/p1-batch", "cdist", torch.cdist, [rn(2, 4, 3), rn(2, 5, 3)], {"p": 1.0})
g.error("cdist/rank", "cdist", [rn(3), rn(4, 3)], "cdist: x1 and x2 must have at least 2 dimensions")
g.error("cdist/features", "cdist", [rn(4, 3), rn(4, 2)], "cdist: x1 [4, 3] and x2 [4, 2] must have the same size in the last dimension")
g.error("cdist/batch", "cdist", [rn(2, 4, 3), rn(3, 4, 3)], "cdist: the batch dimensions of [2, 4, 3] and [3, 4, 3]")
g.error("cdist/negative-p", "cdist", [rn(4, 3), rn(4, 3)], "cdist: p must be non-negative", {"p": -1.0})

# median, diagonal, trace, tensordot, cross
distinct = torch.randperm(20).reshape(4, 5).to(torch.float32) * 0.5 - 3
with_nan = torch.tensor([[3.0, float("nan"), 2.0, float("nan")], [4.0, 1.0, 4.0, 2.0], [1.0, 1.0, 1.0, 1.0]])
g.case("median/all", "median", torch.median, [rn(3, 5)])
g.case("median/all-even", "median", torch.median, [rn(4, 5)])
g.case("median/all-nan", "median", torch.median, [with_nan])
g.case("median/int64", "median", torch.median, [torch.tensor([5, 1, 3, 2])])
g.case("median/dim", "median", lambda x, dim: list(torch.median(x, dim)), [distinct, 1])
g.case("median/dim0-keepdim", "median", lambda x, dim, keepdim: list(torch.median(x, dim, keepdim)), [distinct], {"dim": 0, "keepdim": True})
g.case("median/dim-nan-ties", "median", lambda x, dim: list(torch.median(x, dim)), [with_nan], {"dim": -1})
g.case("median/0d", "median", lambda x, dim: list(torch.median(x, dim)), [torch.tensor(2.5), 0])
grad_case("median/all", "median", torch.median, [rn(3, 5)])
grad_case("median/dim", "median.values", lambda x, dim: torch.median(x, dim).values, [distinct], {"dim": 1})
g.case("median/empty", "median", torch.median, [torch.zeros(0)])
g.case("median/empty-2d", "median", torch.median, [torch.zeros(0, 3)])
g.case("median/empty-kept-dim", "median", lambda x, dim: list(torch.median(x, dim)), [torch.zeros(3, 0), 0])
g.error("median/empty-int", "median", [torch.zeros(0, dtype=torch.int64)], "median: the int64 input of shape [0] is empty")
g.error("median/empty-dim", "median", [torch.zeros(0, 3), 0], "median: dimension 0 of the input of shape [0, 3] is empty")
g.error("median/dim-range", "median", [rn(2, 3), 2], "median: dim 2 is out of range")
g.error("median/dim-list", "median", [rn(2, 3), [0, 1]], "median: argument \"dim\" must be an int or none")
n3 = torch.arange(60).reshape(3, 4, 5)
g.case("diagonal", "diagonal", torch.diagonal, [torch.arange(12).reshape(3, 4)])
for off in (-2, 1, 3, 7):
    g.case("diagonal/offset%d" % off, "diagonal", torch.diagonal, [n3], {"offset": off, "dim1": 1, "dim2": 2})
g.case("diagonal/dims-reversed", "diagonal", torch.diagonal, [n3], {"offset": 1, "dim1": 2, "dim2": 0})
g.case("diagonal/negative-dims", "diagonal", torch.diagonal, [n3], {"dim1": -1, "dim2": -3})
grad_case("diagonal", "diagonal", torch.diagonal, [rn(3, 4, 5)], {"offset": -1, "dim1": 2, "dim2": 1})
g.error("diagonal/1d", "diagonal", [torch.arange(3)], "diagonal: the input must have at least 2 dimensions")
g.error("diagonal/same", "diagonal", [n3], "diagonal: dim1 and dim2 are both dimension 1", {"dim1": 1, "dim2": -2})
g.error("diagonal/range", "diagonal", [n3], "diagonal: dim1 0 and dim2 3 must be dimensions", {"dim2": 3})
g.case("trace", "trace", torch.trace, [rn(3, 4)])
g.case("trace/int64", "trace", torch.trace, [torch.arange(9).reshape(3, 3)])
grad_case("trace", "trace", torch.trace, [rn(4, 3)])
g.error("trace/3d", "trace", [n3], "trace: the input must be 2-d, got shape [3, 4, 5]")
g.case("tensordot", "tensordot", torch.tensordot, [rn(2, 3, 4), rn(3, 4, 5)])
g.case("tensordot/int", "tensordot", torch.tensordot, [rn(2, 3, 4), rn(4, 5)], {"dims": 1})
g.case("tensordot/outer", "tensordot", torch.tensordot, [rn(2, 3), rn(4)], {"dims": 0})
g.case("tensordot/lists", "tensordot", torch.tensordot, [rn(3, 4, 5), rn(4, 3, 2)], {"dims": [[1, 0], [0, 1]]})
g.case("tensordot/float64", "tensordot", torch.tensordot, [rn(3, 4, dtype=torch.float64), rn(4, 3, dtype=torch.float64)], {"dims": [[0, 1], [1, 0]]})
grad_case("tensordot", "tensordot", torch.tensordot, [rn(3, 4, 5), rn(4, 3, 2)], {"dims": [[1, 0], [0, 1]]})
g.error("tensordot/size", "tensordot", [rn(2, 3), rn(4, 2)], "tensordot: contracted dimension 1 of a [2, 3] has size 3 but dimension 0 of b [4, 2] has size 4", {"dims": 1})
g.error("tensordot/count", "tensordot", [rn(2, 3), rn(3)], "tensordot: dims 2 must be between 0 and the ranks")
g.error("tensordot/pairs", "tensordot", [rn(2, 3), rn(3, 2)], "tensordot: dims lists 2 dimensions of a but 1 of b", {"dims": [[0, 1], [0]]})
g.error("tensordot/twice", "tensordot", [rn(2, 2), rn(2, 2)], "tensordot: dimension 0 of a is listed twice", {"dims": [[0, -2], [0, 1]]})
g.error("tensordot/type", "tensordot", [rn(2, 2), rn(2, 2)], "tensordot: dims must be an int or a list of two lists", {"dims": "x"})
# torch 1.13's linalg.cross broadcasts sizes but wants equal ranks; tref's
# cross also broadcasts ranks, as torch.broadcast_tensors does


def lc(a, b, dim=-1):
    return torch.linalg.cross(*torch.broadcast_tensors(a, b), dim=dim)


def tc(a, b, dim=None):
    # torch.cross without dim: input's first dimension of size 3
    if dim is None:
        dim = [i for i, n in enumerate(a.shape) if n == 3][0] - a.dim()
    return lc(a, b, dim)


g.case("cross", "cross", tc, [rn(4, 3), rn(4, 3)])
g.case("cross/default-first-3", "cross", tc, [rn(3, 3), rn(3, 3)])
g.case("cross/default-first-3-bcast", "cross", tc, [rn(3, 2, 3), rn(2, 3, 1, 1)])
g.case("cross/minus-1", "cross", tc, [rn(3, 3), rn(3, 3)], {"dim": -1})
g.case("cross/bcast", "cross", tc, [rn(3), rn(2, 1, 3)])
g.case("cross/dim0", "cross", tc, [rn(3, 5), rn(3, 5)], {"dim": 0})
g.case("cross/dim-positive-bcast", "cross", tc, [rn(2, 3, 4), rn(3, 4)], {"dim": 1})
g.case("cross/int64", "cross", tc, [torch.tensor([1, 0, 0]), torch.tensor([0, 1, 0])])
grad_case("cross", "cross", tc, [rn(2, 3), rn(3)])
g.error("cross/size", "cross", [rn(4, 2), rn(4, 2)], "cross: input of shape [4, 2] has no dimension of size 3; pass dim")
g.error("cross/size-dim", "cross", [rn(4, 2), rn(4, 2)], "cross: input of shape [4, 2] must have size 3 in dimension -1", {"dim": -1})
g.error("cross/missing", "cross", [rn(3, 4), rn(4)], "cross: other of shape [4] must have size 3 in dimension 0", {"dim": 0})
g.error("cross/range", "cross", [rn(3), rn(3)], "cross: dim 1 is out of range", {"dim": 1})

# atan2: every pair of SPECIAL values (signed zeros, infinities, NaN), by
# dtype; integers and bools give float32; a number on either side; the
# gradient away from the origin
ys, xs = torch.meshgrid(SPECIAL, SPECIAL, indexing="ij")
for dt in (torch.float32, torch.float64):
    tag = str(dt).replace("torch.", "")
    g.case("atan2/%s/special" % tag, "atan2", torch.atan2, [ys.reshape(-1).to(dt), xs.reshape(-1).to(dt)])
g.case("atan2/bcast", "atan2", torch.atan2, [rn(2, 3, 1), rn(4)])
g.case("atan2/int64", "atan2", torch.atan2, [torch.tensor([1, 0, -3, 0]), torch.tensor([0, -1, 2, 0])])
g.case("atan2/bool", "atan2", torch.atan2, [torch.tensor([True, False]), torch.tensor([True, True])])
g.case("atan2/scalar", "atan2", lambda y, x: torch.atan2(y, torch.tensor(x)), [rn(5), -1.5])
g.error("atan2/shapes", "atan2", [rn(2, 3), rn(4)], "cannot broadcast shapes [2, 3] and [4]")
grad_case("atan2", "atan2", torch.atan2, [rn(3, 4), rn(3, 4)])
grad_case("atan2/bcast", "atan2", torch.atan2, [rn(3, 4), rn(4)])

g.write()
