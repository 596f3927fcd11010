"""Goldens of more torch.nn.functional functions added as tref builtins:
/usr/bin/python3 gen_porting_nn2.py

conv_transpose1d, adaptive_avg_pool1d, adaptive_max_pool1d/2d (windows,
indices, NaN), unfold (F.unfold and Tensor.unfold), fold, embedding_bag
(2-d input, offsets, modes, padding_idx, per_sample_weights, empty bags,
NaN), pdist (every kind of p, special values), channel_shuffle and
local_response_norm: values (dtypes, keywords under torch's names, edge
cases), the gradients of the differentiable ones (replayed by vjp_of_sum),
and errors.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(47)
g = Golden("porting_nn2")
grad_case = g.grad_case

nan, inf = float("nan"), float("inf")


def rn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


# conv_transpose1d
ctx, ctw = rn(2, 4, 5), rn(4, 3, 3)
g.case("conv_transpose1d/basic", "conv_transpose1d", F.conv_transpose1d, [ctx, ctw], atol=1e-5)
g.case("conv_transpose1d/bias-stride", "conv_transpose1d", F.conv_transpose1d, [ctx, ctw, rn(3)], {"stride": 2, "padding": 1, "output_padding": 1}, atol=1e-5)
g.case("conv_transpose1d/groups-dilation", "conv_transpose1d", F.conv_transpose1d, [ctx, rn(4, 1, 2)], {"groups": 2, "dilation": 3}, atol=1e-5)
g.case("conv_transpose1d/unbatched", "conv_transpose1d", F.conv_transpose1d, [rn(4, 6), ctw], atol=1e-5)
g.case("conv_transpose1d/list-args", "conv_transpose1d", F.conv_transpose1d, [ctx, ctw], {"stride": [3], "padding": [2]}, atol=1e-5)
g.case("conv_transpose1d/positional", "conv_transpose1d", F.conv_transpose1d, [ctx, ctw, None, 2, 1, 1, 1, 2], atol=1e-5)
g.case("conv_transpose1d/float64", "conv_transpose1d", F.conv_transpose1d, [rn(1, 2, 4, dtype=torch.float64), rn(2, 2, 2, dtype=torch.float64)], rtol=1e-12, atol=1e-12)
grad_case("conv_transpose1d", "conv_transpose1d", F.conv_transpose1d, [rn(2, 4, 5), rn(4, 3, 3), rn(3)], {"stride": 2, "padding": 1, "output_padding": 1}, atol=1e-4)
grad_case("conv_transpose1d/groups", "conv_transpose1d", F.conv_transpose1d, [rn(1, 4, 3), rn(4, 2, 2)], {"groups": 2, "dilation": 2}, atol=1e-4)
g.error("conv_transpose1d/4d", "conv_transpose1d", [rn(1, 2, 3, 4), rn(2, 2, 2)], "conv_transpose1d: expected an input of shape [N, C, L] or [C, L]")
g.error("conv_transpose1d/weight-4d", "conv_transpose1d", [rn(1, 2, 4), rn(2, 2, 1, 2)], "conv_transpose1d: expected a weight of shape [C, Cout/groups, k]")
g.error("conv_transpose1d/channels", "conv_transpose1d", [rn(1, 3, 4), rn(2, 2, 2)], "conv_transpose1d over [1, 3, 4] with weight [2, 2, 2]: input")
g.error("conv_transpose1d/output-padding", "conv_transpose1d", [rn(1, 2, 4), rn(2, 2, 2)], "conv_transpose1d over", {"output_padding": 1})
g.error("conv_transpose1d/stride-pair", "conv_transpose1d", [rn(1, 2, 4), rn(2, 2, 2)], "conv_transpose1d: stride must be an int or a list of 1 int", {"stride": [1, 2]})

# adaptive_avg_pool1d
g.case("adaptive_avg_pool1d/shrink", "adaptive_avg_pool1d", F.adaptive_avg_pool1d, [rn(2, 3, 10), 4])
g.case("adaptive_avg_pool1d/grow", "adaptive_avg_pool1d", F.adaptive_avg_pool1d, [rn(2, 3, 3), 7])
g.case("adaptive_avg_pool1d/unbatched-list", "adaptive_avg_pool1d", F.adaptive_avg_pool1d, [rn(3, 7), [3]])
g.case("adaptive_avg_pool1d/keywords", "adaptive_avg_pool1d", lambda input, output_size: F.adaptive_avg_pool1d(input, output_size), [], {"input": rn(1, 2, 5), "output_size": 2})
g.case("adaptive_avg_pool1d/float64", "adaptive_avg_pool1d", F.adaptive_avg_pool1d, [rn(1, 2, 9, dtype=torch.float64), 4], rtol=1e-12)
g.case("adaptive_avg_pool1d/zero", "adaptive_avg_pool1d", F.adaptive_avg_pool1d, [rn(3, 5), 0])
grad_case("adaptive_avg_pool1d", "adaptive_avg_pool1d", F.adaptive_avg_pool1d, [rn(2, 3, 10), 4])
g.error("adaptive_avg_pool1d/1d", "adaptive_avg_pool1d", [rn(5), 2], "adaptive_avg_pool1d: expected an input of shape [N, C, L] or [C, L]")
g.error("adaptive_avg_pool1d/pair", "adaptive_avg_pool1d", [rn(3, 5), [2, 3]], "adaptive_avg_pool1d: output_size must be an int or a list of 1 int")

# adaptive_max_pool1d, adaptive_max_pool2d
mx2 = rn(2, 3, 7, 5)
g.case("adaptive_max_pool2d/basic", "adaptive_max_pool2d", F.adaptive_max_pool2d, [mx2, [3, 2]])
g.case("adaptive_max_pool2d/int-size", "adaptive_max_pool2d", F.adaptive_max_pool2d, [mx2, 4])
g.case("adaptive_max_pool2d/grow", "adaptive_max_pool2d", F.adaptive_max_pool2d, [rn(1, 2, 3, 2), [5, 4]])
g.case("adaptive_max_pool2d/none", "adaptive_max_pool2d", F.adaptive_max_pool2d, [mx2, [2, None]])
g.case("adaptive_max_pool2d/unbatched", "adaptive_max_pool2d", F.adaptive_max_pool2d, [rn(3, 6, 6), 3])
g.case("adaptive_max_pool2d/indices", "adaptive_max_pool2d", F.adaptive_max_pool2d, [mx2, [3, 2], True])
g.case("adaptive_max_pool2d/indices-keyword", "adaptive_max_pool2d", lambda input, output_size, return_indices: F.adaptive_max_pool2d(input, output_size, return_indices), [],
       {"input": rn(3, 5, 4), "output_size": [2, 3], "return_indices": True})
g.case("adaptive_max_pool2d/float64", "adaptive_max_pool2d", F.adaptive_max_pool2d, [rn(1, 2, 5, 5, dtype=torch.float64), 2, True])
g.case("adaptive_max_pool2d/zero-size", "adaptive_max_pool2d", F.adaptive_max_pool2d, [rn(1, 3, 5, 5), 0, True])
g.case("adaptive_max_pool2d/empty-batch", "adaptive_max_pool2d", F.adaptive_max_pool2d, [rn(0, 3, 4, 5), 2, True])
ties = torch.tensor([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, -inf, -inf], [0.0, 3.0, -inf, -inf]]]])
g.case("adaptive_max_pool2d/ties", "adaptive_max_pool2d", F.adaptive_max_pool2d, [ties, [2, 2], True])
nanx = torch.tensor([[[[1.0, nan, 2.0, 5.0], [nan, 0.0, 7.0, nan], [inf, 4.0, nan, -inf], [3.0, -1.0, 2.0, 1.0]]]])
g.case("adaptive_max_pool2d/nan", "adaptive_max_pool2d", F.adaptive_max_pool2d, [nanx, [3, 3], True])
g.case("adaptive_max_pool2d/nan-whole", "adaptive_max_pool2d", F.adaptive_max_pool2d, [nanx, 1, True])
g.case("adaptive_max_pool1d/basic", "adaptive_max_pool1d", F.adaptive_max_pool1d, [rn(2, 3, 10), 4])
g.case("adaptive_max_pool1d/grow", "adaptive_max_pool1d", F.adaptive_max_pool1d, [rn(2, 3, 3), 5, True])
g.case("adaptive_max_pool1d/unbatched-list", "adaptive_max_pool1d", F.adaptive_max_pool1d, [rn(3, 7), [3], True])
g.case("adaptive_max_pool1d/nan-ties", "adaptive_max_pool1d", F.adaptive_max_pool1d,
       [torch.tensor([[1.0, nan, 2.0, nan, 0.0, 4.0, 4.0, -inf, -inf]]), 3, True])
g.case("adaptive_max_pool1d/keywords", "adaptive_max_pool1d", lambda input, output_size, return_indices: F.adaptive_max_pool1d(input, output_size, return_indices), [],
       {"input": rn(1, 2, 6), "output_size": 4, "return_indices": True})
grad_case("adaptive_max_pool2d", "adaptive_max_pool2d", F.adaptive_max_pool2d, [rn(2, 3, 7, 5), [3, 4]])
grad_case("adaptive_max_pool2d/overlap-ties", "adaptive_max_pool2d", F.adaptive_max_pool2d, [torch.tensor([[[1.0, 1.0, 2.0], [2.0, 0.0, 2.0], [1.0, 2.0, 2.0]]]), [2, 2]])
grad_case("adaptive_max_pool1d", "adaptive_max_pool1d", F.adaptive_max_pool1d, [torch.tensor([[[1.0, 3.0, 3.0, 0.0, 2.0, 2.0, -1.0]]]), 4])
g.error("adaptive_max_pool2d/int", "adaptive_max_pool2d", [torch.ones(1, 2, 3, 3, dtype=torch.int64), 2], "adaptive_max_pool2d: the input must be floating point")
g.error("adaptive_max_pool2d/2d", "adaptive_max_pool2d", [rn(5, 5), 2], "adaptive_max_pool2d: expected an input of shape [N, C, H, W] or [C, H, W]")
g.error("adaptive_max_pool2d/empty-plane", "adaptive_max_pool2d", [rn(1, 3, 0, 5), 2], "adaptive_max_pool2d: the input [1, 3, 0, 5] has an empty non-batch dimension")
g.error("adaptive_max_pool2d/negative", "adaptive_max_pool2d", [rn(1, 3, 4, 5), [2, -1]], "adaptive_max_pool2d: output_size must not be negative")
g.error("adaptive_max_pool2d/three", "adaptive_max_pool2d", [rn(1, 3, 4, 5), [2, 2, 2]], "adaptive_max_pool2d: output_size must be an int or a list of 2")
g.error("adaptive_max_pool1d/4d", "adaptive_max_pool1d", [rn(1, 3, 5, 5), 2], "adaptive_max_pool1d: expected an input of shape [N, C, L] or [C, L]")
g.error("adaptive_max_pool1d/pair", "adaptive_max_pool1d", [rn(3, 5), [2, 3]], "adaptive_max_pool1d: output_size must be an int or a list of 1 int")

# unfold (F.unfold) and fold
ux = rn(2, 3, 5, 6)
g.case("unfold/basic", "unfold", F.unfold, [ux, 2])
g.case("unfold/all-args", "unfold", F.unfold, [ux, [2, 3]], {"dilation": [2, 1], "padding": 1, "stride": [1, 2]})
g.case("unfold/positional5", "unfold", F.unfold, [ux, 3, 1, 1, 2])
g.case("unfold/unbatched", "unfold", F.unfold, [rn(3, 4, 4), 3], {"padding": 1})
g.case("unfold/float64", "unfold", F.unfold, [rn(1, 2, 3, 3, dtype=torch.float64), 2], {"stride": 1})
g.case("unfold/special", "unfold", F.unfold, [torch.tensor([[[[nan, inf], [-inf, -0.0]]]]), 1], {"padding": 1})
g.case("unfold/keywords", "unfold", lambda input, kernel_size, stride: F.unfold(input, kernel_size, stride=stride), [], {"input": ux, "kernel_size": 2, "stride": 2})
grad_case("unfold", "unfold", F.unfold, [rn(2, 2, 5, 4), [2, 3]], {"dilation": [1, 2], "padding": 1})
grad_case("unfold/stride", "unfold", F.unfold, [rn(1, 2, 6, 6), 3], {"stride": 2})
g.error("unfold/int", "unfold", [torch.ones(1, 2, 3, 3, dtype=torch.int64), 2], "unfold: the input must be floating point")
g.error("unfold/2d", "unfold", [rn(5, 5), 2], "unfold: expected an input of shape [N, C, H, W] or [C, H, W]")
g.error("unfold/kernel-zero", "unfold", [ux, 0], "unfold: kernel_size must be greater than zero")
g.error("unfold/too-big", "unfold", [ux, 6], "unfold: an image of 5×6 with kernel_size (6, 6)")
g.error("unfold/negative-padding", "unfold", [ux, 2], "unfold: padding must be non-negative", {"padding": -1})
g.error("unfold/stride-zero", "unfold", [ux, 2], "unfold: stride must be greater than zero", {"stride": 0})

fx = rn(2, 3 * 4, 12)
g.case("fold/basic", "fold", F.fold, [fx, [4, 5], 2])
g.case("fold/overlap-padding", "fold", F.fold, [rn(1, 2 * 6, 12), [5, 4], [2, 3]], {"dilation": [1, 2], "padding": 1, "stride": 1})
g.case("fold/stride", "fold", F.fold, [rn(1, 9, 9), 7, 3], {"stride": 2})
g.case("fold/unbatched", "fold", F.fold, [rn(3 * 4, 12), [4, 5], 2])
g.case("fold/positional", "fold", F.fold, [rn(1, 4, 9), [5, 5], 2, 1, 1, 2])
g.case("fold/float64", "fold", F.fold, [rn(1, 4, 4, dtype=torch.float64), [3, 3], 2], rtol=1e-12)
g.case("fold/roundtrip", "fold", lambda x, o, k, padding: F.fold(F.unfold(x, k, padding=padding), o, k, padding=padding), [ux, [5, 6], 3], {"padding": 1},
       tref_args=[F.unfold(ux, 3, padding=1), [5, 6], 3])
grad_case("fold", "fold", F.fold, [rn(2, 8, 24), [5, 4], [2, 2]], {"dilation": [1, 2], "padding": 1})
grad_case("fold/stride", "fold", F.fold, [rn(1, 9, 9), 7, 3], {"stride": 2})
g.error("fold/divisible", "fold", [rn(1, 13, 9), [4, 4], 2], "fold: the input's dimension 1 (13) must be divisible by the product of kernel_size (2, 2)")
g.error("fold/blocks", "fold", [rn(1, 12, 8), [4, 4], 2], "fold: output_size (4, 4), kernel_size (2, 2), dilation (1, 1), padding (0, 0) and stride (1, 1) give 3 * 3 = 9 sliding blocks")
g.error("fold/int", "fold", [torch.ones(1, 4, 9, dtype=torch.int64), [4, 4], 2], "fold: the input must be floating point")
g.error("fold/4d", "fold", [rn(1, 4, 9, 1), [4, 4], 2], "fold: expected an input of shape [N, C·kh·kw, L] or [C·kh·kw, L]")

# Tensor.unfold(dimension, size, step) under the same name
tu = rn(3, 7, 2)
g.case("unfold/tensor-positional", "unfold", lambda x, d, s, st: x.unfold(d, s, st), [tu, 1, 3, 2])
g.case("unfold/tensor-keywords", "unfold", lambda input, dimension, size, step: input.unfold(dimension, size, step), [], {"input": tu, "dimension": -1, "size": 2, "step": 1})
g.case("unfold/tensor-4d-patches", "unfold", lambda x, d, s, st: x.unfold(d, s, st), [ux, 2, 2, 2])
g.case("unfold/tensor-int", "unfold", lambda x, d, s, st: x.unfold(d, s, st), [torch.arange(10), 0, 4, 3])
g.case("unfold/tensor-size0", "unfold", lambda x, d, s, st: x.unfold(d, s, st), [rn(3, 4), 1, 0, 1])
g.case("unfold/tensor-0d", "unfold", lambda x, d, s, st: x.unfold(d, s, st), [torch.tensor(3.5), 0, 1, 1])
g.case("unfold/tensor-0d-size0", "unfold", lambda x, d, s, st: x.unfold(d, s, st), [torch.tensor(3.5), 0, 0, 1])
grad_case("unfold/tensor-overlap", "unfold", lambda x, d, s, st: x.unfold(d, s, st), [rn(3, 7, 2), 1, 3, 2])
g.error("unfold/tensor-size", "unfold", [rn(3, 4), 0, 4, 1], "unfold: maximum size for tensor at dimension 0 is 3 but size is 4")
g.error("unfold/tensor-step", "unfold", [rn(3, 4), 0, 2, 0], "unfold: step is 0 but must be > 0")
g.error("unfold/tensor-dim", "unfold", [rn(3, 4), 2, 2, 1], "unfold: dimension 2 out of range")

# embedding_bag
ew = rn(10, 3)
eb2 = torch.tensor([[1, 2, 4, 5], [4, 3, 2, 9]])
eb1 = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0])
eoff = torch.tensor([0, 2, 2, 5])
for mode in ("sum", "mean", "max"):
    g.case("embedding_bag/2d-%s" % mode, "embedding_bag", F.embedding_bag, [eb2, ew], {"mode": mode})
    g.case("embedding_bag/offsets-%s" % mode, "embedding_bag", F.embedding_bag, [eb1, ew, eoff], {"mode": mode})
    g.case("embedding_bag/padding-%s" % mode, "embedding_bag", F.embedding_bag, [torch.tensor([[1, 2, 1], [2, 2, 3]]), ew], {"mode": mode, "padding_idx": 2})
    g.case("embedding_bag/last-offset-%s" % mode, "embedding_bag", F.embedding_bag, [eb1, ew, torch.tensor([0, 3, 3, 9])], {"mode": mode, "include_last_offset": True})
    g.case("embedding_bag/float64-%s" % mode, "embedding_bag", F.embedding_bag, [eb2, rn(10, 2, dtype=torch.float64)], {"mode": mode}, rtol=1e-12)
    grad_case("embedding_bag/%s" % mode, "embedding_bag", F.embedding_bag, [eb1, rn(10, 3), eoff], {"mode": mode, "padding_idx": 4})
g.case("embedding_bag/default-mean", "embedding_bag", F.embedding_bag, [eb2, ew])
g.case("embedding_bag/int32", "embedding_bag", F.embedding_bag, [eb1.int(), ew, eoff.int()])
g.case("embedding_bag/negative-padding", "embedding_bag", F.embedding_bag, [eb2, ew], {"padding_idx": -1})
g.case("embedding_bag/psw", "embedding_bag", F.embedding_bag, [eb1, ew, eoff], {"mode": "sum", "per_sample_weights": rn(9)})
g.case("embedding_bag/psw-2d-padding", "embedding_bag", F.embedding_bag, [eb2, ew], {"mode": "sum", "per_sample_weights": rn(2, 4), "padding_idx": 4})
g.case("embedding_bag/positional", "embedding_bag", F.embedding_bag, [eb1, ew, eoff, None, 2.0, False, "max"])
g.case("embedding_bag/empty-input", "embedding_bag", F.embedding_bag, [torch.zeros(0, dtype=torch.int64), ew, torch.tensor([0, 0])], {"mode": "max"})
g.case("embedding_bag/all-padding", "embedding_bag", F.embedding_bag, [torch.tensor([[3, 3]]), ew], {"padding_idx": 3, "mode": "max"})
g.case("embedding_bag/sparse", "embedding_bag", F.embedding_bag, [eb2, ew], {"sparse": True})
enw = torch.tensor([[nan, 1.0], [1.0, nan], [2.0, 2.0], [2.0, -1.0], [-inf, 5.0]])
g.case("embedding_bag/max-nan", "embedding_bag", F.embedding_bag, [torch.tensor([0, 2, 1, 2, 3, 4, 4, 1, 0]), enw, torch.tensor([0, 3, 3, 5, 7])], {"mode": "max"})
for mode in ("sum", "mean"):
    g.case("embedding_bag/nan-%s" % mode, "embedding_bag", F.embedding_bag, [torch.tensor([0, 2, 1, 2, 3, 4, 4]), enw, torch.tensor([0, 3, 3, 5])], {"mode": mode})
grad_case("embedding_bag/max-ties", "embedding_bag", F.embedding_bag, [torch.tensor([[2, 3, 2, 1], [0, 0, 4, 3]]), torch.tensor([[1.0, 0.0], [1.0, 3.0], [2.0, 2.0], [2.0, -1.0], [-inf, 5.0]])], {"mode": "max"})
grad_case("embedding_bag/psw", "embedding_bag", F.embedding_bag, [eb1, rn(10, 3), eoff], {"mode": "sum", "per_sample_weights": rn(9), "padding_idx": 2})
grad_case("embedding_bag/mean-2d", "embedding_bag", F.embedding_bag, [eb2, rn(10, 3)])
g.error("embedding_bag/2d-offsets", "embedding_bag", [eb2, ew, eoff], "embedding_bag: if input is 2-d, offsets has to be none")
g.error("embedding_bag/no-offsets", "embedding_bag", [eb1, ew], "embedding_bag: a 1-d input needs offsets")
g.error("embedding_bag/3d", "embedding_bag", [eb2.reshape(1, 2, 4), ew], "embedding_bag: input has to be a 1-d or 2-d tensor")
g.error("embedding_bag/first-offset", "embedding_bag", [eb1, ew, torch.tensor([1, 3])], "embedding_bag: offsets[0] has to be 0")
g.error("embedding_bag/offset-beyond", "embedding_bag", [eb1, ew, torch.tensor([0, 10])], "embedding_bag: offsets[1] = 10 is beyond the input's length 9")
g.error("embedding_bag/offset-order", "embedding_bag", [eb1, ew, torch.tensor([0, 4, 2])], "embedding_bag: offsets must be non-decreasing")
g.error("embedding_bag/offsets-2d", "embedding_bag", [eb1, ew, eoff.reshape(2, 2)], "embedding_bag: offsets has to be a 1-d tensor")
g.error("embedding_bag/mode", "embedding_bag", [eb2, ew], "embedding_bag: mode has to be one of \"sum\", \"mean\" or \"max\"", {"mode": "min"})
g.error("embedding_bag/psw-mean", "embedding_bag", [eb2, ew], "embedding_bag: per_sample_weights is only supported for mode \"sum\"", {"per_sample_weights": rn(2, 4)})
g.error("embedding_bag/psw-shape", "embedding_bag", [eb2, ew], "embedding_bag: per_sample_weights [8] must have the input's shape [2, 4]", {"mode": "sum", "per_sample_weights": rn(8)})
g.error("embedding_bag/psw-dtype", "embedding_bag", [eb2, ew], "embedding_bag: per_sample_weights (float64) must have weight's dtype float32", {"mode": "sum", "per_sample_weights": rn(2, 4, dtype=torch.float64)})
g.error("embedding_bag/padding-range", "embedding_bag", [eb2, ew], "embedding_bag: padding_idx must be within the number of embeddings, -10 through 9, but got 10", {"padding_idx": 10})
g.error("embedding_bag/float-ids", "embedding_bag", [eb2.float(), ew], "embedding_bag: input must be int64 or int32")
g.error("embedding_bag/int-weight", "embedding_bag", [eb2, ew.long()], "embedding_bag: weight must be floating point")
g.error("embedding_bag/weight-1d", "embedding_bag", [eb2, ew[0]], "embedding_bag: weight has to be a 2-d tensor")
g.error("embedding_bag/max-norm", "embedding_bag", [eb2, ew], "embedding_bag: max_norm is not supported", {"max_norm": 1.0})
g.error("embedding_bag/id-range", "embedding_bag", [torch.tensor([[0, 10]]), ew], "embedding_bag:")

# pdist
px = rn(5, 3)
pspecial = torch.tensor([[0.0, 1.0], [nan, 3.0], [inf, 1.0], [1.0, 1.0], [-inf, 1.0]])
for p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, inf):
    g.case("pdist/p%s" % p, "pdist", F.pdist, [px, p], atol=1e-5)
    g.case("pdist/special-p%s" % p, "pdist", F.pdist, [pspecial, p])
g.case("pdist/default", "pdist", F.pdist, [px], atol=1e-5)
g.case("pdist/keywords", "pdist", lambda input, p: F.pdist(input, p), [], {"input": px, "p": 1.0}, atol=1e-5)
g.case("pdist/float64", "pdist", F.pdist, [rn(4, 6, dtype=torch.float64)], rtol=1e-12)
g.case("pdist/one-row", "pdist", F.pdist, [rn(1, 3)])
g.case("pdist/no-rows", "pdist", F.pdist, [rn(0, 3)])
g.case("pdist/no-columns", "pdist", F.pdist, [rn(3, 0)])
pg = torch.tensor([[0.0, 1.0, 2.0], [1.0, 3.0, 2.0], [1.0, 3.0, 2.0], [0.0, 0.0, 0.0], [2.0, 0.0, 1.0]])
for p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, inf):
    grad_case("pdist/edges-p%s" % p, "pdist", F.pdist, [pg, p], atol=1e-4)
grad_case("pdist/random", "pdist", F.pdist, [rn(4, 5)], atol=1e-4)
g.error("pdist/1d", "pdist", [rn(3)], "pdist: the input must be 2-d")
g.error("pdist/int", "pdist", [torch.ones(3, 2, dtype=torch.int64)], "pdist: the input must be floating point")
g.error("pdist/negative-p", "pdist", [px, -1.0], "pdist: p must be non-negative")

# channel_shuffle
g.case("channel_shuffle/3d", "channel_shuffle", F.channel_shuffle, [rn(2, 6, 3), 3])
g.case("channel_shuffle/4d", "channel_shuffle", F.channel_shuffle, [rn(2, 4, 2, 3), 2])
g.case("channel_shuffle/int", "channel_shuffle", F.channel_shuffle, [torch.arange(24).reshape(1, 6, 4), 2])
g.case("channel_shuffle/one-group", "channel_shuffle", F.channel_shuffle, [rn(1, 3, 2), 1])
g.case("channel_shuffle/keywords", "channel_shuffle", lambda input, groups: F.channel_shuffle(input, groups), [], {"input": rn(1, 4, 2), "groups": 4})
# torch 1.13 has no derivative for channel_shuffle: its reference is the
# reshape-transpose-reshape that the forward is (the values agree above).
grad_case("channel_shuffle", "channel_shuffle", lambda x, gr: x.reshape(2, gr, 6 // gr, 2).transpose(1, 2).reshape(2, 6, 2), [rn(2, 6, 2), 2])
g.error("channel_shuffle/2d", "channel_shuffle", [rn(2, 4), 2], "channel_shuffle: expects an input with more than 2 dimensions")
g.error("channel_shuffle/divisible", "channel_shuffle", [rn(2, 5, 3), 2], "channel_shuffle: the number of channels must be divisible by groups; got 5 channels and 2 groups")
g.error("channel_shuffle/zero", "channel_shuffle", [rn(2, 4, 3), 0], "channel_shuffle: the number of groups to divide channels in must be positive")

# local_response_norm
g.case("local_response_norm/3d", "local_response_norm", F.local_response_norm, [rn(2, 6, 4), 3])
g.case("local_response_norm/4d", "local_response_norm", F.local_response_norm, [rn(2, 5, 3, 3), 2], {"alpha": 0.5, "beta": 0.9, "k": 2.0})
g.case("local_response_norm/5d", "local_response_norm", F.local_response_norm, [rn(1, 4, 2, 2, 3) * 3, 4], {"alpha": 1.0})
g.case("local_response_norm/size-large", "local_response_norm", F.local_response_norm, [rn(1, 3, 4), 7, 0.1])
g.case("local_response_norm/positional", "local_response_norm", F.local_response_norm, [rn(1, 3, 4), 2, 0.2, 0.5, 1.5])
g.case("local_response_norm/float64", "local_response_norm", F.local_response_norm, [rn(1, 4, 3, dtype=torch.float64), 3, 0.3], rtol=1e-12)
g.case("local_response_norm/empty", "local_response_norm", F.local_response_norm, [rn(0, 3, 4), 2])
g.case("local_response_norm/special", "local_response_norm", F.local_response_norm, [torch.tensor([[[nan, 1.0], [inf, 0.0], [2.0, -inf]]]), 2])
grad_case("local_response_norm", "local_response_norm", F.local_response_norm, [rn(2, 5, 3), 3], {"alpha": 0.5, "beta": 0.7, "k": 1.5}, atol=1e-4)
grad_case("local_response_norm/4d", "local_response_norm", F.local_response_norm, [rn(1, 4, 2, 3), 2], {"alpha": 1.0}, atol=1e-4)
g.error("local_response_norm/2d", "local_response_norm", [rn(2, 4), 2], "local_response_norm: expected an input of 3 or more dimensions")
g.error("local_response_norm/int", "local_response_norm", [torch.ones(1, 2, 3, dtype=torch.int32), 2], "local_response_norm: the input must be floating point or int64")
g.error("local_response_norm/size", "local_response_norm", [rn(1, 2, 3), 0], "local_response_norm: size must be greater than zero")

# Cases added after review (appended so the random inputs above stay as
# they were).
# embedding_bag with no bags but some ids: an empty [0, dim]. (torch 1.13's
# max kernel crashes on these; tref gives the same empty result, see
# spec/torch_porting_nn2.tr.)
zb_ids, zb_w = torch.tensor([0, 2, 1]), rn(4, 2)
for mode in ("sum", "mean"):
    g.case("embedding_bag/no-bags-last-offset-%s" % mode, "embedding_bag", F.embedding_bag, [zb_ids, zb_w, torch.tensor([0])], {"mode": mode, "include_last_offset": True})
    g.case("embedding_bag/no-offsets-%s" % mode, "embedding_bag", F.embedding_bag, [zb_ids, zb_w, torch.zeros(0, dtype=torch.int64)], {"mode": mode})
g.error("embedding_bag/last-offset-empty", "embedding_bag", [zb_ids, zb_w, torch.zeros(0, dtype=torch.int64)], "embedding_bag: include_last_offset: number of offset should be at least 1", {"include_last_offset": True})
# torch reads a 2-d input's rows as offsets that include the last one
# (one bag fewer, the last mean divided wrongly): tref refuses it.
g.error("embedding_bag/2d-last-offset", "embedding_bag", [eb2, ew], "embedding_bag: include_last_offset is not supported with a 2-d input", {"include_last_offset": True})

# adaptive max pools check the non-batch dimensions only: an unbatched
# input may have no channels.
g.case("adaptive_max_pool2d/no-channels", "adaptive_max_pool2d", F.adaptive_max_pool2d, [torch.ones(0, 4, 4), 3])
g.case("adaptive_max_pool1d/no-channels", "adaptive_max_pool1d", F.adaptive_max_pool1d, [torch.ones(0, 4), 3])
g.error("adaptive_max_pool1d/no-channels-batched", "adaptive_max_pool1d", [torch.ones(2, 0, 4), 3], "adaptive_max_pool1d: the input [2, 0, 4] has an empty non-batch dimension")
g.error("adaptive_max_pool2d/no-width", "adaptive_max_pool2d", [torch.ones(0, 4, 0), 3], "adaptive_max_pool2d: the input [0, 4, 0] has an empty non-batch dimension")
# local_response_norm of int64 gives float32, its squares averaged as
# int64 (rounded down).
g.case("local_response_norm/int64", "local_response_norm", F.local_response_norm, [torch.tensor([[[1, 2], [3, 4], [5, 6]], [[0, -7], [2, 9], [-3, 1]]]), 2], {"alpha": 0.5})
g.case("local_response_norm/int64-size3", "local_response_norm", F.local_response_norm, [torch.arange(-6, 18).reshape(2, 4, 3), 3], {"alpha": 0.1, "k": 2.0})
# conv_transpose1d's errors in 1-d terms
g.error("conv_transpose1d/output-padding-1d", "conv_transpose1d", [torch.ones(1, 2, 4), torch.ones(2, 2, 2)], "conv_transpose1d over [1, 2, 4] with weight [2, 2, 2]: output_padding 1 must be non-negative and smaller than either stride 1 or dilation 1", {"output_padding": 1})
g.error("conv_transpose1d/padding-1d", "conv_transpose1d", [torch.ones(1, 2, 4), torch.ones(2, 2, 2)], "conv_transpose1d over [1, 2, 4] with weight [2, 2, 2]: the output's length is -5; padding 5 is too large", {"padding": 5})
g.error("conv_transpose1d/stride-1d", "conv_transpose1d", [torch.ones(1, 2, 4), torch.ones(2, 2, 2)], "conv_transpose1d over [1, 2, 4] with weight [2, 2, 2]: stride must be at least 1, got 0", {"stride": 0})
g.error("conv_transpose1d/channels-1d", "conv_transpose1d", [torch.ones(1, 3, 4), torch.ones(2, 2, 2)], "conv_transpose1d over [1, 3, 4] with weight [2, 2, 2]: input has 3 channels, weight expects 2")
g.error("conv_transpose1d/bias-1d", "conv_transpose1d", [torch.ones(1, 2, 4), torch.ones(2, 2, 2), torch.ones(3)], "conv_transpose1d over [1, 2, 4] with weight [2, 2, 2]: bias of shape [3], expected [2]")

g.write()
