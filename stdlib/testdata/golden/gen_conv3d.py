"""Goldens for conv3d, max_pool3d, avg_pool3d and adaptive_avg_pool3d,
which tref composes of the 2-d ops.

Run with Debian's python3-torch: /usr/bin/python3 gen_conv3d.py
"""

import warnings

import torch
import torch.nn.functional as F

from gen_common import Golden

# torch warns that padding="same" with an even kernel copies the input.
warnings.filterwarnings("ignore", message="Using padding='same'")
torch.manual_seed(7)
g = Golden("conv3d")

# float32 sums accumulate in another order than torch's kernels.
TOL = {"rtol": 1e-4, "atol": 1e-4}


def r(*shape, dtype=torch.float32):
    """Normal values rounded to multiples of 1/8 (short to print, exact
    products)."""
    return (torch.randn(*shape, dtype=torch.float64) * 8).round().div(8).to(dtype)


def distinct(*shape, dtype=torch.float32):
    """A random permutation of distinct values: no ties, so every max pool
    gradient has one answer."""
    n = 1
    for s in shape:
        n *= s
    return (torch.randperm(n).to(torch.float64) / 4 - n / 8).reshape(shape).to(dtype)


# conv3d: stride, padding (int, triple, same, valid), dilation, groups,
# bias, unbatched, odd sizes, float64.
x, w, b = r(2, 3, 5, 6, 7), r(4, 3, 2, 3, 3), r(4)
g.case("conv3d/basic", "conv3d", F.conv3d, [x, w, b], **TOL)
g.case("conv3d/no-bias", "conv3d", F.conv3d, [x, w], **TOL)
g.case("conv3d/none-bias", "conv3d", F.conv3d, [x, w, None], **TOL)
g.case("conv3d/stride2-pad1", "conv3d", F.conv3d, [x, w, b], {"stride": 2, "padding": 1}, **TOL)
g.case("conv3d/triples", "conv3d", F.conv3d, [x, w, b], {"stride": [2, 1, 3], "padding": [1, 0, 2], "dilation": [2, 1, 2]}, **TOL)
g.case("conv3d/one-element-lists", "conv3d", F.conv3d, [x, w, b], {"stride": [2], "padding": [1], "dilation": [1]}, **TOL)
g.case("conv3d/dilation", "conv3d", F.conv3d, [r(1, 2, 7, 7, 7), r(3, 2, 3, 3, 3), r(3)], {"dilation": 2, "padding": 2}, **TOL)
g.case("conv3d/depth-dilation-stride", "conv3d", F.conv3d, [r(1, 2, 11, 4, 4), r(3, 2, 3, 1, 1)], {"dilation": [3, 1, 1], "stride": [2, 1, 1], "padding": [2, 0, 0]}, **TOL)
g.case("conv3d/groups", "conv3d", F.conv3d, [r(2, 4, 5, 5, 5), r(6, 2, 3, 2, 3), r(6)], {"groups": 2, "padding": 1}, **TOL)
g.case("conv3d/depthwise", "conv3d", F.conv3d, [r(1, 3, 4, 5, 5), r(6, 1, 2, 3, 3)], {"groups": 3}, **TOL)
g.case("conv3d/unbatched", "conv3d", F.conv3d, [r(3, 5, 6, 7), r(5, 3, 3, 3, 3), r(5)], {"padding": 1}, **TOL)
g.case("conv3d/pointwise", "conv3d", F.conv3d, [r(2, 6, 3, 4, 5), r(4, 6, 1, 1, 1), r(4)], **TOL)
g.case("conv3d/pointwise-stride", "conv3d", F.conv3d, [r(2, 6, 5, 4, 5), r(4, 6, 1, 1, 1)], {"stride": 2}, **TOL)
g.case("conv3d/same-odd", "conv3d", F.conv3d, [r(1, 2, 5, 6, 7), r(3, 2, 3, 3, 3), r(3)], {"padding": "same"}, **TOL)
g.case("conv3d/same-even", "conv3d", F.conv3d, [r(1, 2, 5, 6, 7), r(3, 2, 4, 2, 3)], {"padding": "same"}, **TOL)
g.case("conv3d/same-dilated", "conv3d", F.conv3d, [r(1, 2, 6, 5, 7), r(3, 2, 2, 3, 2)], {"padding": "same", "dilation": [3, 2, 1]}, **TOL)
g.case("conv3d/valid", "conv3d", F.conv3d, [x, w], {"padding": "valid"}, **TOL)
g.case("conv3d/odd-sizes", "conv3d", F.conv3d, [r(2, 3, 7, 5, 9), r(5, 3, 3, 4, 2), r(5)], {"stride": [2, 3, 1], "padding": [1, 2, 0]}, **TOL)
g.case("conv3d/kernel-whole-depth", "conv3d", F.conv3d, [r(2, 2, 4, 5, 5), r(3, 2, 4, 3, 3), r(3)], **TOL)
g.case("conv3d/batch0", "conv3d", F.conv3d, [r(0, 2, 4, 5, 5), r(3, 2, 2, 3, 3), r(3)], **TOL)
g.case("conv3d/f64", "conv3d", F.conv3d, [x.double(), w.double(), b.double()], {"padding": 1, "stride": [1, 2, 1]})
g.case("conv3d/keywords", "conv3d", lambda input, weight, bias, stride, padding, dilation, groups: F.conv3d(input, weight, bias, stride, padding, dilation, groups), [],
       {"input": r(1, 4, 4, 4, 4), "weight": r(2, 2, 2, 2, 2), "bias": r(2), "stride": 1, "padding": 1, "dilation": 1, "groups": 2}, **TOL)
g.error("conv3d/rank", "conv3d", [r(2, 3, 4), w], "conv3d: expected an input of shape [N, C, D, H, W] or [C, D, H, W], got [2, 3, 4]")
g.error("conv3d/weight-rank", "conv3d", [x, r(4, 3, 3, 3)], "conv3d: expected a weight of shape [Cout, C/groups, kd, kh, kw], got [4, 3, 3, 3]")
g.error("conv3d/channels", "conv3d", [x, r(4, 2, 3, 3, 3)], "conv3d: input [2, 3, 5, 6, 7] has 3 channels, weight [4, 2, 3, 3, 3] expects 2")
g.error("conv3d/bad-groups", "conv3d", [x, r(4, 1, 3, 3, 3)], "not divisible by groups=2", {"groups": 2})
g.error("conv3d/too-small", "conv3d", [r(1, 3, 2, 6, 6), r(4, 3, 3, 3, 3)], "conv3d: the input's depth 2 (padded to 2) is smaller than the kernel's extent 3")
g.error("conv3d/too-small-width", "conv3d", [r(1, 3, 6, 6, 2), r(4, 3, 3, 3, 3)], "width 2 (padded to 2)")
g.error("conv3d/same-stride", "conv3d", [x, w], "conv3d: padding=\"same\" needs stride 1", {"padding": "same", "stride": 2})
g.error("conv3d/bad-padding", "conv3d", [x, w], "conv3d: padding must be an int, a list of 3 ints, \"same\" or \"valid\", got \"full\"", {"padding": "full"})
g.error("conv3d/pair", "conv3d", [x, w], "conv3d: stride must be an int or a list of 3 ints, got [1, 2]", {"stride": [1, 2]})
g.error("conv3d/zero-stride", "conv3d", [x, w], "conv3d: stride must be at least 1", {"stride": 0})
g.error("conv3d/negative-padding", "conv3d", [x, w], "conv3d: padding must be non-negative", {"padding": -1})
g.error("conv3d/bias", "conv3d", [x, w, r(3)], "conv3d: bias of shape [3], expected [4]")
g.error("conv3d/int", "conv3d", [torch.ones(1, 1, 3, 3, 3, dtype=torch.int64), torch.ones(1, 1, 2, 2, 2, dtype=torch.int64)], "conv3d: expected float32 or float64 tensors")

# Gradients of conv3d with respect to the input, the weight and the bias.
g.grad_case("conv3d", "conv3d", F.conv3d, [r(2, 3, 5, 6, 5), r(4, 3, 2, 3, 3), r(4)], {"stride": [2, 1, 2], "padding": 1}, atol=1e-4, rtol=1e-4)
g.grad_case("conv3d-groups-dilation", "conv3d", F.conv3d, [r(1, 4, 7, 5, 6), r(6, 2, 2, 2, 3), r(6)], {"groups": 2, "dilation": [2, 1, 2], "padding": [1, 1, 0]}, atol=1e-4, rtol=1e-4)
g.grad_case("conv3d-same-unbatched", "conv3d", F.conv3d, [r(2, 4, 5, 6), r(3, 2, 2, 3, 2)], {"padding": "same"}, atol=1e-4, rtol=1e-4)

# max_pool3d: stride, padding, dilation, ceil_mode, unbatched, float64,
# return_indices (flat indices into D×H×W, as torch).
v = r(2, 2, 5, 6, 7)
g.case("max_pool3d/kernel2", "max_pool3d", F.max_pool3d, [v, 2])
g.case("max_pool3d/kernel3-stride2-pad1", "max_pool3d", F.max_pool3d, [v, 3], {"stride": 2, "padding": 1})
g.case("max_pool3d/triples", "max_pool3d", F.max_pool3d, [v, [3, 2, 4]], {"stride": [2, 1, 3], "padding": [1, 0, 2], "dilation": [2, 1, 1]})
g.case("max_pool3d/ceil", "max_pool3d", F.max_pool3d, [v, 2], {"stride": 2, "ceil_mode": True})
g.case("max_pool3d/ceil-pad", "max_pool3d", F.max_pool3d, [v, 3], {"stride": 2, "padding": 1, "ceil_mode": True})
g.case("max_pool3d/ceil-dropped-window", "max_pool3d", F.max_pool3d, [r(1, 2, 5, 5, 5), 2], {"stride": 2, "padding": 1, "ceil_mode": True})
g.case("max_pool3d/ceil-overhang", "max_pool3d", F.max_pool3d, [r(1, 2, 2, 2, 2), 3], {"stride": 2, "ceil_mode": True})
g.case("max_pool3d/dilation-ceil", "max_pool3d", F.max_pool3d, [v, 2], {"stride": 3, "dilation": 2, "ceil_mode": True, "padding": 1})
g.case("max_pool3d/stride-none", "max_pool3d", F.max_pool3d, [v, 3], {"stride": None})
g.case("max_pool3d/stride-empty", "max_pool3d", F.max_pool3d, [v, 3], {"stride": []})
g.case("max_pool3d/unbatched", "max_pool3d", F.max_pool3d, [r(3, 5, 6, 7), 2], {"padding": 1})
g.case("max_pool3d/f64", "max_pool3d", F.max_pool3d, [v.double(), 3], {"stride": 2, "padding": 1})
g.case("max_pool3d/window-of-padding", "max_pool3d", F.max_pool3d, [r(1, 1, 1, 3, 3), [2, 1, 1]], {"dilation": [2, 1, 1], "padding": [1, 0, 0]})
g.case("max_pool3d/ties", "max_pool3d", F.max_pool3d, [torch.ones(1, 1, 4, 4, 4), 2], {"stride": 1})
g.case("max_pool3d/-inf", "max_pool3d", F.max_pool3d, [torch.full((1, 1, 3, 3, 3), float("-inf")), 2], {"padding": 1})
g.case("max_pool3d/nan", "max_pool3d", F.max_pool3d, [torch.tensor([1.0, float("nan"), 3.0, 2.0, 0.0, float("nan"), 4.0, 5.0]).reshape(1, 1, 2, 2, 2), [2, 1, 2]])
g.case("max_pool3d/keywords", "max_pool3d", lambda input, kernel_size, stride, padding, dilation, ceil_mode: F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode), [],
       {"input": r(1, 2, 5, 5, 5), "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1, "ceil_mode": True})
for name, args, kw in [
    ("indices", [v, 2], {}),
    ("indices-pad-ceil", [v, 3], {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("indices-dilation", [v, [2, 3, 2]], {"stride": [1, 2, 3], "dilation": [3, 1, 2], "padding": [1, 1, 0]}),
    ("indices-unbatched", [r(2, 5, 6, 7), 3], {"stride": 2, "padding": 1}),
    ("indices-ties", [torch.ones(1, 1, 4, 4, 4), 2], {"stride": 1}),
    ("indices--inf", [torch.full((1, 1, 3, 3, 3), float("-inf")), 2], {"padding": 1}),
    ("indices-nan", [torch.tensor([1.0, float("nan"), 3.0, 2.0, 0.0, float("nan"), 4.0, 5.0]).reshape(1, 1, 2, 2, 2), [2, 1, 2]], {}),
    ("indices-ceil-overhang", [r(1, 2, 2, 2, 2), 3], {"stride": 2, "ceil_mode": True}),
    ("indices-window-of-padding", [r(1, 1, 1, 3, 3), [2, 1, 1]], {"dilation": [2, 1, 1], "padding": [1, 0, 0]}),
]:
    g.case("max_pool3d/" + name, "max_pool3d", F.max_pool3d, args, dict(kw, return_indices=True))
g.error("max_pool3d/rank", "max_pool3d", [r(2, 3, 4), 2], "max_pool3d: expected an input of shape [N, C, D, H, W] or [C, D, H, W], got [2, 3, 4]")
g.error("max_pool3d/int", "max_pool3d", [torch.ones(1, 1, 3, 3, 3, dtype=torch.int64), 2], "max_pool3d: expected a float32 or float64 tensor, got int64")
g.error("max_pool3d/pad-too-large", "max_pool3d", [v, 2], "max_pool3d: padding (2, 2, 2) must be at most half of the kernel_size (2, 2, 2)", {"padding": 2})
g.error("max_pool3d/too-small", "max_pool3d", [r(1, 1, 2, 5, 5), 3], "max_pool3d: the input's depth 2 (padded to 2) is smaller than the kernel's extent 3")
g.error("max_pool3d/kernel0", "max_pool3d", [v, 0], "max_pool3d: kernel_size must be at least 1")
g.error("max_pool3d/pair", "max_pool3d", [v, [2, 2]], "max_pool3d: kernel_size must be an int or a list of 3 ints, got [2, 2]")
g.error("max_pool3d/empty", "max_pool3d", [r(1, 0, 3, 3, 3), 2], "max_pool3d: the input [1, 0, 3, 3, 3] has an empty non-batch dimension")

# Gradients of the pools (distinct values: one maximum a window).
g.grad_case("max_pool3d", "max_pool3d", F.max_pool3d, [distinct(2, 2, 5, 6, 7), 3], {"stride": 2, "padding": 1})
g.grad_case("max_pool3d-overlap-ceil", "max_pool3d", F.max_pool3d, [distinct(1, 2, 6, 5, 7), [3, 2, 3]], {"stride": [1, 2, 2], "ceil_mode": True, "dilation": [1, 1, 2]})
g.grad_case("max_pool3d-unbatched", "max_pool3d", F.max_pool3d, [distinct(2, 4, 5, 6), 2], {"stride": 1, "padding": 1})
g.grad_case("max_pool3d-ties", "max_pool3d", F.max_pool3d, [torch.ones(1, 1, 4, 4, 4), 2], {"stride": 1, "padding": 1})
NAN = torch.tensor([1.0, float("nan"), 3.0, 2.0, 0.0, float("nan"), 4.0, 5.0, float("nan")] * 3).reshape(1, 1, 3, 3, 3)
NEG = torch.tensor([float("-inf")] * 26 + [1.0]).reshape(1, 1, 3, 3, 3)
for name, x in [("nan", NAN), ("-inf", NEG)]:
    g.grad_case("max_pool3d-" + name, "max_pool3d", F.max_pool3d, [x, 2], {"stride": 1, "padding": 1})
    g.grad_case("max_pool3d-indices-" + name, "max_pool3d", lambda *a, **k: F.max_pool3d(*a, **k, return_indices=True)[0], [x, 2], {"stride": 1, "padding": 1})
g.grad_case("max_pool3d-indices", "max_pool3d", lambda *a, **k: F.max_pool3d(*a, **k, return_indices=True)[0],
            [distinct(1, 2, 5, 5, 6), 3], {"stride": 2, "padding": 1, "ceil_mode": True})

# avg_pool3d: ceil_mode, count_include_pad, divisor_override, padding.
g.case("avg_pool3d/kernel2", "avg_pool3d", F.avg_pool3d, [v, 2])
g.case("avg_pool3d/pad", "avg_pool3d", F.avg_pool3d, [v, 3], {"stride": 2, "padding": 1})
g.case("avg_pool3d/pad-exclude", "avg_pool3d", F.avg_pool3d, [v, 3], {"stride": 2, "padding": 1, "count_include_pad": False})
g.case("avg_pool3d/ceil", "avg_pool3d", F.avg_pool3d, [v, 2], {"stride": 2, "ceil_mode": True})
g.case("avg_pool3d/ceil-pad", "avg_pool3d", F.avg_pool3d, [v, 3], {"stride": 2, "padding": 1, "ceil_mode": True})
g.case("avg_pool3d/ceil-pad-exclude", "avg_pool3d", F.avg_pool3d, [v, 3], {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
g.case("avg_pool3d/ceil-dropped-window", "avg_pool3d", F.avg_pool3d, [r(1, 2, 5, 5, 5), 2], {"stride": 2, "padding": 1, "ceil_mode": True})
g.case("avg_pool3d/ceil-last-window-short", "avg_pool3d", F.avg_pool3d, [r(1, 2, 4, 6, 5), 3], {"stride": 2, "ceil_mode": True})
g.case("avg_pool3d/ceil-last-window-short-exclude", "avg_pool3d", F.avg_pool3d, [r(1, 2, 4, 6, 5), 3], {"stride": 2, "ceil_mode": True, "padding": 1, "count_include_pad": False})
g.case("avg_pool3d/triples", "avg_pool3d", F.avg_pool3d, [v, [3, 2, 4]], {"stride": [2, 1, 3], "padding": [1, 0, 2]})
g.case("avg_pool3d/divisor", "avg_pool3d", F.avg_pool3d, [v, 3], {"stride": 2, "padding": 1, "divisor_override": 5})
g.case("avg_pool3d/divisor-negative", "avg_pool3d", F.avg_pool3d, [v, 2], {"divisor_override": -3})
g.case("avg_pool3d/divisor-ceil", "avg_pool3d", F.avg_pool3d, [v, 3], {"stride": 2, "padding": 1, "ceil_mode": True, "divisor_override": 7})
g.case("avg_pool3d/stride-empty", "avg_pool3d", F.avg_pool3d, [v, 3], {"stride": []})
g.case("avg_pool3d/unbatched", "avg_pool3d", F.avg_pool3d, [r(3, 5, 6, 7), 2], {"padding": 1, "count_include_pad": False})
g.case("avg_pool3d/f64", "avg_pool3d", F.avg_pool3d, [v.double(), 3], {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
g.case("avg_pool3d/keywords", "avg_pool3d", lambda input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: F.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override), [],
       {"input": r(1, 2, 5, 5, 5), "kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False, "divisor_override": None})
g.error("avg_pool3d/divisor-zero", "avg_pool3d", [v, 2], "avg_pool3d: divisor_override must not be zero", {"divisor_override": 0})
g.error("avg_pool3d/pad-too-large", "avg_pool3d", [v, 3], "avg_pool3d: padding (2, 2, 2) must be at most half of the kernel_size (3, 3, 3)", {"padding": 2})
g.error("avg_pool3d/int", "avg_pool3d", [torch.ones(1, 1, 3, 3, 3, dtype=torch.int64), 2], "avg_pool3d: expected a floating-point tensor, got int64")
g.error("avg_pool3d/smaller-than-kernel", "avg_pool3d", [r(1, 1, 2, 4, 4), 3], "avg_pool3d: the input's depth 2 is smaller than the kernel_size (3, 3, 3)", {"padding": 1})
g.error("avg_pool3d/rank", "avg_pool3d", [r(3, 3, 3), 2], "avg_pool3d: expected an input of shape [N, C, D, H, W] or [C, D, H, W], got [3, 3, 3]")
g.grad_case("avg_pool3d", "avg_pool3d", F.avg_pool3d, [r(2, 2, 5, 6, 7), 3], {"stride": 2, "padding": 1})
g.grad_case("avg_pool3d-ceil-exclude", "avg_pool3d", F.avg_pool3d, [r(1, 2, 6, 5, 7), [3, 2, 3]], {"stride": [2, 1, 2], "padding": [1, 1, 0], "ceil_mode": True, "count_include_pad": False})
g.grad_case("avg_pool3d-divisor", "avg_pool3d", F.avg_pool3d, [r(3, 4, 5, 6), 2], {"divisor_override": 3, "ceil_mode": True})

# adaptive_avg_pool3d: ints, lists with none, windows that overlap.
g.case("adaptive_avg_pool3d/int", "adaptive_avg_pool3d", F.adaptive_avg_pool3d, [v, 2])
g.case("adaptive_avg_pool3d/overlap", "adaptive_avg_pool3d", F.adaptive_avg_pool3d, [v, [3, 5, 4]])
g.case("adaptive_avg_pool3d/none", "adaptive_avg_pool3d", F.adaptive_avg_pool3d, [v, [None, 3, None]])
g.case("adaptive_avg_pool3d/larger", "adaptive_avg_pool3d", F.adaptive_avg_pool3d, [r(1, 2, 3, 4, 5), [5, 6, 7]])
g.case("adaptive_avg_pool3d/unbatched", "adaptive_avg_pool3d", F.adaptive_avg_pool3d, [r(3, 5, 6, 7), 1])
g.case("adaptive_avg_pool3d/f64", "adaptive_avg_pool3d", F.adaptive_avg_pool3d, [v.double(), [4, 3, 2]])
g.error("adaptive_avg_pool3d/size", "adaptive_avg_pool3d", [v, [2, 2]], "adaptive_avg_pool3d: output_size must be an int or a list of 3 (ints or none), got 2 values")
g.error("adaptive_avg_pool3d/rank", "adaptive_avg_pool3d", [r(3, 4, 5), 2], "adaptive_avg_pool3d: expected an input of shape [N, C, D, H, W] or [C, D, H, W]")
g.grad_case("adaptive_avg_pool3d", "adaptive_avg_pool3d", F.adaptive_avg_pool3d, [r(2, 2, 5, 6, 7), [3, 4, 2]])

g.write()
