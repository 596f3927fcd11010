"""Goldens of index_reduce and conv_transpose3d (stdlib/ops_missing.go):
/usr/bin/python3 gen_missing.py

index_reduce (torch.Tensor.index_reduce, out of place): every reduction
with and without include_self, along several dims, repeated, int32 and
0-d indices, 0-d and empty cases, integers (mean floors), NaN, keywords;
gradients of input and source for every reduction (ties and zeros
included), replayed by vjp_of_sum as in gen_grad.py; errors.

conv_transpose3d (F.conv_transpose3d): strides, paddings, output_padding,
groups, dilation, triples, no bias, unbatched and empty-batch inputs,
float64, keywords; gradients of input, weight and bias; errors.
"""

import warnings

import torch
import torch.nn.functional as F

from gen_common import Golden

# torch warns that index_reduce is in beta.
warnings.filterwarnings("ignore", message="index_reduce")
torch.manual_seed(1313)
g = Golden("missing")
grad_case = g.grad_case

L = lambda *v: torch.tensor(v, dtype=torch.int64)
nan = float("nan")


def rn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def r8(*shape, dtype=torch.float32):
    """Normal values rounded to multiples of 1/8: exact products and sums,
    so the order of a float32 accumulation does not matter much."""
    return (torch.randn(shape, dtype=torch.float64) * 8).round().div(8).to(dtype)


def index_reduce(input, dim, index, source, reduce, include_self=True):
    return input.index_reduce(dim, index, source, reduce, include_self=include_self)


def replaced_by_inf(input, dim, index, source, reduce, include_self=True):
    """index_reduce without input's own slices where index names them, for
    amax and amin: those slices made -inf (amax) or inf (amin) and then
    included. It has index_reduce's values, and the gradient tref's
    scatter_reduce gives (ties shared among the values that are reduced):
    torch 1.13's own rule also counts a replaced element of input equal to
    the result, so that source's gradient there does not sum to the
    result's (a tie of that kind is the only difference)."""
    assert not include_self and reduce in ("amax", "amin")
    mask = torch.zeros(input.shape[dim], dtype=torch.bool)
    mask[index] = True
    mask = mask.reshape([-1 if d == dim else 1 for d in range(input.dim())])
    fill = float("-inf") if reduce == "amax" else float("inf")
    return index_reduce(torch.where(mask, torch.tensor(fill), input), dim, index, source, reduce)


# ---- index_reduce --------------------------------------------------------
x34, s24 = rn(3, 4), rn(2, 4)
for red in ("prod", "mean", "amax", "amin"):
    for inc in (True, False):
        tag = "%s/%s" % (red, "self" if inc else "noself")
        kw = {} if inc else {"include_self": False}
        g.case("index_reduce/" + tag + "/dim0", "index_reduce", index_reduce, [x34, 0, L(2, 0), s24, red], kw)
        g.case("index_reduce/" + tag + "/repeat-dim1", "index_reduce", index_reduce, [x34, 1, L(3, 0, 3, 3, 1), rn(3, 5), red], kw)
        g.case("index_reduce/" + tag + "/3d-neg-dim", "index_reduce", index_reduce, [rn(2, 3, 4), -2, L(1, 1, 0, 2), rn(2, 4, 4), red], kw)
        g.case("index_reduce/" + tag + "/int", "index_reduce", index_reduce,
               [torch.tensor([[-7, 2, 9], [4, -5, 6], [1, 0, -3]]), 0, L(0, 0, 2), torch.tensor([[2, 0, -1], [-1, 3, 4], [5, 5, 5]]), red], kw)
        # Ties (amax, amin share the gradient among equal values) and zeros
        # (prod's gradient where one factor, or two, are zero).
        xt = torch.tensor([[1.0, 0.0, 2.0], [3.0, 4.0, 0.0], [0.5, -1.0, 2.0], [2.0, 2.0, 2.0]])
        st = torch.tensor([[1.0, 5.0, 2.0], [0.0, 4.0, 0.0], [3.0, 4.0, -2.0], [2.0, 0.0, 2.0], [1.0, 2.0, 2.0]])
        ref = index_reduce
        if red in ("amax", "amin") and not inc:
            ref = replaced_by_inf
        grad_case("index_reduce/" + tag, "index_reduce", ref, [xt, 0, L(0, 1, 1, 3, 0), st, red], kw)
        grad_case("index_reduce/" + tag + "/dim1", "index_reduce", index_reduce, [rn(2, 3, 2), 1, L(2, 0, 2, 2), rn(2, 4, 2), red], kw)
g.case("index_reduce/float64", "index_reduce", index_reduce, [rn(4, 2, dtype=torch.float64), 0, L(3, 1, 3), rn(3, 2, dtype=torch.float64), "mean"], rtol=1e-12)
g.case("index_reduce/int32-index", "index_reduce", index_reduce, [x34, 0, torch.tensor([1, 1], dtype=torch.int32), s24, "amax"])
g.case("index_reduce/uint8-mean", "index_reduce", index_reduce,
       [torch.tensor([1, 200, 3], dtype=torch.uint8), 0, L(0, 0, 1), torch.tensor([4, 5, 255], dtype=torch.uint8), "mean"])
g.case("index_reduce/0d-index", "index_reduce", index_reduce, [x34, 0, torch.tensor(1), rn(1, 4), "prod"])
g.case("index_reduce/0d-input", "index_reduce", index_reduce, [torch.tensor(5.0), 0, L(0, 0), torch.tensor([2.0, 3.0]), "prod"])
g.case("index_reduce/0d-input-0d-source", "index_reduce", index_reduce, [torch.tensor(5.0), 0, torch.tensor(0), torch.tensor(2.0), "amin"])
g.case("index_reduce/1d-input-0d-source", "index_reduce", index_reduce, [torch.tensor([5.0, 3.0]), 0, torch.tensor(1), torch.tensor(2.0), "mean"])
g.case("index_reduce/empty-index", "index_reduce", index_reduce, [x34, 0, torch.zeros(0, dtype=torch.int64), torch.ones(0, 4), "mean"])
g.case("index_reduce/empty-input", "index_reduce", index_reduce, [torch.ones(3, 0), 0, L(2, 2), torch.ones(2, 0), "prod"])
g.case("index_reduce/nan", "index_reduce", index_reduce, [torch.tensor([1.0, nan, 3.0, 4.0]), 0, L(0, 0, 1, 3), torch.tensor([nan, 5.0, 7.0, 2.0]), "amax"])
g.case("index_reduce/nan-min", "index_reduce", index_reduce, [torch.tensor([1.0, nan, 3.0, 4.0]), 0, L(0, 0, 1, 3), torch.tensor([nan, 5.0, 7.0, 2.0]), "amin"], {"include_self": False})
g.case("index_reduce/keywords", "index_reduce", lambda **k: torch.index_reduce(**k), [],
       {"input": x34, "dim": 1, "index": L(0, 0), "source": rn(3, 2), "reduce": "mean", "include_self": False})
g.error("index_reduce/error/sum", "index_reduce", [x34, 0, L(0, 1), s24, "sum"], 'index_reduce: reduce must be "prod", "mean", "amax" or "amin", got "sum"')
g.error("index_reduce/error/bool", "index_reduce", [torch.tensor([True, False]), 0, L(0), torch.tensor([True]), "prod"], "index_reduce: the input must not be bool")
g.error("index_reduce/error/out-of-range", "index_reduce", [x34, 0, L(3, 0), s24, "prod"], "index_reduce: index 3 is out of bounds for dimension 0 with size 3")
g.error("index_reduce/error/negative", "index_reduce", [x34, 0, L(-1, 0), s24, "prod"], "index_reduce: index -1 is out of bounds for dimension 0 with size 3")
g.error("index_reduce/error/dtype", "index_reduce", [x34, 0, L(1, 0), s24.double(), "prod"], "index_reduce: source (float64) must have the input's dtype float32")
g.error("index_reduce/error/count", "index_reduce", [x34, 0, L(1, 0, 2), s24, "amin"], "index_reduce: source of shape [2, 4] does not match the input's shape [3, 4] with dimension 0 of size 3")
g.error("index_reduce/error/2d-index", "index_reduce", [x34, 0, torch.tensor([[1, 0]]), s24, "amin"], "index_reduce: the index must be 0-d or 1-d")
g.error("index_reduce/error/float-index", "index_reduce", [x34, 0, torch.tensor([1.0, 0.0]), s24, "amin"], "index_reduce: the index must be an int64 or int32 tensor")
g.error("index_reduce/error/dim", "index_reduce", [x34, 2, L(1, 0), s24, "amin"], "index_reduce: dim 2 is out of range for a tensor of shape [3, 4]")

# ---- conv_transpose3d ----------------------------------------------------
# float32 sums accumulate in another order than torch's kernels.
TOL = {"rtol": 1e-4, "atol": 1e-4}
x, w, b = r8(2, 3, 3, 4, 5), r8(3, 2, 2, 3, 2), r8(2)
g.case("conv_transpose3d/basic", "conv_transpose3d", F.conv_transpose3d, [x, w, b], **TOL)
g.case("conv_transpose3d/no-bias", "conv_transpose3d", F.conv_transpose3d, [x, w], **TOL)
g.case("conv_transpose3d/none-bias", "conv_transpose3d", F.conv_transpose3d, [x, w, None], {"stride": 2}, **TOL)
g.case("conv_transpose3d/stride2", "conv_transpose3d", F.conv_transpose3d, [x, w, b], {"stride": 2}, **TOL)
g.case("conv_transpose3d/stride2-pad1", "conv_transpose3d", F.conv_transpose3d, [x, w, b], {"stride": 2, "padding": 1}, **TOL)
g.case("conv_transpose3d/stride2-outpad1", "conv_transpose3d", F.conv_transpose3d, [x, w, b], {"stride": 2, "padding": 1, "output_padding": 1}, **TOL)
g.case("conv_transpose3d/triples", "conv_transpose3d", F.conv_transpose3d, [x, w, b],
       {"stride": [3, 1, 2], "padding": [1, 0, 2], "output_padding": [2, 0, 1], "dilation": [1, 2, 2]}, **TOL)
g.case("conv_transpose3d/one-element-lists", "conv_transpose3d", F.conv_transpose3d, [x, w, b], {"stride": [2], "padding": [1], "output_padding": [1], "dilation": [1]}, **TOL)
g.case("conv_transpose3d/outpad-by-dilation", "conv_transpose3d", F.conv_transpose3d, [x, w, b], {"dilation": [3, 2, 2], "output_padding": [2, 1, 0]}, **TOL)
g.case("conv_transpose3d/depth-pad-crops", "conv_transpose3d", F.conv_transpose3d, [r8(1, 2, 5, 2, 2), r8(2, 3, 4, 1, 1), r8(3)], {"padding": [3, 0, 0], "stride": [2, 1, 1]}, **TOL)
g.case("conv_transpose3d/dilation", "conv_transpose3d", F.conv_transpose3d, [r8(1, 2, 3, 3, 3), r8(2, 3, 3, 3, 3), r8(3)], {"dilation": 2, "padding": 2}, **TOL)
g.case("conv_transpose3d/groups", "conv_transpose3d", F.conv_transpose3d, [r8(2, 4, 3, 3, 2), r8(4, 3, 2, 2, 3), r8(6)], {"groups": 2, "stride": [1, 2, 1], "padding": 1}, **TOL)
g.case("conv_transpose3d/depthwise", "conv_transpose3d", F.conv_transpose3d, [r8(1, 3, 2, 3, 3), r8(3, 1, 3, 2, 2)], {"groups": 3, "stride": 2}, **TOL)
g.case("conv_transpose3d/groups-outpad", "conv_transpose3d", F.conv_transpose3d, [r8(1, 6, 2, 3, 2), r8(6, 2, 2, 2, 2), r8(6)],
       {"groups": 3, "stride": [2, 3, 2], "output_padding": [1, 2, 0], "dilation": [1, 1, 2], "padding": [0, 1, 1]}, **TOL)
g.case("conv_transpose3d/unbatched", "conv_transpose3d", F.conv_transpose3d, [r8(3, 3, 4, 2), r8(3, 4, 2, 2, 2), r8(4)], {"stride": 2, "padding": 1}, **TOL)
g.case("conv_transpose3d/kd1", "conv_transpose3d", F.conv_transpose3d, [r8(2, 3, 3, 4, 4), r8(3, 2, 1, 3, 3), r8(2)], {"padding": [0, 1, 1]}, **TOL)
g.case("conv_transpose3d/kd1-stride", "conv_transpose3d", F.conv_transpose3d, [r8(2, 3, 3, 4, 4), r8(3, 2, 1, 3, 3), r8(2)], {"stride": [2, 1, 1], "output_padding": [1, 0, 0]}, **TOL)
g.case("conv_transpose3d/pointwise", "conv_transpose3d", F.conv_transpose3d, [r8(2, 4, 2, 3, 3), r8(4, 5, 1, 1, 1), r8(5)], **TOL)
g.case("conv_transpose3d/batch0", "conv_transpose3d", F.conv_transpose3d, [r8(0, 3, 3, 4, 5), w, b], {"stride": 2}, **TOL)
g.case("conv_transpose3d/float64", "conv_transpose3d", F.conv_transpose3d, [rn(1, 2, 3, 3, 2, dtype=torch.float64), rn(2, 3, 2, 2, 3, dtype=torch.float64), rn(3, dtype=torch.float64)],
       {"stride": [2, 1, 2], "padding": 1, "output_padding": [1, 0, 0]}, rtol=1e-10, atol=1e-12)
g.case("conv_transpose3d/keywords", "conv_transpose3d", lambda **k: F.conv_transpose3d(**k), [],
       {"input": x, "weight": w, "bias": b, "stride": 2, "padding": 1, "output_padding": 1, "groups": 1, "dilation": 1}, **TOL)
grad_case("conv_transpose3d", "conv_transpose3d", F.conv_transpose3d, [rn(2, 2, 2, 3, 2), rn(2, 3, 2, 2, 3), rn(3)], {"stride": 2, "padding": 1, "output_padding": 1}, atol=1e-4)
grad_case("conv_transpose3d/groups-dilation", "conv_transpose3d", F.conv_transpose3d, [rn(1, 4, 3, 2, 2), rn(4, 1, 3, 2, 2)],
          {"groups": 2, "dilation": [2, 1, 2], "stride": [1, 2, 1], "padding": [2, 0, 1]}, atol=1e-4)
grad_case("conv_transpose3d/unbatched", "conv_transpose3d", F.conv_transpose3d, [rn(2, 2, 3, 3), rn(2, 2, 1, 2, 2), rn(2)], {"stride": [3, 1, 1]}, atol=1e-4)
grad_case("conv_transpose3d/float64", "conv_transpose3d", F.conv_transpose3d,
          [rn(1, 2, 2, 2, 2, dtype=torch.float64), rn(2, 2, 2, 2, 2, dtype=torch.float64), rn(2, dtype=torch.float64)], {"stride": 2}, atol=1e-10)

xe, we = rn(1, 2, 3, 3, 3), rn(2, 3, 2, 2, 2)
g.error("conv_transpose3d/error/input-rank", "conv_transpose3d", [rn(2, 3, 3), we], "conv_transpose3d: expected an input of shape [N, C, D, H, W] or [C, D, H, W], got [2, 3, 3]")
g.error("conv_transpose3d/error/weight-rank", "conv_transpose3d", [xe, rn(2, 3, 2, 2)], "conv_transpose3d: expected a weight of shape [C, Cout/groups, kd, kh, kw], got [2, 3, 2, 2]")
g.error("conv_transpose3d/error/channels", "conv_transpose3d", [xe, rn(3, 3, 2, 2, 2)], "conv_transpose3d: input [1, 2, 3, 3, 3] has 2 channels, weight [3, 3, 2, 2, 2] expects 3")
g.error("conv_transpose3d/error/groups", "conv_transpose3d", [xe, we], "conv_transpose3d: 2 input channels are not divisible by groups=3", {"groups": 3})
g.error("conv_transpose3d/error/groups0", "conv_transpose3d", [xe, we], "conv_transpose3d: groups must be at least 1, got 0", {"groups": 0})
g.error("conv_transpose3d/error/bias", "conv_transpose3d", [xe, we, rn(4)], "conv_transpose3d: bias of shape [4], expected [3]")
g.error("conv_transpose3d/error/stride0", "conv_transpose3d", [xe, we], "conv_transpose3d: stride must be at least 1, got (1, 0, 1)", {"stride": [1, 0, 1]})
g.error("conv_transpose3d/error/padding", "conv_transpose3d", [xe, we], "conv_transpose3d: padding must be at least 0, got (-1, -1, -1)", {"padding": -1})
g.error("conv_transpose3d/error/outpad", "conv_transpose3d", [xe, we], "conv_transpose3d: output_padding (1, 1, 1) must be smaller than either stride (1, 2, 2) or dilation (1, 1, 1) along each axis (not along the depth)",
        {"output_padding": 1, "stride": [1, 2, 2]})
g.error("conv_transpose3d/error/pad-too-large", "conv_transpose3d", [xe, we], "conv_transpose3d: the input's depth 3 gives an output depth of -6; padding (5, 5, 5) is too large", {"padding": 5})
g.error("conv_transpose3d/error/stride-list", "conv_transpose3d", [xe, we], "conv_transpose3d: stride must be an int or a list of 3 ints, got [1, 2]", {"stride": [1, 2]})
g.error("conv_transpose3d/error/empty-depth", "conv_transpose3d", [rn(1, 2, 0, 3, 3), we], "conv_transpose3d: the input [1, 2, 0, 3, 3] has an empty depth, height or width")
g.error("conv_transpose3d/error/empty-kernel", "conv_transpose3d", [xe, rn(2, 3, 0, 2, 2)], "conv_transpose3d: the kernel of weight [2, 3, 0, 2, 2] is empty")
g.error("conv_transpose3d/error/int", "conv_transpose3d", [torch.ones(1, 2, 3, 3, 3, dtype=torch.int64), torch.ones(2, 3, 2, 2, 2, dtype=torch.int64)], "conv_transpose3d")
# float32 and float64 operands give float64, as tref's conv3d and
# conv_transpose2d (torch refuses to mix them).
g.expect("conv_transpose3d/mixed-dtypes", "conv_transpose3d", [xe, we.double()], {"stride": 2}, F.conv_transpose3d(xe.double(), we.double(), stride=2), rtol=1e-10, atol=1e-12)
g.error("conv_transpose3d/error/huge-stride", "conv_transpose3d", [xe, we], "conv_transpose3d: the output's depth would be longer than", {"stride": 1 << 60})
g.write()
