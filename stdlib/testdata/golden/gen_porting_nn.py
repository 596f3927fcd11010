"""Goldens of torch functions users porting code meet, added as tref builtins:
/usr/bin/python3 gen_porting_nn.py

Activations (softsign, tanhshrink, hardshrink, softshrink, threshold, celu,
prelu), pointwise functions (heaviside, deg2rad, rad2deg, xlogy, sinc,
float_power, logspace, isin, isposinf, isneginf), NaN reductions (nansum,
nanmean), instance_norm, and the losses margin_ranking, soft_margin,
hinge_embedding, cosine_embedding, triplet_margin, poisson_nll,
gaussian_nll, multilabel_soft_margin and multi_margin: values (broadcasting,
dtypes, keywords under torch's names, special values), the gradients of the
differentiable ones (replayed by vjp_of_sum), and errors.
"""

import math

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(31)
g = Golden("porting_nn")
grad_case = g.grad_case

nan, inf = float("nan"), float("inf")


def rn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


SPECIAL = torch.tensor([nan, inf, -inf, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 1e-8, 30.0, -30.0])
INTS = torch.tensor([3, -2, 0, 1, -1])

# softsign, tanhshrink
for name, fn in (("softsign", F.softsign), ("tanhshrink", F.tanhshrink)):
    g.case("%s/special" % name, name, fn, [SPECIAL])
    g.case("%s/int64" % name, name, fn, [INTS])
    g.case("%s/float64" % name, name, fn, [rn(2, 3, dtype=torch.float64)])
    g.case("%s/input-keyword" % name, name, lambda input: fn(input), [], {"input": rn(3)})
    grad_case(name, name, fn, [torch.tensor([-2.0, -0.5, 0.0, 0.3, 1.7])])
    g.error("%s/bool" % name, name, [torch.tensor([True, False])], "%s: bool tensors are not supported" % name)

# hardshrink, softshrink
shrink_x = torch.tensor([nan, inf, -inf, 0.0, 0.5, -0.5, 0.25, -0.75, 2.0, -2.0])
for name, fn in (("hardshrink", F.hardshrink), ("softshrink", F.softshrink)):
    g.case("%s/default" % name, name, fn, [shrink_x[1:]])
    g.case("%s/lambd" % name, name, fn, [rn(3, 4)], {"lambd": 0.75})
    g.case("%s/lambd-positional" % name, name, fn, [rn(5), 0.25])
    g.case("%s/float64" % name, name, fn, [rn(4, dtype=torch.float64), 0.3])
    g.case("%s/zero" % name, name, fn, [rn(5)], {"lambd": 0.0})
    grad_case(name, name, fn, [torch.tensor([-2.0, -0.5, -0.2, 0.0, 0.5, 0.6, 1.5])])
    grad_case("%s/lambd" % name, name, fn, [rn(3, 4)], {"lambd": 0.3})
    g.error("%s/int" % name, name, [INTS], "%s: the input must be floating point" % name)
g.case("hardshrink/nan", "hardshrink", F.hardshrink, [shrink_x])
g.case("hardshrink/negative-lambd", "hardshrink", F.hardshrink, [shrink_x[1:], -0.5])
g.case("softshrink/nan", "softshrink", F.softshrink, [shrink_x])
g.error("softshrink/negative-lambd", "softshrink", [rn(3), -0.5], "softshrink: lambd must be greater or equal to 0")

# threshold
g.case("threshold/float", "threshold", F.threshold, [SPECIAL, 0.5, -7.0])
g.case("threshold/keywords", "threshold", lambda input, threshold, value: F.threshold(input, threshold, value), [],
       {"input": rn(3, 4), "threshold": 0.1, "value": 20.0})
g.case("threshold/int-truncates", "threshold", F.threshold, [torch.tensor([0, 1, -1, 2]), -0.5, 7.9])
g.case("threshold/int", "threshold", F.threshold, [INTS, 1, 9])
g.case("threshold/float64", "threshold", F.threshold, [rn(5, dtype=torch.float64), 0.0, 1.5])
grad_case("threshold", "threshold", F.threshold, [torch.tensor([-1.0, 0.0, 0.5, 0.7, 2.0]), 0.5, 3.0])
g.error("threshold/bool", "threshold", [torch.tensor([True]), 0.5, 1.0], "threshold: bool tensors are not supported")
g.error("threshold/missing", "threshold", [rn(3), 0.5], "threshold: missing argument \"value\"")

# celu
g.case("celu/default", "celu", F.celu, [SPECIAL])
g.case("celu/alpha", "celu", F.celu, [rn(3, 4)], {"alpha": 2.5})
g.case("celu/small-alpha", "celu", F.celu, [rn(6)], {"alpha": 0.1})
g.case("celu/negative-alpha", "celu", F.celu, [rn(6)], {"alpha": -1.5})
g.case("celu/float64", "celu", F.celu, [rn(5, dtype=torch.float64), 0.7])
grad_case("celu", "celu", F.celu, [torch.tensor([-3.0, -0.5, 0.0, 0.5, 3.0, 100.0])], {"alpha": 1.5})
grad_case("celu/default", "celu", F.celu, [rn(3, 4)])
g.error("celu/zero-alpha", "celu", [rn(3), 0.0], "celu: alpha cannot be 0")
g.error("celu/int", "celu", [INTS], "celu: the input must be floating point")

# prelu
g.case("prelu/one", "prelu", F.prelu, [rn(2, 3, 4), torch.tensor([0.25])])
g.case("prelu/0d-weight", "prelu", F.prelu, [rn(2, 3), torch.tensor(0.1)])
g.case("prelu/channels", "prelu", F.prelu, [rn(2, 3, 4), torch.tensor([0.1, -0.5, 2.0])])
g.case("prelu/channels-2d", "prelu", F.prelu, [rn(4, 3), torch.tensor([0.1, -0.5, 2.0])])
g.case("prelu/channels-4d", "prelu", F.prelu, [rn(2, 3, 2, 2), torch.tensor([0.1, -0.5, 2.0])])
g.case("prelu/1d", "prelu", F.prelu, [rn(5), torch.tensor([0.2])])
g.case("prelu/0d", "prelu", F.prelu, [torch.tensor(-2.0), torch.tensor([0.5])])
g.case("prelu/special", "prelu", F.prelu, [SPECIAL, torch.tensor([0.25])])
g.case("prelu/float64", "prelu", F.prelu, [rn(2, 2, dtype=torch.float64), torch.tensor([0.3, 0.4], dtype=torch.float64)])
g.case("prelu/keywords", "prelu", lambda input, weight: F.prelu(input, weight), [], {"input": rn(2, 3), "weight": torch.tensor([0.5])})
grad_case("prelu/channels", "prelu", F.prelu, [torch.tensor([[[-1.0, 0.0, 2.0], [0.5, -0.25, 0.0]], [[3.0, -2.0, 0.1], [-0.1, 1.0, -3.0]]]), torch.tensor([0.25, -0.5])])
grad_case("prelu/one", "prelu", F.prelu, [rn(3, 4), torch.tensor([0.3])])
grad_case("prelu/0d-weight", "prelu", F.prelu, [rn(3, 4), torch.tensor(0.3)])
g.error("prelu/mismatch", "prelu", [rn(2, 3), torch.ones(2)], "prelu: the weight has 2 elements but the input [2, 3] has 3 channels")
g.error("prelu/2d-weight", "prelu", [rn(2, 3), torch.ones(3, 1)], "prelu: expected the weight to be 0-d or 1-d")
g.error("prelu/1d-input", "prelu", [rn(2), torch.ones(2)], "prelu: the weight has 2 elements but the input [2] has 1 channels")
g.error("prelu/dtype", "prelu", [rn(2), torch.ones(1, dtype=torch.float64)], "prelu: the weight (float64) must have the input's dtype float32")
g.error("prelu/int", "prelu", [INTS, torch.ones(1, dtype=torch.int64)], "prelu: the input must be floating point")

# heaviside
hx = torch.tensor([-1.5, 0.0, -0.0, 2.0, nan, inf, -inf])
g.case("heaviside/scalar-values", "heaviside", torch.heaviside, [hx, torch.tensor(0.5)])
g.case("heaviside/bcast", "heaviside", torch.heaviside, [torch.tensor([[-1.0], [0.0], [3.0]]), torch.tensor([0.5, 7.0])])
g.case("heaviside/bool", "heaviside", torch.heaviside, [torch.tensor([True, False, False]), torch.tensor([False, True, False])])
g.case("heaviside/int", "heaviside", torch.heaviside, [INTS, torch.tensor([5])])
g.case("heaviside/float64", "heaviside", torch.heaviside, [hx.double(), torch.tensor([-1.0], dtype=torch.float64)])
g.case("heaviside/keywords", "heaviside", lambda input, values: torch.heaviside(input, values), [], {"input": hx, "values": torch.tensor(1.0)})
g.error("heaviside/dtypes", "heaviside", [INTS, torch.tensor(0.5)], "heaviside: input (int64) and values (float32) must have one dtype")
g.error("heaviside/shape", "heaviside", [rn(2, 3), rn(4)], "cannot broadcast")

# deg2rad, rad2deg
for name, fn in (("deg2rad", torch.deg2rad), ("rad2deg", torch.rad2deg)):
    g.case("%s/float" % name, name, fn, [torch.tensor([0.0, 90.0, -180.0, 360.0, 1e-3, nan, inf])])
    g.case("%s/int" % name, name, fn, [INTS])
    g.case("%s/bool" % name, name, fn, [torch.tensor([True, False])])
    g.case("%s/float64" % name, name, fn, [rn(2, 3, dtype=torch.float64) * 100])
    grad_case(name, name, fn, [rn(2, 3)])

# xlogy
xa = torch.tensor([0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, -3.0, nan, 1.5])
xb = torch.tensor([0.0, nan, -1.0, inf, 0.0, -1.0, 2.0, 4.0, 1.0, inf])
g.case("xlogy/special", "xlogy", torch.xlogy, [xa, xb])
g.case("xlogy/bcast", "xlogy", torch.xlogy, [rn(3, 1), rn(4).abs()])
g.case("xlogy/scalar-other", "xlogy", torch.xlogy, [rn(4), 2.0])
g.case("xlogy/scalar-input", "xlogy", torch.xlogy, [3.0, torch.tensor([0.0, 1.0, 2.0, nan, -1.0])])
g.case("xlogy/int", "xlogy", torch.xlogy, [INTS, torch.tensor([1, 2, 3, 0, 5])])
g.case("xlogy/int-scalar", "xlogy", torch.xlogy, [INTS, 2])
g.case("xlogy/float64", "xlogy", torch.xlogy, [rn(3, dtype=torch.float64), rn(3, dtype=torch.float64).abs()])
g.case("xlogy/int-float64", "xlogy", torch.xlogy, [INTS, torch.tensor([1.5], dtype=torch.float64)])
g.case("xlogy/keywords", "xlogy", lambda input, other: torch.xlogy(input, other), [], {"input": rn(3), "other": rn(3).abs()})
grad_case("xlogy", "xlogy", torch.xlogy, [rn(3, 4), rn(3, 4).abs() + 0.1])
grad_case("xlogy/bcast", "xlogy", torch.xlogy, [rn(3, 1), rn(4).abs() + 0.1])
# At input 0 the gradient with respect to input is log(other), 0 at
# other <= 0, NaN where other is NaN (tref: 0 at other = inf, and 0 with
# respect to other at other = 0, where torch has inf and NaN).
grad_case("xlogy/edges", "xlogy", torch.xlogy,
          [torch.tensor([0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0, -2.0]), torch.tensor([-1.0, 3.0, nan, 0.5, 0.25, nan, -3.0, -1.0])])
g.error("xlogy/shape", "xlogy", [rn(2, 3), rn(4)], "xlogy: cannot broadcast")

# sinc
sx = torch.tensor([0.0, -0.0, 1e-20, 1e-4, -0.02, 0.03, 0.25, -0.5, 1.0, 2.0, -3.5, 100.25, nan, inf, -inf])
g.case("sinc/special", "sinc", torch.sinc, [sx], atol=1e-6)
g.case("sinc/int", "sinc", torch.sinc, [INTS])
g.case("sinc/float64", "sinc", torch.sinc, [sx.double()], rtol=1e-12, atol=1e-14)
g.case("sinc/float64-rand", "sinc", torch.sinc, [rn(3, 4, dtype=torch.float64)], rtol=1e-12, atol=1e-14)
grad_case("sinc", "sinc", torch.sinc, [torch.tensor([0.0, -0.0, 1e-20, 0.25, -0.5, 0.7, 1.0, 2.3, -3.1])])
grad_case("sinc/series-edge", "sinc", torch.sinc, [torch.tensor([0.0315, -0.0325, 0.1, 0.05])], atol=1e-5)
grad_case("sinc/float64", "sinc", torch.sinc, [torch.tensor([0.0, 0.25, -0.5, 1.0, 2.3], dtype=torch.float64)], atol=1e-9)

# float_power
g.case("float_power/float", "float_power", torch.float_power, [rn(2, 3), 2.0])
g.case("float_power/int", "float_power", torch.float_power, [INTS, 3])
g.case("float_power/tensors", "float_power", torch.float_power, [rn(3, 1).abs(), rn(4)])
g.case("float_power/scalar-base", "float_power", torch.float_power, [2.0, torch.tensor([1, -2, 0, 3])])
g.case("float_power/negative", "float_power", torch.float_power, [torch.tensor([-2.0, 4.0, 0.0]), 0.5])
g.case("float_power/bool", "float_power", torch.float_power, [torch.tensor([True, False]), 2])
g.case("float_power/keywords", "float_power", lambda input, exponent: torch.float_power(input, exponent), [], {"input": rn(3), "exponent": 3})
grad_case("float_power", "float_power", torch.float_power, [rn(3, 4).abs() + 0.1, rn(3, 4)])
grad_case("float_power/scalar", "float_power", torch.float_power, [rn(5), 3.0])
g.error("float_power/shape", "float_power", [rn(2, 3), rn(4)], "float_power: cannot broadcast")

# logspace
g.case("logspace/default", "logspace", torch.logspace, [0, 2, 5])
g.case("logspace/float", "logspace", torch.logspace, [-1.5, 2.25, 7])
g.case("logspace/base", "logspace", torch.logspace, [-1, 3.5, 7], {"base": 2.0})
g.case("logspace/float64", "logspace", lambda start, end, steps, dtype: torch.logspace(start, end, steps, dtype=dtype),
       [0.1, 3.3, 9, torch.float64], tref_args=[0.1, 3.3, 9], tref_kwargs={"dtype": "float64"})
g.case("logspace/int64", "logspace", lambda start, end, steps, dtype: torch.logspace(start, end, steps, dtype=dtype),
       [0, 3, 4, torch.int64], tref_args=[0, 3, 4], tref_kwargs={"dtype": "int64"})
g.case("logspace/int64-base", "logspace", lambda start, end, steps, base, dtype: torch.logspace(start, end, steps, base, dtype=dtype),
       [1, 6, 6, 3.0, torch.int64], tref_args=[1, 6, 6], tref_kwargs={"base": 3.0, "dtype": "int64"})
g.case("logspace/one", "logspace", torch.logspace, [2, 3, 1])
g.case("logspace/empty", "logspace", torch.logspace, [2, 3, 0])
g.case("logspace/descending", "logspace", torch.logspace, [3, -2, 6], {"base": 0.5})
g.case("logspace/keywords", "logspace", lambda start, end, steps: torch.logspace(start=start, end=end, steps=steps), [], {"start": 0, "end": 1, "steps": 3})
g.error("logspace/negative", "logspace", [0, 1, -1], "logspace: steps must be non-negative")

# isin
ie = torch.tensor([[1, 2, 3], [4, 5, 6]])
g.case("isin/int", "isin", torch.isin, [ie, torch.tensor([2, 6, 9, 2])])
g.case("isin/invert", "isin", lambda e, t, invert: torch.isin(e, t, invert=invert), [ie, torch.tensor([[2], [6]]), True])
g.case("isin/invert-keyword", "isin", lambda e, t, invert: torch.isin(e, t, invert=invert), [ie, torch.tensor([5, 1])], {"invert": True})
g.case("isin/nan", "isin", torch.isin, [torch.tensor([nan, 1.0, -0.0, inf, 2.5]), torch.tensor([nan, 0.0, inf, 1.0])])
g.case("isin/scalar-test", "isin", torch.isin, [torch.tensor([1, 2]), 2])
g.case("isin/scalar-elements", "isin", torch.isin, [2, torch.tensor([1, 2])])
g.case("isin/float-int", "isin", torch.isin, [torch.tensor([1.5, 2.0, 1.0]), torch.tensor([2, 1])])
g.case("isin/int-float", "isin", torch.isin, [torch.tensor([1, 2]), torch.tensor([1.5, 2.0])])
g.case("isin/empty-test", "isin", torch.isin, [torch.tensor([1.0, nan]), torch.tensor([])])
g.case("isin/empty-elements", "isin", torch.isin, [torch.zeros(0, 3), torch.tensor([1.0])])
g.case("isin/0d", "isin", torch.isin, [torch.tensor(2), torch.tensor([[1, 2]])])
g.case("isin/float64", "isin", torch.isin, [rn(4, 5, dtype=torch.float64).round(), torch.tensor([0.0, 1.0], dtype=torch.float64)])
big = torch.randint(0, 50, (40,))
g.case("isin/unsorted-duplicates", "isin", torch.isin, [torch.arange(-5, 55).reshape(6, 10), big])
g.case("isin/keywords", "isin", lambda elements, test_elements, assume_unique, invert: torch.isin(elements, test_elements, assume_unique=assume_unique, invert=invert),
       [], {"elements": ie, "test_elements": torch.tensor([1, 5]), "assume_unique": True, "invert": False})
g.error("isin/bool", "isin", [torch.tensor([True]), torch.tensor([True])], "isin: bool tensors are not supported")

# isposinf, isneginf
for name, fn in (("isposinf", torch.isposinf), ("isneginf", torch.isneginf)):
    g.case("%s/special" % name, name, fn, [SPECIAL])
    g.case("%s/float64" % name, name, fn, [SPECIAL.double().reshape(2, 7)])
    g.case("%s/int" % name, name, fn, [INTS])
    g.case("%s/bool" % name, name, fn, [torch.tensor([True, False])])

# nansum, nanmean
nx = torch.tensor([[1.0, nan, 3.0, -0.5], [nan, nan, nan, nan], [2.0, -4.0, 0.25, 8.0]])
for name, fn in (("nansum", torch.nansum), ("nanmean", torch.nanmean)):
    g.case("%s/all" % name, name, fn, [nx])
    g.case("%s/dim" % name, name, fn, [nx], {"dim": 1})
    g.case("%s/dim0-keepdim" % name, name, fn, [nx], {"dim": 0, "keepdim": True})
    g.case("%s/dims" % name, name, fn, [nx.reshape(3, 2, 2)], {"dim": [0, -1]})
    g.case("%s/empty-list" % name, name, fn, [nx], {"dim": []})
    g.case("%s/float64" % name, name, fn, [nx.double()], {"dim": -1})
    g.case("%s/inf" % name, name, fn, [torch.tensor([inf, nan, 1.0, -inf])])
    g.case("%s/dtype" % name, name, lambda x, dim, dtype, fn=fn: fn(x, dim, dtype=dtype), [nx, 1, torch.float64],
           tref_args=[nx, 1], tref_kwargs={"dtype": "float64"})
    g.case("%s/method-input" % name, name, lambda input, fn=fn: fn(input), [], {"input": nx})
    # (nanmean's gradient over a slice of NaN alone is NaN in torch, 0 here)
    grad_case(name, name, fn, [nx[[0, 2]]], {"dim": 1})
    grad_case("%s/dim0" % name, name, fn, [nx], {"dim": 0})
    grad_case("%s/all" % name, name, fn, [nx])
    g.error("%s/dim-range" % name, name, [nx, 2], "%s: dimension 2 out of range" % name)
g.case("nansum/int", "nansum", torch.nansum, [ie], {"dim": 0})
g.case("nansum/bool", "nansum", torch.nansum, [torch.tensor([True, False, True])])
g.case("nansum/int-dtype", "nansum", lambda x, dtype: torch.nansum(x, dtype=dtype), [ie, torch.float32], tref_args=[ie], tref_kwargs={"dtype": "float32"})
g.case("nanmean/empty", "nanmean", torch.nanmean, [torch.tensor([])])
g.error("nanmean/int", "nanmean", [ie], "nanmean: expected a floating-point input, got int64")

# instance_norm
ix = rn(2, 3, 4)
iw, ib = rn(3), rn(3)
g.case("instance_norm/plain", "instance_norm", F.instance_norm, [ix], atol=1e-5)
g.case("instance_norm/affine", "instance_norm", F.instance_norm, [rn(2, 3, 2, 3)], {"weight": iw, "bias": ib}, atol=1e-5)
g.case("instance_norm/eps", "instance_norm", F.instance_norm, [ix], {"eps": 0.5})
g.case("instance_norm/float64", "instance_norm", F.instance_norm, [ix.double()], {"weight": iw.double()})
rm, rv = rn(3), rn(3).abs() + 0.5


def instance_norm_stats(x, running_mean, running_var, momentum=0.1):
    m, v = running_mean.clone(), running_var.clone()
    out = F.instance_norm(x, m, v, momentum=momentum)
    return [out, m, v]


g.case("instance_norm/running", "instance_norm", instance_norm_stats, [ix, rm, rv], atol=1e-5)
g.case("instance_norm/running-momentum", "instance_norm", instance_norm_stats, [rn(3, 3, 5), rm, rv], {"momentum": 0.3}, atol=1e-5)
g.case("instance_norm/eval", "instance_norm", F.instance_norm, [ix, rm, rv, iw, ib, False])
g.case("instance_norm/eval-2d", "instance_norm", F.instance_norm, [rn(2, 3)], {"running_mean": rm, "running_var": rv, "use_input_stats": False})
grad_case("instance_norm", "instance_norm", F.instance_norm, [rn(2, 3, 4), None, None, rn(3), rn(3)], {"eps": 1e-3}, atol=1e-4)
grad_case("instance_norm/plain", "instance_norm", F.instance_norm, [rn(2, 2, 5)], atol=1e-4)
grad_case("instance_norm/eval", "instance_norm", F.instance_norm, [rn(2, 3, 4)],
          {"running_mean": rm, "running_var": rv, "weight": rn(3), "bias": rn(3), "use_input_stats": False}, atol=1e-4)
g.error("instance_norm/spatial", "instance_norm", [rn(2, 3)], "instance_norm: expected more than 1 spatial element")
g.error("instance_norm/eval-none", "instance_norm", [rn(2, 3, 4)], "instance_norm: running_mean and running_var must be tensors when use_input_stats is false", {"use_input_stats": False})
g.error("instance_norm/weight", "instance_norm", [rn(2, 3, 4)], "instance_norm: input [2, 3, 4] has 3 channels, but weight has shape [2]", {"weight": torch.ones(2)})
g.error("instance_norm/running-one", "instance_norm", [rn(2, 3, 4), torch.zeros(3)], "instance_norm: running_mean and running_var must both be tensors or both none")
g.error("instance_norm/int", "instance_norm", [torch.ones(2, 3, 4, dtype=torch.int64)], "instance_norm: the input must be floating point")

# margin_ranking_loss
a1, a2 = rn(6), rn(6)
yt = torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
for red in ("mean", "sum", "none"):
    g.case("margin_ranking_loss/%s" % red, "margin_ranking_loss", F.margin_ranking_loss, [a1, a2, yt], {"margin": 0.3, "reduction": red})
g.case("margin_ranking_loss/default", "margin_ranking_loss", F.margin_ranking_loss, [a1, a2, yt])
g.case("margin_ranking_loss/bcast", "margin_ranking_loss", F.margin_ranking_loss, [rn(2, 3), rn(1, 3), torch.tensor([[1.0], [-1.0]])], {"reduction": "none"})
g.case("margin_ranking_loss/float64", "margin_ranking_loss", F.margin_ranking_loss, [a1.double(), a2.double(), yt.double()], {"margin": 0.1})
g.case("margin_ranking_loss/keywords", "margin_ranking_loss", lambda input1, input2, target, margin: F.margin_ranking_loss(input1, input2, target, margin=margin),
       [], {"input1": a1, "input2": a2, "target": yt, "margin": 0.5})
grad_case("margin_ranking_loss", "margin_ranking_loss", F.margin_ranking_loss, [a1, a2, yt], {"margin": 0.2, "reduction": "none"})
# margin - target·(x1 - x2) exactly 0 at the first two: the gradient passes, as torch's clamp_min
grad_case("margin_ranking_loss/boundary", "margin_ranking_loss", F.margin_ranking_loss,
          [torch.tensor([1.5, 0.0, 2.0]), torch.tensor([1.0, 0.5, -1.0]), torch.tensor([1.0, -1.0, 1.0])], {"margin": 0.5, "reduction": "sum"})
g.error("margin_ranking_loss/dims", "margin_ranking_loss", [rn(3), rn(3), rn(1, 3)], "margin_ranking_loss: all input tensors should have the same number of dimensions")
g.error("margin_ranking_loss/reduction", "margin_ranking_loss", [rn(3), rn(3), rn(3)], "margin_ranking_loss: reduction must be", {"reduction": "avg"})
g.error("margin_ranking_loss/size_average", "margin_ranking_loss", [rn(3), rn(3), rn(3)], "margin_ranking_loss: size_average is deprecated", {"size_average": True})

# soft_margin_loss
sx2, sy2 = rn(3, 4), torch.randint(0, 2, (3, 4)).float() * 2 - 1
for red in ("mean", "sum", "none"):
    g.case("soft_margin_loss/%s" % red, "soft_margin_loss", F.soft_margin_loss, [sx2, sy2], {"reduction": red})
g.case("soft_margin_loss/bcast", "soft_margin_loss", F.soft_margin_loss, [sx2, sy2[0]], {"reduction": "none"})
g.case("soft_margin_loss/int-target", "soft_margin_loss", F.soft_margin_loss, [rn(3), torch.tensor([1, -1, 1])])
g.case("soft_margin_loss/large", "soft_margin_loss", F.soft_margin_loss, [torch.tensor([30.0, -30.0, 80.0]), torch.tensor([1.0, 1.0, -1.0])], {"reduction": "none"})
# torch does not differentiate soft_margin_loss with respect to the target
grad_case("soft_margin_loss", "soft_margin_loss", F.soft_margin_loss, [sx2, sy2.long()])
grad_case("soft_margin_loss/sum", "soft_margin_loss", F.soft_margin_loss, [sx2, sy2.long()], {"reduction": "sum"})
g.error("soft_margin_loss/bcast-up", "soft_margin_loss", [rn(3), rn(2, 3)], "soft_margin_loss: the target's shape [2, 3] does not broadcast to the input's [3]")

# hinge_embedding_loss
hx2 = torch.tensor([0.5, 2.0, -1.0, 3.0, 1.0, 0.25])
hy2 = torch.tensor([1.0, -1.0, -1.0, 0.0, -1.0, 2.0])
for red in ("mean", "sum", "none"):
    g.case("hinge_embedding_loss/%s" % red, "hinge_embedding_loss", F.hinge_embedding_loss, [hx2, hy2], {"reduction": red})
g.case("hinge_embedding_loss/margin", "hinge_embedding_loss", F.hinge_embedding_loss, [rn(3, 4), torch.randint(0, 2, (3, 4)).float() * 2 - 1], {"margin": 0.5})
g.case("hinge_embedding_loss/bcast", "hinge_embedding_loss", F.hinge_embedding_loss, [rn(2, 3), torch.tensor([1.0, -1.0, 1.0])], {"reduction": "none"})
g.case("hinge_embedding_loss/int-target", "hinge_embedding_loss", F.hinge_embedding_loss, [hx2, torch.tensor([1, -1, -1, 1, -1, 1])], {"reduction": "none"})
grad_case("hinge_embedding_loss", "hinge_embedding_loss", F.hinge_embedding_loss, [hx2, hy2], {"reduction": "none"})
grad_case("hinge_embedding_loss/margin-edge", "hinge_embedding_loss", F.hinge_embedding_loss, [torch.tensor([1.0, 0.5, 1.5]), torch.tensor([-1.0, -1.0, -1.0])], {"margin": 1.0})

# cosine_embedding_loss
c1, c2 = rn(4, 5), rn(4, 5)
cy = torch.tensor([1.0, -1.0, -1.0, 0.0])
for red in ("mean", "sum", "none"):
    g.case("cosine_embedding_loss/%s" % red, "cosine_embedding_loss", F.cosine_embedding_loss, [c1, c2, cy], {"margin": 0.1, "reduction": red})
g.case("cosine_embedding_loss/1d", "cosine_embedding_loss", F.cosine_embedding_loss, [rn(5), rn(5), torch.tensor(-1.0)], {"margin": -0.5})
g.case("cosine_embedding_loss/bcast", "cosine_embedding_loss", F.cosine_embedding_loss, [c1, c2[:1], cy], {"reduction": "none"})
g.case("cosine_embedding_loss/int-target", "cosine_embedding_loss", F.cosine_embedding_loss, [c1, c2, torch.tensor([1, -1, 1, -1])], {"reduction": "none"})
g.case("cosine_embedding_loss/zeros", "cosine_embedding_loss", F.cosine_embedding_loss, [torch.zeros(2, 3), torch.ones(2, 3), torch.tensor([1.0, -1.0])], {"reduction": "none"})
g.case("cosine_embedding_loss/float64", "cosine_embedding_loss", F.cosine_embedding_loss, [c1.double(), c2.double(), cy.double()])
grad_case("cosine_embedding_loss", "cosine_embedding_loss", F.cosine_embedding_loss, [c1, c2, cy], {"margin": -0.2}, atol=1e-4)
g.error("cosine_embedding_loss/3d", "cosine_embedding_loss", [rn(2, 3, 4), rn(2, 3, 4), rn(2)], "cosine_embedding_loss: a 1-d target expects 2-d inputs")
g.error("cosine_embedding_loss/0d", "cosine_embedding_loss", [rn(2, 4), rn(2, 4), torch.tensor(1.0)], "cosine_embedding_loss: a 0-d target expects 1-d inputs")
g.error("cosine_embedding_loss/2d-target", "cosine_embedding_loss", [rn(2, 4), rn(2, 4), rn(2, 1)], "cosine_embedding_loss: expected a 0-d or 1-d target")

# triplet_margin_loss
ta, tp, tn = rn(4, 5), rn(4, 5), rn(4, 5)
for red in ("mean", "sum", "none"):
    g.case("triplet_margin_loss/%s" % red, "triplet_margin_loss", F.triplet_margin_loss, [ta, tp, tn], {"reduction": red})
g.case("triplet_margin_loss/p1-swap", "triplet_margin_loss", F.triplet_margin_loss, [ta, tp, tn], {"p": 1.0, "swap": True, "margin": 2.0, "reduction": "none"})
g.case("triplet_margin_loss/eps", "triplet_margin_loss", F.triplet_margin_loss, [ta, tp, tn], {"eps": 0.1, "margin": 0.5})
g.case("triplet_margin_loss/1d", "triplet_margin_loss", F.triplet_margin_loss, [rn(5), rn(5), rn(5)], {"margin": 3.0})
g.case("triplet_margin_loss/3d", "triplet_margin_loss", F.triplet_margin_loss, [rn(2, 3, 4), rn(2, 3, 4), rn(2, 3, 4)], {"margin": 3.0, "reduction": "none"})
g.case("triplet_margin_loss/bcast", "triplet_margin_loss", F.triplet_margin_loss, [ta, tp[:1], tn], {"margin": 3.0, "reduction": "none"})
g.case("triplet_margin_loss/keywords", "triplet_margin_loss", lambda anchor, positive, negative: F.triplet_margin_loss(anchor, positive, negative), [], {"anchor": ta, "positive": tp, "negative": tn})
grad_case("triplet_margin_loss", "triplet_margin_loss", F.triplet_margin_loss, [ta, tp, tn], {"margin": 3.0}, atol=1e-4)
grad_case("triplet_margin_loss/swap", "triplet_margin_loss", F.triplet_margin_loss, [ta, tp, tn], {"margin": 3.0, "swap": True, "p": 3.0}, atol=1e-4)
g.error("triplet_margin_loss/dims", "triplet_margin_loss", [rn(2, 4), rn(4), rn(2, 4)], "triplet_margin_loss: all inputs should have the same number of dimensions, got 2D, 1D and 2D inputs")

# poisson_nll_loss
px = rn(3, 4)
pt = torch.tensor([[0.0, 1.0, 2.0, 5.0], [0.5, 3.0, 1.5, 10.0], [4.0, 0.0, 7.0, 1.0]])
for red in ("mean", "sum", "none"):
    g.case("poisson_nll_loss/%s" % red, "poisson_nll_loss", F.poisson_nll_loss, [px, pt], {"reduction": red})
g.case("poisson_nll_loss/full", "poisson_nll_loss", F.poisson_nll_loss, [px, pt], {"full": True, "reduction": "none"})
g.case("poisson_nll_loss/rate", "poisson_nll_loss", F.poisson_nll_loss, [px.abs() + 0.1, pt], {"log_input": False, "reduction": "none"})
g.case("poisson_nll_loss/rate-eps", "poisson_nll_loss", F.poisson_nll_loss, [torch.tensor([0.0, 1.0, 2.0]), torch.tensor([1.0, 2.0, 0.0])], {"log_input": False, "eps": 0.5, "full": True})
g.case("poisson_nll_loss/int-target", "poisson_nll_loss", F.poisson_nll_loss, [rn(3), torch.tensor([1, 2, 3])], {"full": True, "reduction": "none"})
g.case("poisson_nll_loss/bcast", "poisson_nll_loss", F.poisson_nll_loss, [px, pt[0]], {"reduction": "none"})
grad_case("poisson_nll_loss", "poisson_nll_loss", F.poisson_nll_loss, [px, pt + 0.5], {"full": True})
grad_case("poisson_nll_loss/rate", "poisson_nll_loss", F.poisson_nll_loss, [px.abs() + 0.1, pt + 0.5], {"log_input": False, "full": True, "reduction": "sum"})

# gaussian_nll_loss
gx, gt = rn(3, 4), rn(3, 4)
gv = torch.tensor([[0.5, 1.0, 2.0, 1e-8], [0.0, 3.0, 0.25, 1.0], [1.0, 1e-7, 4.0, 0.5]])
for red in ("mean", "sum", "none"):
    g.case("gaussian_nll_loss/%s" % red, "gaussian_nll_loss", F.gaussian_nll_loss, [gx, gt, gv], {"reduction": red})
g.case("gaussian_nll_loss/full", "gaussian_nll_loss", F.gaussian_nll_loss, [gx, gt, gv], {"full": True, "eps": 1e-3, "reduction": "none"})
g.case("gaussian_nll_loss/row-var", "gaussian_nll_loss", F.gaussian_nll_loss, [gx, gt, torch.tensor([0.5, 1.0, 2.0])], {"reduction": "none"})
g.case("gaussian_nll_loss/last-1", "gaussian_nll_loss", F.gaussian_nll_loss, [gx, gt, torch.tensor([[0.5], [1.0], [2.0]])], {"reduction": "none"})
g.case("gaussian_nll_loss/0d-var", "gaussian_nll_loss", F.gaussian_nll_loss, [rn(3), rn(3), torch.tensor(2.0)], {"reduction": "none"})
g.case("gaussian_nll_loss/target-bcast", "gaussian_nll_loss", F.gaussian_nll_loss, [gx, gt[0], gv], {"reduction": "none"})
g.case("gaussian_nll_loss/float64", "gaussian_nll_loss", F.gaussian_nll_loss, [gx.double(), gt.double(), gv.double()])
grad_case("gaussian_nll_loss", "gaussian_nll_loss", F.gaussian_nll_loss, [gx, gt, gv + 0.1], atol=1e-4)
# var below eps is clamped in value; its gradient passes as if it were not.
grad_case("gaussian_nll_loss/clamped", "gaussian_nll_loss", F.gaussian_nll_loss,
          [torch.tensor([0.5, 0.1, 1.0]), torch.tensor([0.0, 0.2, 0.5]), torch.tensor([1e-8, 0.0, 1.0])], {"eps": 1e-2, "reduction": "sum"}, atol=1e-3, rtol=1e-5)
grad_case("gaussian_nll_loss/row-var", "gaussian_nll_loss", F.gaussian_nll_loss, [gx, gt, torch.tensor([0.5, 1.0, 2.0])], atol=1e-4)
g.error("gaussian_nll_loss/size", "gaussian_nll_loss", [rn(2, 3), rn(2, 3), rn(3)], "gaussian_nll_loss: var of shape [3] is of incorrect size")
g.error("gaussian_nll_loss/negative", "gaussian_nll_loss", [rn(2, 3), rn(2, 3), -torch.ones(2, 3)], "gaussian_nll_loss: var has negative entries")
g.error("gaussian_nll_loss/reduction", "gaussian_nll_loss", [rn(2, 3), rn(2, 3), torch.ones(2, 3)], "gaussian_nll_loss: reduction must be", {"reduction": "avg"})

# multilabel_soft_margin_loss
mx, my = rn(3, 5), torch.randint(0, 2, (3, 5)).float()
for red in ("mean", "sum", "none"):
    g.case("multilabel_soft_margin_loss/%s" % red, "multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [mx, my], {"reduction": red})
g.case("multilabel_soft_margin_loss/weight", "multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [mx, my], {"weight": rn(5).abs(), "reduction": "none"})
g.case("multilabel_soft_margin_loss/1d", "multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [rn(4), torch.tensor([1.0, 0.0, 0.0, 1.0])], {"reduction": "none"})
g.case("multilabel_soft_margin_loss/3d", "multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [rn(2, 3, 4), torch.randint(0, 2, (2, 3, 4)).float()], {"reduction": "none"})
g.case("multilabel_soft_margin_loss/int-target", "multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [mx, my.long()], {"reduction": "none"})
g.case("multilabel_soft_margin_loss/large", "multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [torch.tensor([[100.0, -100.0, 0.0]]), torch.tensor([[0.0, 1.0, 1.0]])])
grad_case("multilabel_soft_margin_loss", "multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [mx, my], {"weight": rn(5)})
grad_case("multilabel_soft_margin_loss/soft-target", "multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [torch.tensor([[0.0, 1.0, -2.0]]), torch.tensor([[0.3, 0.5, 1.0]])])
g.error("multilabel_soft_margin_loss/0d", "multilabel_soft_margin_loss", [torch.tensor(1.0), torch.tensor(1.0)], "multilabel_soft_margin_loss: expected an input of shape [..., C]")

# multi_margin_loss
qx, qy = rn(4, 5), torch.tensor([0, 4, 2, 2])
for red in ("mean", "sum", "none"):
    g.case("multi_margin_loss/%s" % red, "multi_margin_loss", F.multi_margin_loss, [qx, qy], {"reduction": red})
g.case("multi_margin_loss/p2-margin", "multi_margin_loss", F.multi_margin_loss, [qx, qy], {"p": 2, "margin": 0.5, "reduction": "none"})
g.case("multi_margin_loss/weight", "multi_margin_loss", F.multi_margin_loss, [qx, qy], {"weight": rn(5).abs()})
g.case("multi_margin_loss/1d", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([0.1, 0.5, 0.2]), torch.tensor([1])], {"reduction": "none"})
g.case("multi_margin_loss/1d-0d-target", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([0.1, 0.5, 0.2]), torch.tensor(1)], {"reduction": "none"})
g.case("multi_margin_loss/0d", "multi_margin_loss", F.multi_margin_loss, [torch.tensor(1.0), torch.tensor(0)])
g.case("multi_margin_loss/float64", "multi_margin_loss", F.multi_margin_loss, [qx.double(), qy], {"p": 2})
g.case("multi_margin_loss/positional", "multi_margin_loss", F.multi_margin_loss, [qx, qy, 2, 0.75])
grad_case("multi_margin_loss", "multi_margin_loss", F.multi_margin_loss, [qx, qy])
grad_case("multi_margin_loss/p2-weight", "multi_margin_loss", F.multi_margin_loss, [qx, qy], {"p": 2, "weight": rn(5).abs(), "reduction": "none"})
# margin - x[y] + x[i] exactly 0 for i = 1: no gradient there, as torch (z > 0)
grad_case("multi_margin_loss/boundary", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([[1.5, 0.5, 0.0]]), torch.tensor([0])])
g.error("multi_margin_loss/p", "multi_margin_loss", [qx, qy], "multi_margin_loss: only p == 1 and p == 2 are supported", {"p": 3})
g.error("multi_margin_loss/range", "multi_margin_loss", [qx, torch.tensor([0, 5, 1, 1])], "multi_margin_loss: target out of range")
g.error("multi_margin_loss/negative", "multi_margin_loss", [qx, torch.tensor([0, -1, 1, 1])], "multi_margin_loss: target out of range")
g.error("multi_margin_loss/target-size", "multi_margin_loss", [qx, torch.tensor([0, 1])], "multi_margin_loss: inconsistent target size [2]")
g.error("multi_margin_loss/float-target", "multi_margin_loss", [qx, torch.tensor([0.0, 1.0, 1.0, 1.0])], "multi_margin_loss: the target must be int64")
g.error("multi_margin_loss/3d", "multi_margin_loss", [rn(2, 3, 4), torch.tensor([0, 1])], "multi_margin_loss: expected a non-empty vector or matrix")
g.error("multi_margin_loss/weight-2d", "multi_margin_loss", [qx, qy], "multi_margin_loss: weight must be one-dimensional", {"weight": torch.ones(2, 5)})


# Review fixes (appended so the random inputs above stay as they were).
# isin: a NaN among the test elements hides none of the others
g.case("isin/nan-test", "isin", torch.isin, [torch.tensor([1.0, 3.0]), torch.tensor([1.0, nan])])
g.case("isin/nan-test-many", "isin", torch.isin, [torch.tensor([nan, -inf, 0.5, 2.0, 7.0, inf, 3.0, 8.0]), torch.tensor([nan, 2.0, nan, 7.0, -inf, nan, 0.5, nan, 8.0])])
g.case("isin/nan-test-invert", "isin", lambda e, t, invert: torch.isin(e, t, invert=invert), [torch.tensor([1.0, 3.0, nan]), torch.tensor([nan, 3.0]), True])
g.case("isin/all-nan-test", "isin", torch.isin, [torch.tensor([1.0, nan, inf]), torch.tensor([nan, nan])])
g.case("isin/nan-test-int-elements", "isin", torch.isin, [torch.tensor([1, 2, 3]), torch.tensor([nan, 2.0, 1.5], dtype=torch.float64)])
# logspace: integer dtypes step in float64 from the truncated ends and
# raise the float32 base; float32 takes end - start in float32
g.case("logspace/int64-wide", "logspace", lambda start, end, steps, dtype: torch.logspace(start, end, steps, dtype=dtype),
       [0, 10, 7, torch.int64], tref_args=[0, 10, 7], tref_kwargs={"dtype": "int64"})
g.case("logspace/int64-base-1.3", "logspace", lambda start, end, steps, base, dtype: torch.logspace(start, end, steps, base, dtype=dtype),
       [1, 50, 11, 1.3, torch.int64], tref_args=[1, 50, 11], tref_kwargs={"base": 1.3, "dtype": "int64"})
g.case("logspace/int32-float-ends", "logspace", lambda start, end, steps, dtype: torch.logspace(start, end, steps, dtype=dtype),
       [0.9, 9.7, 8, torch.int32], tref_args=[0.9, 9.7, 8], tref_kwargs={"dtype": "int32"})
g.case("logspace/float32-ulp", "logspace", torch.logspace, [0.1, 3.3, 9], rtol=0.0, atol=0.0)
g.case("logspace/float32-ulp-base", "logspace", torch.logspace, [-2.3, 4.1, 13], {"base": 3.0}, rtol=0.0, atol=0.0)
# nansum: an integer dtype for a floating input is an error, as torch's
# "not implemented for 'Long'"
g.error("nansum/float-int-dtype", "nansum", [torch.tensor([1.0, nan])], "nansum: dtype must be floating point, got int64", {"dtype": "int64"})
g.error("nansum/float-bool-dtype", "nansum", [torch.tensor([1.0, nan])], "nansum: dtype must be floating point, got bool", {"dtype": "bool"})
g.case("nansum/int-int-dtype", "nansum", lambda x, dtype: torch.nansum(x, dtype=dtype), [ie, torch.int32], tref_args=[ie], tref_kwargs={"dtype": "int32"})
# multi_margin_loss: only z > 0 adds a term, so a NaN z adds none; a 0-d
# target gives a 0-d result
g.case("multi_margin_loss/nan", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([[0.1, nan, 0.3]]), torch.tensor([0])], {"reduction": "none"})
g.case("multi_margin_loss/nan-target-class", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([[nan, 0.2, 0.3], [0.5, nan, 0.1]]), torch.tensor([0, 0])], {"reduction": "none"})
g.case("multi_margin_loss/nan-p2-weight", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([[0.1, nan, 0.3], [nan, 0.2, 0.9]]), torch.tensor([2, 1])], {"p": 2, "weight": torch.tensor([0.5, 2.0, 1.5])})
grad_case("multi_margin_loss/nan", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([[0.1, nan, 0.3], [0.4, -0.2, 0.6]]), torch.tensor([0, 2])], {"reduction": "none"})
g.case("multi_margin_loss/row-0d-target", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([[0.1, 0.5, 0.2]]), torch.tensor(1)], {"reduction": "none"})
g.case("multi_margin_loss/row-0d-target-mean", "multi_margin_loss", F.multi_margin_loss, [torch.tensor([[0.1, 0.5, 0.2]]), torch.tensor(1)])
g.case("multi_margin_loss/0d-1d-target", "multi_margin_loss", F.multi_margin_loss, [torch.tensor(1.0), torch.tensor([0])], {"reduction": "none"})

g.write()
