"""Gradient goldens: for each case, torch autograd's gradients of
sum(f(args...) * w) with respect to every float tensor argument, replayed
by stdlib's test builtin vjp_of_sum(name, w, args...), which differentiates
the tref builtin `name` with grad. Broadcasting, reductions over dims and
keepdim, the nn family and the losses are covered."""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(0)
g = Golden("grad")


def rn(*shape):
    return torch.randn(*shape, dtype=torch.float32)


def pos(*shape):
    return torch.rand(*shape, dtype=torch.float32) * 2 + 0.5


def ints(hi, *shape):
    return torch.randint(0, hi, shape, dtype=torch.int64)


def case(label, name, fn, args, kwargs=None, torch_kwargs=None, atol=2e-5):
    """fn(*args, **torch_kwargs) in torch; name(*args, **kwargs) in tref."""
    kwargs = kwargs or {}
    tk = kwargs if torch_kwargs is None else torch_kwargs
    xs = [a.clone().requires_grad_() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
    out = fn(*xs, **tk)
    w = torch.randn(tuple(out.shape), dtype=torch.float32)
    (out * w).sum().backward()
    grads = [x.grad for x in xs if isinstance(x, torch.Tensor) and x.is_floating_point()]
    g.case(label, "vjp_of_sum", lambda *a, **k: grads, [name, w] + list(args), kwargs, atol=atol)


# elementwise, with broadcasting
for name, fn in [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("maximum", torch.maximum), ("minimum", torch.minimum)]:
    case(name + "/bcast", name, fn, [rn(2, 3, 4), rn(3, 1)])
case("div/bcast", "div", torch.div, [rn(2, 3), pos(3)])
case("pow", "pow", torch.pow, [pos(2, 3), rn(2, 3)])
case("atan2/bcast", "atan2", torch.atan2, [rn(2, 3), rn(3)])
for name, fn in [("exp", torch.exp), ("sin", torch.sin), ("cos", torch.cos), ("tanh", torch.tanh), ("sigmoid", torch.sigmoid),
                 ("relu", torch.relu), ("gelu", F.gelu), ("silu", F.silu), ("abs", torch.abs), ("neg", torch.neg), ("erf", torch.erf)]:
    case(name, name, fn, [rn(3, 4)])
for name, fn in [("log", torch.log), ("sqrt", torch.sqrt), ("rsqrt", torch.rsqrt)]:
    case(name, name, fn, [pos(3, 4)])
case("clamp", "clamp", torch.clamp, [rn(3, 4)], {"min": -0.5, "max": 0.7})
case("where", "where", torch.where, [rn(3, 4) > 0, rn(3, 4), rn(4)])
# reductions
case("sum/dims_keepdim", "sum", torch.sum, [rn(2, 3, 4)], {"dim": [0, 2], "keepdim": True})
case("mean/dim", "mean", torch.mean, [rn(2, 3, 4)], {"dim": 1})
case("mean/all", "mean", torch.mean, [rn(2, 3)])
case("var/dim", "var", torch.var, [rn(3, 5)], {"dim": 1})
case("std/dim_keepdim", "std", torch.std, [rn(3, 5)], {"dim": 0, "keepdim": True})
case("prod/dim", "prod", torch.prod, [rn(3, 4)], {"dim": 1})
case("amax/dims", "max", lambda x, dim: torch.amax(x, dim=dim), [rn(3, 4, 2)], {"dim": [0, 2]})
case("logsumexp", "logsumexp", torch.logsumexp, [rn(3, 4)], {"dim": 1})
# linear algebra
case("matmul/batch_bcast", "matmul", torch.matmul, [rn(2, 1, 3, 4), rn(3, 4, 5)])
case("matmul/vec", "matmul", torch.matmul, [rn(4), rn(2, 4, 3)])
case("linear", "linear", F.linear, [rn(5, 3), rn(4, 3), rn(4)])
case("outer", "outer", torch.outer, [rn(3), rn(4)])
# nn
case("softmax", "softmax", F.softmax, [rn(3, 5)], {"dim": 1})
case("log_softmax", "log_softmax", F.log_softmax, [rn(3, 5)], {"dim": 0})
case("layer_norm", "layer_norm", lambda x, w, b: F.layer_norm(x, (6,), w, b), [rn(2, 3, 6), rn(6), rn(6)])
case("embedding", "embedding", F.embedding, [ints(7, 2, 3), rn(7, 4)])
case("cross_entropy", "cross_entropy", F.cross_entropy, [rn(6, 5), ints(5, 6)])
case("cross_entropy/smoothing_weight", "cross_entropy", F.cross_entropy, [rn(6, 5), ints(5, 6)], {"weight": pos(5), "label_smoothing": 0.1})
case("mse", "mse", F.mse_loss, [rn(3, 4), rn(4)])
case("conv2d", "conv2d", F.conv2d, [rn(2, 3, 6, 6), rn(4, 3, 3, 3), rn(4)], {"stride": 2, "padding": 1})
case("max_pool2d", "max_pool2d", F.max_pool2d, [rn(2, 3, 6, 6), 2])
case("avg_pool2d", "avg_pool2d", F.avg_pool2d, [rn(2, 3, 6, 6), 3], {"stride": 2, "padding": 1})


def sdpa(q, k, v, causal=False):
    s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if causal:
        n, m = s.shape[-2:]
        s = s.masked_fill(torch.ones(n, m, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v


case("attention/causal", "attention", sdpa, [rn(2, 4, 8), rn(2, 4, 8), rn(2, 4, 8)], {"causal": True})
# max/min over one dim: the gradient goes to the returned index (the first
# of tied extrema), where amax shares it among them
ties = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 1.0], [5.0, 1.0, 5.0, 5.0]])
case("max/dim_ties", "max.values", lambda x, dim: torch.max(x, dim=dim).values, [ties], {"dim": 1})
case("max/dim0_ties_keepdim", "max.values", lambda x, dim, keepdim: torch.max(x, dim=dim, keepdim=keepdim).values, [ties], {"dim": 0, "keepdim": True})
case("min/dim_ties", "min.values", lambda x, dim: torch.min(x, dim=dim).values, [-ties], {"dim": -1})
case("amax/ties", "max", lambda x, dim: torch.amax(x, dim=dim), [ties], {"dim": [1]})
# the fused backward kernels over a middle dim, and attention's weights
# recomputed under broadcasting
case("softmax/dim_middle", "softmax", F.softmax, [rn(2, 4, 3)], {"dim": 1})
case("log_softmax/dim_last3d", "log_softmax", F.log_softmax, [rn(2, 3, 5)], {"dim": -1})
case("attention/bcast", "attention", sdpa, [rn(2, 3, 5, 4), rn(1, 6, 4), rn(3, 6, 2)])
# the fused norm kernels: rms_norm (torch 1.13 has none: written out) and
# layer_norm without weight and bias
case("rms_norm", "rms_norm", lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w, [rn(3, 2, 5), rn(5)], {"eps": 1e-6}, torch_kwargs={})
case("layer_norm/plain", "layer_norm", lambda x: F.layer_norm(x, (4,)), [rn(5, 4)])
# the composed functions of stdlib/nnfunc.go: hardtanh's gradient is 0 at
# its bounds (unlike clamp's), cosine_similarity does not differentiate
# its clamp, lerp's two formulas, log1p and friends
edges = torch.tensor([-2.0, -1.0, -0.5, 0.0, 1.0, 3.0, 6.0, 7.0])
case("hardtanh/edges", "hardtanh", F.hardtanh, [edges])
case("relu6/edges", "relu6", F.relu6, [edges])
case("cosine_similarity", "cosine_similarity", F.cosine_similarity, [rn(3, 4), rn(3, 4)])
case("cosine_similarity/tiny", "cosine_similarity", F.cosine_similarity, [rn(2, 3) * 1e-9, rn(2, 3)], {"dim": 1})
case("normalize", "normalize", F.normalize, [rn(3, 4)], {"dim": 0})
for name, fn in [("logsigmoid", F.logsigmoid), ("mish", F.mish), ("selu", F.selu)]:
    case(name, name, fn, [rn(3, 4) * 3])
case("logaddexp", "logaddexp", torch.logaddexp, [rn(3, 4), rn(4)])
case("lerp/tensor", "lerp", torch.lerp, [rn(2, 5), rn(2, 5), torch.tensor([0.1, 0.4, 0.5, 0.9, -0.7])])
case("lerp/scalar", "lerp", torch.lerp, [rn(2, 5), rn(2, 5), 0.75])
case("glu", "glu", F.glu, [rn(3, 4)])
case("addmm", "addmm", torch.addmm, [rn(3), rn(2, 4), rn(4, 3)], {"beta": 0.5, "alpha": 2.0})
case("diff", "diff", torch.diff, [rn(3, 5)], {"n": 2})
case("diag/vector", "diag", torch.diag, [rn(3), 1])
case("diag/matrix", "diag", torch.diag, [rn(3, 4), -1])
case("repeat_interleave/int", "repeat_interleave", torch.repeat_interleave, [rn(2, 3), 2], {"dim": 1})
case("repeat_interleave/counts", "repeat_interleave", torch.repeat_interleave, [rn(3, 2), torch.tensor([2, 0, 1])], {"dim": 0})
case("pixel_shuffle", "pixel_shuffle", F.pixel_shuffle, [rn(1, 8, 2, 3), 2])
case("max_pool1d", "max_pool1d", F.max_pool1d, [rn(2, 3, 8), 3], {"stride": 2, "padding": 1})
case("avg_pool1d", "avg_pool1d", F.avg_pool1d, [rn(2, 3, 8), 3], {"stride": 2})
case("kl_div", "kl_div", F.kl_div, [F.log_softmax(rn(3, 4), dim=1), F.softmax(rn(3, 4), dim=1)], {"reduction": "batchmean"})
case("interpolate/nearest", "interpolate", F.interpolate, [rn(1, 2, 3, 4)], {"scale_factor": 1.5})
case("interpolate/bilinear", "interpolate", F.interpolate, [rn(1, 2, 3, 4)], {"size": [5, 7], "mode": "bilinear"})
case("interpolate/bilinear-align", "interpolate", F.interpolate, [rn(1, 2, 5, 4)], {"size": [3, 7], "mode": "bilinear", "align_corners": True})
for name, fn in [("log1p", torch.log1p), ("expm1", torch.expm1), ("log2", torch.log2), ("log10", torch.log10), ("reciprocal", torch.reciprocal)]:
    case(name, name, fn, [pos(2, 3)])
# scatter_reduce without x's own elements: the replaced ones get no
# cotangent; a mean counts src's values only
for red in ["sum", "mean", "amax", "amin"]:
    case("scatter_reduce/%s-replace" % red, "scatter_reduce", torch.scatter_reduce,
         [rn(3, 6), 1, ints(4, 3, 5), rn(3, 5), red], {"include_self": False})
# prod: the product of the other factors, zeros among them (x's and src's
# at position 0, two of src's at 1, one at 2, x's alone at 3)
case("scatter_reduce/prod", "scatter_reduce", torch.scatter_reduce, [rn(3, 6), 1, ints(6, 3, 5), rn(3, 5), "prod"])
case("scatter_reduce/prod-replace", "scatter_reduce", torch.scatter_reduce,
     [rn(6, 3), 0, ints(6, 5, 3), rn(5, 3), "prod"], {"include_self": False})
case("scatter_reduce/prod-zeros", "scatter_reduce", torch.scatter_reduce,
     [torch.tensor([0.0, 2.0, 0.5, 0.0]), 0, torch.arange(8) // 2, torch.tensor([1.5, 0.0, 0.0, 0.0, 0.0, 0.7, 2.0, 3.0]), "prod"])
# det, inverse and solve, through solves with the transpose
def wc(*shape):
    return torch.eye(shape[-1]) * 2 + rn(*shape) * 0.5


case("det", "det", torch.det, [wc(3, 3)], atol=1e-4)
case("det/batch", "det", torch.det, [wc(2, 4, 4)], atol=1e-4)
case("inverse", "inverse", torch.inverse, [wc(3, 3)], atol=1e-4)
case("solve", "solve", torch.linalg.solve, [wc(3, 3), rn(3, 2)], atol=1e-4)
case("solve/broadcast-vector", "solve", torch.linalg.solve, [wc(2, 3, 3), rn(3)], atol=1e-4)
g.write()
