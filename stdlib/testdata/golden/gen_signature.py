"""Torch's signatures, one row per builtin that mirrors a torch function:
/usr/bin/python3 gen_signature.py

Each row calls the builtin twice, with every argument it shares with
torch positionally in torch's order and then by torch's keyword names, and
torch computes the expected result from the same call. A builtin whose
parameter order or names differ from torch's fails here. Parameters torch
has and tref lacks (alpha=, out=, inplace=, memory_format=, ...) are left
out of the rows; tref's own spellings remain accepted beside torch's
(layer_norm(x, w, b), x=, w=, b=).
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(13)
g = Golden("signature")


def randn(*shape):
    return torch.randn(shape, dtype=torch.float64).float()


x = randn(3, 4)
y = randn(3, 4)
pos = torch.rand(3, 4) + 0.5
img = randn(2, 3, 6, 6)
seq = randn(2, 3, 8)
ids = torch.tensor([[1, 0, 3], [2, 2, 1]])
logits = randn(4, 5)
target = torch.tensor([1, 0, 4, 2])


def row(name, fn, params, *, tref=None, kwonly=()):
    """params: (torch name, value) in torch's order; kwonly: the names
    torch accepts only as keywords (passed so in the positional call too)."""
    args = [v for k, v in params if k not in kwonly]
    kwargs = {k: v for k, v in params}
    g.case("%s/positional" % name, tref or name, lambda *a, **k: fn(*a, **k), args, {k: kwargs[k] for k in kwonly})
    g.case("%s/keywords" % name, tref or name, lambda **k: fn(**k), [], kwargs)


# elementwise
for op in ("add", "sub", "mul", "div", "maximum", "minimum", "pow", "remainder", "floor_divide", "eq", "lt", "ge"):
    tref = {"remainder": "mod", "floor_divide": "floordiv"}.get(op, op)
    other = pos if op in ("pow", "remainder", "floor_divide") else y
    row("%s" % op, getattr(torch, op), [("input", pos if op == "pow" else x), ("exponent" if op == "pow" else "other", other)], tref=tref)
for op in ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu"):
    row(op, getattr(torch, op), [("input", pos)])
row("gelu", F.gelu, [("input", x), ("approximate", "tanh")], kwonly=("approximate",))
row("clamp", torch.clamp, [("input", x), ("min", -0.5), ("max", 0.5)])
row("where", torch.where, [("condition", x > 0), ("input", x), ("other", y)])
row("allclose", lambda input, other, rtol, atol, equal_nan: torch.tensor(torch.allclose(input, other, rtol, atol, equal_nan)),
    [("input", x), ("other", x + 1e-7), ("rtol", 1e-5), ("atol", 1e-8), ("equal_nan", False)])
# reductions
for op in ("sum", "mean", "prod"):
    row(op, getattr(torch, op), [("input", x), ("dim", 1), ("keepdim", True)])
row("max", lambda input, dim, keepdim: list(torch.max(input, dim, keepdim)), [("input", x), ("dim", 1), ("keepdim", True)])
row("argmax", torch.argmax, [("input", x), ("dim", 0), ("keepdim", True)])
row("var", torch.var, [("input", x), ("dim", 1), ("unbiased", False), ("keepdim", True)])
row("std", torch.std, [("input", x), ("dim", 0), ("unbiased", True), ("keepdim", False)])
row("cumsum", torch.cumsum, [("input", x), ("dim", 1)])
row("logsumexp", torch.logsumexp, [("input", x), ("dim", 1), ("keepdim", True)])
# shapes
row("reshape", torch.reshape, [("input", x), ("shape", [4, 3])])
row("transpose", torch.transpose, [("input", x), ("dim0", 0), ("dim1", 1)])
row("permute", torch.permute, [("input", img), ("dims", [0, 2, 3, 1])])
row("squeeze", torch.squeeze, [("input", x[None]), ("dim", 0)])
row("unsqueeze", torch.unsqueeze, [("input", x), ("dim", 1)])
row("flatten", torch.flatten, [("input", img), ("start_dim", 1), ("end_dim", 2)])
row("cat", torch.cat, [("tensors", [x, y]), ("dim", 1)])
row("stack", torch.stack, [("tensors", [x, y]), ("dim", 1)])
row("split", lambda tensor, split_size_or_sections, dim: list(torch.split(tensor, split_size_or_sections, dim)),
    [("tensor", x), ("split_size_or_sections", 2), ("dim", 1)])
row("chunk", lambda input, chunks, dim: list(torch.chunk(input, chunks, dim)), [("input", x), ("chunks", 3), ("dim", 0)])
row("gather", torch.gather, [("input", x), ("dim", 1), ("index", torch.tensor([[0, 3], [1, 1], [2, 0]]))])
row("index_select", torch.index_select, [("input", x), ("dim", 1), ("index", torch.tensor([3, 0]))])
row("masked_fill", torch.masked_fill, [("input", x), ("mask", x > 0), ("value", 0.5)])
row("one_hot", F.one_hot, [("input", torch.tensor([0, 2, 1])), ("num_classes", 4)])
row("topk", lambda input, k, dim, largest, sorted: list(torch.topk(input, k, dim, largest, sorted)),
    [("input", x), ("k", 2), ("dim", 1), ("largest", False), ("sorted", True)])
# linear algebra
row("matmul", torch.matmul, [("input", x), ("other", y.t())])
row("outer", torch.outer, [("input", x[0]), ("vec2", y[0])])
row("bmm", torch.bmm, [("input", randn(2, 3, 4)), ("mat2", randn(2, 4, 2))])
row("linear", F.linear, [("input", x), ("weight", randn(2, 4)), ("bias", randn(2))])
# nn
row("softmax", F.softmax, [("input", x), ("dim", 0)])
row("log_softmax", F.log_softmax, [("input", x), ("dim", 1)])
row("layer_norm", F.layer_norm, [("input", x), ("normalized_shape", [4]), ("weight", randn(4)), ("bias", randn(4)), ("eps", 0.01)])
row("layer_norm/2d", F.layer_norm, [("input", img), ("normalized_shape", [6, 6]), ("weight", randn(6, 6)), ("bias", randn(6, 6)), ("eps", 1e-5)],
    tref="layer_norm")
row("group_norm", F.group_norm, [("input", img), ("num_groups", 3), ("weight", randn(3)), ("bias", randn(3)), ("eps", 1e-5)])
row("batch_norm", F.batch_norm, [("input", img), ("running_mean", randn(3)), ("running_var", torch.rand(3) + 0.5), ("weight", randn(3)),
                                 ("bias", randn(3)), ("training", False), ("momentum", 0.1), ("eps", 1e-5)])
row("embedding", F.embedding, [("input", ids), ("weight", randn(5, 3))])
row("dropout", F.dropout, [("input", x), ("p", 0.5), ("training", False)])
row("conv1d", F.conv1d, [("input", seq), ("weight", randn(4, 3, 3)), ("bias", randn(4)), ("stride", 1), ("padding", 1), ("dilation", 1), ("groups", 1)])
row("conv2d", F.conv2d, [("input", img), ("weight", randn(4, 3, 3, 3)), ("bias", randn(4)), ("stride", 2), ("padding", 1), ("dilation", 1), ("groups", 1)])
row("conv_transpose2d", F.conv_transpose2d, [("input", img), ("weight", randn(3, 2, 3, 3)), ("bias", randn(2)), ("stride", 2), ("padding", 1),
                                             ("output_padding", 1), ("groups", 1), ("dilation", 1)])
row("max_pool2d", F.max_pool2d, [("input", img), ("kernel_size", 3), ("stride", 2), ("padding", 1), ("dilation", 1), ("ceil_mode", True)])
row("avg_pool2d", F.avg_pool2d, [("input", img), ("kernel_size", 3), ("stride", 2), ("padding", 1), ("ceil_mode", True),
                                 ("count_include_pad", False), ("divisor_override", None)])
row("adaptive_avg_pool2d", F.adaptive_avg_pool2d, [("input", img), ("output_size", [2, 3])])
row("pad", F.pad, [("input", img), ("pad", [1, 2, 0, 1]), ("mode", "reflect")])
row("nll_loss", F.nll_loss, [("input", F.log_softmax(logits, 1)), ("target", target), ("weight", torch.rand(5)), ("size_average", None),
                             ("ignore_index", 2), ("reduce", None), ("reduction", "sum")])
row("cross_entropy", F.cross_entropy, [("input", logits), ("target", target), ("weight", torch.rand(5)), ("size_average", None),
                                       ("ignore_index", -100), ("reduce", None), ("reduction", "mean"), ("label_smoothing", 0.1)])
row("binary_cross_entropy", F.binary_cross_entropy, [("input", torch.rand(3, 4)), ("target", torch.rand(3, 4)), ("weight", torch.rand(3, 4)),
                                                     ("size_average", None), ("reduce", None), ("reduction", "sum")])
row("binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits,
    [("input", x), ("target", torch.rand(3, 4)), ("weight", None), ("size_average", None), ("reduce", None), ("reduction", "none"),
     ("pos_weight", torch.rand(4))])
row("l1_loss", F.l1_loss, [("input", x), ("target", y), ("size_average", None), ("reduce", None), ("reduction", "sum")])
row("mse_loss", F.mse_loss, [("input", x), ("target", y), ("size_average", None), ("reduce", None), ("reduction", "none")])
row("smooth_l1_loss", F.smooth_l1_loss, [("input", x), ("target", y), ("size_average", None), ("reduce", None), ("reduction", "mean"), ("beta", 0.5)])
# creation
row("zeros", lambda size, dtype: torch.zeros(size, dtype=torch.float64), [("size", [2, 3]), ("dtype", "float64")])
row("full", lambda size, fill_value: torch.full(size, fill_value), [("size", [2, 2]), ("fill_value", 1.5)])
row("arange", lambda start, end, step: torch.arange(start, end, step), [("start", 1), ("end", 10), ("step", 3)])
row("linspace", lambda start, end, steps: torch.linspace(start, end, steps), [("start", 0.0), ("end", 1.0), ("steps", 5)])
row("eye", lambda n, m: torch.eye(n, m), [("n", 2), ("m", 3)])
row("zeros_like", torch.zeros_like, [("input", x)])
row("full_like", torch.full_like, [("input", x), ("fill_value", 2)])
# pointwise and composed functions added later (logexp, nnfunc)
for op in ("log1p", "expm1", "log2", "log10", "reciprocal", "square", "isfinite"):
    row(op, getattr(torch, op), [("input", pos)])
for op in ("logsigmoid", "mish", "selu", "relu6"):
    row(op, getattr(F, op), [("input", x)])
row("hardtanh", F.hardtanh, [("input", x), ("min_val", -0.5), ("max_val", 0.5)])
row("normalize", F.normalize, [("input", x), ("p", 1.0), ("dim", 0), ("eps", 1e-6)])
row("cosine_similarity", F.cosine_similarity, [("x1", x), ("x2", y), ("dim", 0), ("eps", 1e-6)])
row("softmin", F.softmin, [("input", x), ("dim", 0)])
row("glu", F.glu, [("input", x), ("dim", 1)])
row("logaddexp", torch.logaddexp, [("input", x), ("other", y)])
row("lerp", torch.lerp, [("input", x), ("end", y), ("weight", 0.25)])
row("clamp_min", torch.clamp_min, [("input", x), ("min", 0.1)])
row("clamp_max", torch.clamp_max, [("input", x), ("max", 0.1)])
row("narrow", torch.narrow, [("input", x), ("dim", 1), ("start", 1), ("length", 2)])
row("movedim", torch.movedim, [("input", img), ("source", 1), ("destination", 3)])
row("unbind", lambda input, dim: list(torch.unbind(input, dim)), [("input", x), ("dim", 1)])
row("addmm", torch.addmm, [("input", y[:, :3]), ("mat1", x[:, :2]), ("mat2", randn(2, 3)), ("beta", 0.5), ("alpha", 2.0)], kwonly=("beta", "alpha"))
row("diff", torch.diff, [("input", x), ("n", 2), ("dim", 0)])
row("diag", torch.diag, [("input", x), ("diagonal", 1)])
row("repeat_interleave", torch.repeat_interleave, [("input", x), ("repeats", 2), ("dim", 0)])
row("pixel_shuffle", F.pixel_shuffle, [("input", randn(1, 4, 2, 2)), ("upscale_factor", 2)])
row("pixel_unshuffle", F.pixel_unshuffle, [("input", randn(1, 1, 4, 4)), ("downscale_factor", 2)])
row("max_pool1d", F.max_pool1d, [("input", seq), ("kernel_size", 3), ("stride", 2), ("padding", 1), ("dilation", 1), ("ceil_mode", True)])
row("avg_pool1d", F.avg_pool1d, [("input", seq), ("kernel_size", 3), ("stride", 2), ("padding", 1), ("ceil_mode", True), ("count_include_pad", False)])
row("kl_div", F.kl_div, [("input", F.log_softmax(x, 1)), ("target", F.softmax(y, 1)), ("size_average", None), ("reduce", None), ("reduction", "batchmean"), ("log_target", False)])
row("interpolate", F.interpolate, [("input", img), ("size", [4, 5]), ("scale_factor", None), ("mode", "bilinear"), ("align_corners", True), ("recompute_scale_factor", None), ("antialias", False)])

g.write()
