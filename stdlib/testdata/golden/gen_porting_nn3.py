"""Goldens of the rest of torch.nn.functional added as tref builtins:
/usr/bin/python3 gen_porting_nn3.py

lp_pool1d/2d (norm types, ceil_mode, windows summing to 0), max_unpool1d/2d
(indices from max_pool*, output_size, repeated indices), multilabel_margin_loss
(-1 terminated targets, repeats, NaN), triplet_margin_with_distance_loss
(the default distance; a script's function is tested in
spec/torch_porting_nn3.tr), bilinear, adaptive_max_pool3d (windows, indices,
ties, NaN), upsample and its nearest and bilinear forms, rrelu in
evaluation: values (dtypes, keywords under torch's names, edge cases), the
gradients (replayed by vjp_of_sum), and errors, each checked to be an error
in torch too. The random builtins (rrelu in training, the dropouts,
gumbel_softmax) are tested in stdlib/nn_port_test.go; here only their
evaluation mode (the input itself) and their errors.
"""

import warnings

import torch
import torch.nn.functional as F

from gen_common import Golden

warnings.simplefilter("ignore")
torch.manual_seed(53)
g = Golden("porting_nn3")
grad_case = g.grad_case

nan, inf = float("nan"), float("inf")


def rn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def error(name, fn, ref, args, substring, kwargs=None):
    """g.error, after checking that torch's ref fails on the same call."""
    try:
        ref(*args, **(kwargs or {}))
    except Exception:
        g.error(name, fn, args, substring, kwargs)
        return
    raise AssertionError("torch accepts the error case " + name)


# lp_pool2d, lp_pool1d
lx = rn(2, 3, 6, 5)
g.case("lp_pool2d/p2", "lp_pool2d", F.lp_pool2d, [lx, 2, 2], atol=1e-5)
g.case("lp_pool2d/p1-stride", "lp_pool2d", F.lp_pool2d, [lx, 1, [3, 2]], {"stride": [2, 1]}, atol=1e-5)
g.case("lp_pool2d/p3-odd", "lp_pool2d", F.lp_pool2d, [lx, 3, 2], atol=1e-5)
g.case("lp_pool2d/p1.5-positive", "lp_pool2d", F.lp_pool2d, [lx.abs(), 1.5, 3], {"stride": 1}, atol=1e-5)
g.case("lp_pool2d/ceil", "lp_pool2d", F.lp_pool2d, [lx, 2, 3], {"stride": 2, "ceil_mode": True}, atol=1e-5)
g.case("lp_pool2d/unbatched", "lp_pool2d", F.lp_pool2d, [rn(3, 4, 4), 2, 2], atol=1e-5)
g.case("lp_pool2d/negative-p", "lp_pool2d", F.lp_pool2d, [lx.abs() + 0.5, -2, 2], atol=1e-5)
g.case("lp_pool2d/inf", "lp_pool2d", F.lp_pool2d, [lx, inf, 2])
g.case("lp_pool2d/zeros", "lp_pool2d", F.lp_pool2d, [torch.zeros(1, 1, 4, 4), 2, 2])
g.case("lp_pool2d/float64", "lp_pool2d", F.lp_pool2d, [rn(1, 2, 4, 4, dtype=torch.float64), 2, 2], rtol=1e-12)
g.case("lp_pool2d/keywords", "lp_pool2d", lambda input, norm_type, kernel_size, stride, ceil_mode: F.lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode), [],
       {"input": lx, "norm_type": 2.0, "kernel_size": 2, "stride": 3, "ceil_mode": True}, atol=1e-5)
g.case("lp_pool1d/p2", "lp_pool1d", F.lp_pool1d, [rn(2, 3, 9), 2, 3], atol=1e-5)
g.case("lp_pool1d/stride-ceil", "lp_pool1d", F.lp_pool1d, [rn(2, 3, 9), 2, 2], {"stride": 3, "ceil_mode": True}, atol=1e-5)
g.case("lp_pool1d/unbatched", "lp_pool1d", F.lp_pool1d, [rn(3, 7), 1, 2], atol=1e-5)
g.case("lp_pool1d/stride-list", "lp_pool1d", F.lp_pool1d, [rn(1, 2, 8), 3, 2, [1]], atol=1e-5)
# a window of zeros has a zero gradient (relu's at 0), not inf·0
zx = torch.tensor([[[[0.0, 0.0, 1.0, -2.0], [0.0, 0.0, 0.5, 3.0], [1.0, -1.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]]]])
grad_case("lp_pool2d/zero-window", "lp_pool2d", F.lp_pool2d, [zx, 2, 2])
grad_case("lp_pool2d", "lp_pool2d", F.lp_pool2d, [rn(2, 2, 5, 5), 2, 3], {"stride": 2, "ceil_mode": True}, atol=1e-4)
grad_case("lp_pool2d/p3", "lp_pool2d", F.lp_pool2d, [rn(1, 2, 4, 4).abs() + 0.1, 3, 2], atol=1e-4)
grad_case("lp_pool1d", "lp_pool1d", F.lp_pool1d, [rn(2, 3, 8), 2, 3], {"stride": 2}, atol=1e-4)
error("lp_pool2d/norm-zero", "lp_pool2d", F.lp_pool2d, [lx, 0, 2], "lp_pool2d: norm_type must not be 0")
error("lp_pool2d/too-big", "lp_pool2d", F.lp_pool2d, [lx, 2, 7], "lp_pool2d over [2, 3, 6, 5]: the height 6 (padded to 6) is smaller than the kernel extent 7")
error("lp_pool2d/stride-zero", "lp_pool2d", F.lp_pool2d, [lx, 2, 2, 0], "lp_pool2d over [2, 3, 6, 5]: stride must be at least 1")
error("lp_pool2d/2d", "lp_pool2d", F.lp_pool2d, [rn(4, 4), 2, 2], "lp_pool2d over [4, 4]: expected an input of shape [N, C, H, W] or [C, H, W]")
error("lp_pool1d/kernel-list", "lp_pool1d", F.lp_pool1d, [rn(2, 3, 9), 2, [3]], "lp_pool1d: kernel_size must be an int")
error("lp_pool1d/too-big", "lp_pool1d", F.lp_pool1d, [rn(2, 3, 4), 2, 5], "lp_pool1d: the input's length 4 is smaller than the kernel_size 5")
error("lp_pool1d/1d", "lp_pool1d", F.lp_pool1d, [rn(4), 2, 2], "lp_pool1d: expected an input of shape [N, C, L] or [C, L]")
error("lp_pool1d/stride-zero", "lp_pool1d", F.lp_pool1d, [rn(2, 3, 4), 2, 2, 0], "lp_pool1d: kernel_size and stride must be at least 1, got 2 and 0")
g.error("lp_pool2d/int", "lp_pool2d", [torch.ones(1, 1, 4, 4, dtype=torch.int64), 2, 2], "lp_pool2d: the input must be floating point")  # torch pools int64 as int64

# max_unpool2d, max_unpool1d: the indices of max_pool*(return_indices=True)
ux = rn(2, 3, 6, 6)
uv, ui = F.max_pool2d(ux, 2, return_indices=True)
g.case("max_unpool2d/basic", "max_unpool2d", F.max_unpool2d, [uv, ui, 2])
uv3, ui3 = F.max_pool2d(rn(2, 3, 5, 5), 3, stride=2, padding=1, return_indices=True)
g.case("max_unpool2d/stride-padding", "max_unpool2d", F.max_unpool2d, [uv3, ui3, 3, 2, 1])
uv6, ui6 = F.max_pool2d(ux, 3, stride=2, padding=1, return_indices=True)
g.case("max_unpool2d/output-size", "max_unpool2d", F.max_unpool2d, [uv6, ui6, 3], {"stride": 2, "padding": 1, "output_size": [6, 6]})
g.case("max_unpool2d/output-size-4", "max_unpool2d", F.max_unpool2d, [uv, ui, 2], {"output_size": [2, 3, 7, 7]})
g.case("max_unpool2d/unbatched", "max_unpool2d", F.max_unpool2d, [uv[0], ui[0], [2, 2]])
g.case("max_unpool2d/float64", "max_unpool2d", F.max_unpool2d, [uv.double(), ui, 2])
g.case("max_unpool2d/empty-output", "max_unpool2d", F.max_unpool2d, [uv[:, :, :2, :2], ui[:, :, :2, :2], 2], {"padding": 2})
g.case("max_unpool2d/empty-batch", "max_unpool2d", F.max_unpool2d, [rn(0, 2, 2, 2), torch.zeros(0, 2, 2, 2, dtype=torch.int64), 2])
g.case("max_unpool2d/keywords", "max_unpool2d", lambda input, indices, kernel_size, stride: F.max_unpool2d(input, indices, kernel_size, stride), [],
       {"input": uv, "indices": ui, "kernel_size": 2, "stride": [3, 2]})
uxl = rn(2, 3, 9)
ulv, uli = F.max_pool1d(uxl, 3, stride=2, return_indices=True)
g.case("max_unpool1d/basic", "max_unpool1d", F.max_unpool1d, [ulv, uli, 3, 2])
g.case("max_unpool1d/output-size", "max_unpool1d", F.max_unpool1d, [ulv, uli, 3, 2], {"output_size": [10]})
g.case("max_unpool1d/output-size-3", "max_unpool1d", F.max_unpool1d, [ulv, uli, 3, 2], {"output_size": [2, 3, 10]})
g.case("max_unpool1d/unbatched", "max_unpool1d", F.max_unpool1d, [ulv[1], uli[1], 3, 2])
g.case("max_unpool1d/list-args", "max_unpool1d", F.max_unpool1d, [ulv, uli, [3], [2], [0]])
# repeated indices: the last write wins
rep_v, rep_i = torch.tensor([[[1.0, 2.0, 3.0, 4.0]]]), torch.tensor([[[1, 1, 0, 1]]])
g.case("max_unpool1d/repeats", "max_unpool1d", F.max_unpool1d, [rep_v, rep_i, 2])
grad_case("max_unpool2d", "max_unpool2d", F.max_unpool2d, [uv3, ui3, 3, 2, 1])
grad_case("max_unpool1d/repeats", "max_unpool1d", F.max_unpool1d, [rep_v, rep_i, 2])
grad_case("max_unpool1d/output-size", "max_unpool1d", F.max_unpool1d, [ulv, uli, 3, 2], {"output_size": [10]})
error("max_unpool2d/int32-indices", "max_unpool2d", F.max_unpool2d, [uv, ui.int(), 2], "max_unpool2d: the indices must be int64, got int32")
error("max_unpool2d/indices-shape", "max_unpool2d", F.max_unpool2d, [uv, ui[..., :1], 2], "max_unpool2d: the indices' shape [2, 3, 3, 1] differs from the input's [2, 3, 3, 3]")
error("max_unpool2d/index-range", "max_unpool2d", F.max_unpool2d, [uv, ui + 30, 2], "max_unpool2d: found an invalid max index")
error("max_unpool2d/negative-index", "max_unpool2d", F.max_unpool2d, [uv, ui - 40, 2], "max_unpool2d: found an invalid max index -")
error("max_unpool2d/output-size-range", "max_unpool2d", F.max_unpool2d, [uv, ui, 2], "max_unpool2d: invalid output_size [8, 6] (dimension 0 must be strictly between 4 and 8)", {"output_size": [8, 6]})
error("max_unpool2d/output-size-length", "max_unpool2d", F.max_unpool2d, [uv, ui, 2], "max_unpool2d: output_size must have 2 or 4 values, got 3", {"output_size": [1, 6, 6]})
error("max_unpool2d/2d", "max_unpool2d", F.max_unpool2d, [uv[0, 0], ui[0, 0], 2], "max_unpool2d: expected an input of shape [N, C, H, W] or [C, H, W]")
error("max_unpool2d/int-input", "max_unpool2d", F.max_unpool2d, [uv.long(), ui, 2], "max_unpool2d: the input must be floating point")
error("max_unpool2d/empty-channels", "max_unpool2d", F.max_unpool2d, [rn(1, 0, 2, 2), torch.zeros(1, 0, 2, 2, dtype=torch.int64), 2], "max_unpool2d: the input [1, 0, 2, 2] has an empty non-batch dimension")
error("max_unpool1d/1d", "max_unpool1d", F.max_unpool1d, [rn(4), torch.zeros(4, dtype=torch.int64), 2], "max_unpool1d: expected an input of shape [N, C, L] or [C, L]")
error("max_unpool1d/negative-size", "max_unpool1d", F.max_unpool1d, [ulv, uli, -1], "max_unpool1d: the output size [-4] is negative")

# multilabel_margin_loss
mx = rn(4, 5)
mt = torch.tensor([[3, 0, -1, 1, 4], [1, 2, 3, 4, 0], [-1, 2, 2, 2, 2], [4, 4, 1, -1, -1]])
for red in ("mean", "sum", "none"):
    g.case("multilabel_margin_loss/" + red, "multilabel_margin_loss", F.multilabel_margin_loss, [mx, mt], {"reduction": red})
g.case("multilabel_margin_loss/1d", "multilabel_margin_loss", F.multilabel_margin_loss, [mx[0], mt[0]])
g.case("multilabel_margin_loss/1d-none", "multilabel_margin_loss", F.multilabel_margin_loss, [mx[3], mt[3]], {"reduction": "none"})
g.case("multilabel_margin_loss/0d", "multilabel_margin_loss", F.multilabel_margin_loss, [torch.tensor(0.5), torch.tensor(0)])
g.case("multilabel_margin_loss/0d-minus1", "multilabel_margin_loss", F.multilabel_margin_loss, [torch.tensor(0.5), torch.tensor([-1])])
g.case("multilabel_margin_loss/empty-batch-none", "multilabel_margin_loss", F.multilabel_margin_loss, [rn(0, 3), torch.zeros(0, 3, dtype=torch.int64)], {"reduction": "none"})
g.case("multilabel_margin_loss/float64", "multilabel_margin_loss", F.multilabel_margin_loss, [mx.double(), mt], rtol=1e-12)
g.case("multilabel_margin_loss/nan-repeats", "multilabel_margin_loss", F.multilabel_margin_loss,
       [torch.tensor([[1.0, nan, 2.0], [1.0, 0.0, 2.0]]), torch.tensor([[0, -1, 1], [0, 0, -1]])], {"reduction": "none"})
g.case("multilabel_margin_loss/keywords", "multilabel_margin_loss", lambda input, target, reduction: F.multilabel_margin_loss(input, target, reduction=reduction), [],
       {"input": mx, "target": mt, "reduction": "sum"})
grad_case("multilabel_margin_loss", "multilabel_margin_loss", F.multilabel_margin_loss, [mx, mt], atol=1e-5)
grad_case("multilabel_margin_loss/none", "multilabel_margin_loss", F.multilabel_margin_loss, [rn(3, 6), torch.tensor([[5, 1, -1, 0, 0, 0], [0, 1, 2, 3, 4, 5], [2, 2, -1, 0, 0, 0]])], {"reduction": "none"}, atol=1e-5)
error("multilabel_margin_loss/target-range", "multilabel_margin_loss", F.multilabel_margin_loss, [mx, mt.clamp(max=3) + 2], "multilabel_margin_loss: target value 5 is out of range [-1, 5)")
error("multilabel_margin_loss/target-minus2", "multilabel_margin_loss", F.multilabel_margin_loss, [mx, mt - 1], "multilabel_margin_loss: target value -2 is out of range [-1, 5)")
error("multilabel_margin_loss/int32", "multilabel_margin_loss", F.multilabel_margin_loss, [mx, mt.int()], "multilabel_margin_loss: the target must hold int64 class indices, got int32")
error("multilabel_margin_loss/shape", "multilabel_margin_loss", F.multilabel_margin_loss, [mx, mt[0]], "multilabel_margin_loss: the target's shape [5] does not go with the input's [4, 5]")
error("multilabel_margin_loss/3d", "multilabel_margin_loss", F.multilabel_margin_loss, [rn(2, 3, 4), torch.zeros(2, 3, 4, dtype=torch.int64)], "multilabel_margin_loss: expected a non-empty vector [C] or matrix [N, C]")
error("multilabel_margin_loss/no-classes", "multilabel_margin_loss", F.multilabel_margin_loss, [rn(3, 0), torch.zeros(3, 0, dtype=torch.int64)], "multilabel_margin_loss: expected a non-empty vector")
error("multilabel_margin_loss/int-input", "multilabel_margin_loss", F.multilabel_margin_loss, [mx.long(), mt], "multilabel_margin_loss: the input must be floating point")
error("multilabel_margin_loss/reduction", "multilabel_margin_loss", F.multilabel_margin_loss, [mx, mt], "multilabel_margin_loss: reduction must be", {"reduction": "max"})

# triplet_margin_with_distance_loss with the default distance
ta, tp, tn = rn(4, 6), rn(4, 6), rn(4, 6)
for red in ("mean", "sum", "none"):
    g.case("triplet_margin_with_distance_loss/" + red, "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta, tp, tn], {"reduction": red}, atol=1e-5)
g.case("triplet_margin_with_distance_loss/swap-margin", "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta, tp, tn],
       {"swap": True, "margin": 2.5, "reduction": "none"}, atol=1e-5)
g.case("triplet_margin_with_distance_loss/none-distance", "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta, tp, tn], {"distance_function": None}, atol=1e-5)
g.case("triplet_margin_with_distance_loss/1d", "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta[0], tp[0], tn[0]], atol=1e-5)
g.case("triplet_margin_with_distance_loss/broadcast", "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta, tp[0], tn], {"reduction": "none"}, atol=1e-5)
g.case("triplet_margin_with_distance_loss/float64", "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta.double(), tp.double(), tn.double()], rtol=1e-12)
grad_case("triplet_margin_with_distance_loss", "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta, tp, tn], {"swap": True, "margin": 3.0}, atol=1e-5)
error("triplet_margin_with_distance_loss/reduction", "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta, tp, tn], "triplet_margin_with_distance_loss: reduction must be", {"reduction": "max"})
g.error("triplet_margin_with_distance_loss/not-a-function", "triplet_margin_with_distance_loss", [ta, tp, tn], "triplet_margin_with_distance_loss: distance_function must be a function or none, not", {"distance_function": "l2"})
error("triplet_margin_with_distance_loss/shapes", "triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, [ta, tp[:3], tn], "triplet_margin_with_distance_loss: pairwise_distance:")

# bilinear
b1, b2, bw, bb = rn(3, 4), rn(3, 5), rn(2, 4, 5), rn(2)
g.case("bilinear/basic", "bilinear", F.bilinear, [b1, b2, bw], atol=1e-5)
g.case("bilinear/bias", "bilinear", F.bilinear, [b1, b2, bw, bb], atol=1e-5)
g.case("bilinear/1d", "bilinear", F.bilinear, [b1[0], b2[0], bw, bb], atol=1e-5)
g.case("bilinear/3d", "bilinear", F.bilinear, [rn(2, 3, 4), rn(2, 3, 5), bw, bb], atol=1e-5)
g.case("bilinear/empty-batch", "bilinear", F.bilinear, [rn(0, 4), rn(0, 5), bw])
g.case("bilinear/float64", "bilinear", F.bilinear, [b1.double(), b2.double(), bw.double(), bb.double()], rtol=1e-12)
g.case("bilinear/keywords", "bilinear", lambda input1, input2, weight, bias: F.bilinear(input1, input2, weight, bias), [], {"input1": b1, "input2": b2, "weight": bw, "bias": bb}, atol=1e-5)
grad_case("bilinear", "bilinear", F.bilinear, [rn(2, 3, 4), rn(2, 3, 5), bw, bb], atol=1e-4)
grad_case("bilinear/no-bias", "bilinear", F.bilinear, [b1, b2, bw], atol=1e-4)
error("bilinear/rank", "bilinear", F.bilinear, [b1, b2[0], bw], "bilinear: input dimensions do not match: got 2 and 1")
error("bilinear/batch", "bilinear", F.bilinear, [b1, b2[:2], bw], "bilinear: input batch dimensions do not match at dim 0: got 3 and 2")
error("bilinear/in1", "bilinear", F.bilinear, [b1, b2, bw[:, :3]], "bilinear: input1 size does not match weight size: got 4 but expected 3")
error("bilinear/in2", "bilinear", F.bilinear, [b1, b2, bw[:, :, :3]], "bilinear: input2 size does not match weight size: got 5 but expected 3")
error("bilinear/bias-size", "bilinear", F.bilinear, [b1, b2, bw, rn(3)], "bilinear: bias size does not match weight size: got shape [3] but expected [2]")
error("bilinear/bias-0d", "bilinear", F.bilinear, [b1, b2, bw, torch.tensor(1.0)], "bilinear: bias size does not match weight size: got shape [] but expected [2]")
error("bilinear/weight-2d", "bilinear", F.bilinear, [b1, b2, bw[0]], "bilinear: expected a weight of shape [out, in1, in2], got [4, 5]")
error("bilinear/0d", "bilinear", F.bilinear, [torch.tensor(1.0), torch.tensor(1.0), bw], "bilinear: the inputs need a feature dimension")
error("bilinear/dtype", "bilinear", F.bilinear, [b1, b2.double(), bw], "bilinear: input1, input2 and weight must have one dtype, got float32, float64 and float32")

# adaptive_max_pool3d
ax = rn(2, 3, 5, 4, 6)
g.case("adaptive_max_pool3d/basic", "adaptive_max_pool3d", F.adaptive_max_pool3d, [ax, [2, 3, 4]])
g.case("adaptive_max_pool3d/int-size", "adaptive_max_pool3d", F.adaptive_max_pool3d, [ax, 3])
g.case("adaptive_max_pool3d/grow", "adaptive_max_pool3d", F.adaptive_max_pool3d, [rn(1, 2, 2, 3, 2), [3, 4, 5], True])
g.case("adaptive_max_pool3d/none", "adaptive_max_pool3d", F.adaptive_max_pool3d, [ax, [None, 2, None], True])
g.case("adaptive_max_pool3d/unbatched", "adaptive_max_pool3d", F.adaptive_max_pool3d, [rn(3, 4, 5, 6), 2, True])
g.case("adaptive_max_pool3d/indices", "adaptive_max_pool3d", F.adaptive_max_pool3d, [ax, [2, 3, 4], True])
g.case("adaptive_max_pool3d/keywords", "adaptive_max_pool3d", lambda input, output_size, return_indices: F.adaptive_max_pool3d(input, output_size, return_indices), [],
       {"input": rn(2, 3, 4, 5), "output_size": [3, 2, 2], "return_indices": True})
g.case("adaptive_max_pool3d/float64", "adaptive_max_pool3d", F.adaptive_max_pool3d, [rn(1, 2, 3, 4, 5, dtype=torch.float64), 2, True])
g.case("adaptive_max_pool3d/zero-size", "adaptive_max_pool3d", F.adaptive_max_pool3d, [ax, [2, 0, 3], True])
g.case("adaptive_max_pool3d/zero-depth", "adaptive_max_pool3d", F.adaptive_max_pool3d, [ax, [0, 2, 3], True])
g.case("adaptive_max_pool3d/empty-batch", "adaptive_max_pool3d", F.adaptive_max_pool3d, [rn(0, 2, 3, 3, 3), 2, True])
g.case("adaptive_max_pool3d/no-channels", "adaptive_max_pool3d", F.adaptive_max_pool3d, [rn(0, 3, 3, 3), 2, True])
at = torch.tensor([[[[1.0, 3.0], [3.0, 0.0]], [[3.0, 2.0], [3.0, 3.0]], [[-inf, -inf], [-inf, -inf]]]])
g.case("adaptive_max_pool3d/ties", "adaptive_max_pool3d", F.adaptive_max_pool3d, [at, [2, 1, 1], True])
g.case("adaptive_max_pool3d/ties-whole", "adaptive_max_pool3d", F.adaptive_max_pool3d, [at, 1, True])
an = torch.tensor([[[[1.0, nan], [2.0, 5.0]], [[nan, 0.0], [7.0, nan]], [[inf, 4.0], [nan, -inf]]]])
g.case("adaptive_max_pool3d/nan", "adaptive_max_pool3d", F.adaptive_max_pool3d, [an, [2, 2, 1], True])
g.case("adaptive_max_pool3d/nan-whole", "adaptive_max_pool3d", F.adaptive_max_pool3d, [an, 1, True])
grad_case("adaptive_max_pool3d", "adaptive_max_pool3d", F.adaptive_max_pool3d, [rn(2, 2, 5, 4, 3), [3, 2, 2]])
grad_case("adaptive_max_pool3d/overlap-ties", "adaptive_max_pool3d", F.adaptive_max_pool3d, [at.clamp(min=0), [2, 2, 2]])
error("adaptive_max_pool3d/3d", "adaptive_max_pool3d", F.adaptive_max_pool3d, [rn(4, 5, 6), 2], "adaptive_max_pool3d: expected an input of shape [N, C, D, H, W] or [C, D, H, W]")
error("adaptive_max_pool3d/int", "adaptive_max_pool3d", F.adaptive_max_pool3d, [torch.ones(1, 2, 3, 3, 3, dtype=torch.int64), 2], "adaptive_max_pool3d: the input must be floating point")
error("adaptive_max_pool3d/empty", "adaptive_max_pool3d", F.adaptive_max_pool3d, [rn(2, 0, 3, 3, 3), 2], "adaptive_max_pool3d: the input [2, 0, 3, 3, 3] has an empty non-batch dimension")
error("adaptive_max_pool3d/negative", "adaptive_max_pool3d", F.adaptive_max_pool3d, [ax, -1], "adaptive_max_pool3d: output_size must be non-negative")
error("adaptive_max_pool3d/two", "adaptive_max_pool3d", F.adaptive_max_pool3d, [ax, [2, 2]], "adaptive_max_pool3d: output_size must be an int or a list of 3")

# upsample, upsample_nearest, upsample_bilinear: interpolate
ui4 = rn(1, 2, 3, 4)
g.case("upsample/nearest-scale", "upsample", F.upsample, [ui4], {"scale_factor": 2})
g.case("upsample/bilinear", "upsample", F.upsample, [ui4, [5, 6], None, "bilinear"], atol=1e-6)
g.case("upsample/bilinear-align", "upsample", F.upsample, [ui4], {"size": [5, 6], "mode": "bilinear", "align_corners": True}, atol=1e-6)
g.case("upsample/linear", "upsample", F.upsample, [rn(1, 2, 5)], {"scale_factor": 1.5, "mode": "linear"}, atol=1e-6)
g.case("upsample_nearest/size", "upsample_nearest", F.upsample_nearest, [ui4, 5])
g.case("upsample_nearest/3d", "upsample_nearest", F.upsample_nearest, [rn(1, 2, 3), 5])
g.case("upsample_nearest/scale", "upsample_nearest", F.upsample_nearest, [ui4], {"scale_factor": 3})
g.case("upsample_bilinear/scale", "upsample_bilinear", F.upsample_bilinear, [ui4], {"scale_factor": 2}, atol=1e-6)
g.case("upsample_bilinear/size", "upsample_bilinear", F.upsample_bilinear, [ui4, [4, 7]], atol=1e-6)
grad_case("upsample_bilinear", "upsample_bilinear", F.upsample_bilinear, [rn(1, 2, 3, 3), [5, 4]], atol=1e-5)
grad_case("upsample/bilinear", "upsample", F.upsample, [rn(1, 2, 3, 3), [5, 4], None, "bilinear"], atol=1e-5)
error("upsample_bilinear/3d", "upsample_bilinear", F.upsample_bilinear, [rn(1, 2, 3)], "upsample_bilinear: mode \"bilinear\" takes a 4-d input", {"scale_factor": 2})
error("upsample_bilinear/no-size", "upsample_bilinear", F.upsample_bilinear, [ui4], "upsample_bilinear: give exactly one of size and scale_factor")
error("upsample/mode", "upsample", F.upsample, [ui4], "upsample: mode \"cubic\" is not supported", {"size": 4, "mode": "cubic"})

# rrelu in evaluation: leaky_relu with slope (lower + upper)/2
rx = torch.tensor([[-3.0, -0.5, 0.0, 0.5, 2.0], [nan, -inf, inf, -1.0, 1.0]])
g.case("rrelu/eval", "rrelu", F.rrelu, [rx])
g.case("rrelu/eval-bounds", "rrelu", F.rrelu, [rx, 0.2, 0.6])
g.case("rrelu/eval-keywords", "rrelu", F.rrelu, [rx], {"lower": 0.1, "upper": 0.1, "training": False})
g.case("rrelu/float64", "rrelu", F.rrelu, [rn(3, 4, dtype=torch.float64)], rtol=1e-12)
grad_case("rrelu/eval", "rrelu", F.rrelu, [torch.tensor([-3.0, -0.5, 0.0, 0.5, 2.0])])
error("rrelu/bounds", "rrelu", F.rrelu, [rx, 0.5, 0.1], "rrelu: the lower bound 0.5 must not exceed the upper bound 0.1")
error("rrelu/int", "rrelu", F.rrelu, [torch.tensor([-1, 2])], "rrelu: the input must be floating point, got int64")

# the dropouts out of training (or p = 0) give the input; their errors
dx = rn(2, 3, 4, 5)
for name, fn in (("dropout1d", F.dropout1d), ("dropout2d", F.dropout2d), ("dropout3d", F.dropout3d),
                 ("alpha_dropout", F.alpha_dropout), ("feature_alpha_dropout", F.feature_alpha_dropout)):
    x = dx[0] if name == "dropout1d" else dx
    g.case(name + "/eval", name, fn, [x, 0.3, False])
    g.case(name + "/p0", name, fn, [x, 0.0, True])
    error(name + "/p-range", name, fn, [x, 1.5], name + ": dropout probability has to be between 0 and 1, but got 1.5")
g.case("alpha_dropout/default-eval", "alpha_dropout", F.alpha_dropout, [dx])
g.case("feature_alpha_dropout/default-eval", "feature_alpha_dropout", F.feature_alpha_dropout, [dx])
g.case("dropout2d/p1", "dropout2d", F.dropout2d, [torch.tensor([[1.0, -2.0], [inf, 0.5]]), 1.0])
g.case("alpha_dropout/p1", "alpha_dropout", F.alpha_dropout, [torch.tensor([[1.0, -2.0], [inf, 0.5]]), 1.0, True])
g.case("dropout2d/empty", "dropout2d", F.dropout2d, [rn(0, 3, 2, 2)])
error("dropout1d/4d", "dropout1d", F.dropout1d, [dx], "dropout1d: expected an input of shape [N, C, L] or [C, L], got [2, 3, 4, 5]")
error("dropout1d/1d-eval", "dropout1d", F.dropout1d, [dx[0, 0, 0], 0.5, False], "dropout1d: expected an input of shape [N, C, L] or [C, L], got [5]")
error("dropout2d/1d", "dropout2d", F.dropout2d, [dx[0, 0, 0]], "dropout2d: feature dropout requires an input of at least 2 dimensions, got [5]")
error("dropout3d/0d", "dropout3d", F.dropout3d, [torch.tensor(1.0)], "dropout3d: feature dropout requires an input of at least 2 dimensions, got []")
error("feature_alpha_dropout/1d", "feature_alpha_dropout", F.feature_alpha_dropout, [dx[0, 0, 0], 0.5, True], "feature_alpha_dropout: feature dropout requires an input of at least 2 dimensions")
error("dropout2d/int", "dropout2d", F.dropout2d, [torch.ones(2, 3, dtype=torch.int64)], "dropout2d: the input must be floating point, got int64")

# gumbel_softmax's errors (its values are random: nn_port_test.go)
error("gumbel_softmax/int", "gumbel_softmax", F.gumbel_softmax, [torch.ones(2, 3, dtype=torch.int64)], "gumbel_softmax: the logits must be floating point, got int64")
error("gumbel_softmax/dim", "gumbel_softmax", F.gumbel_softmax, [rn(2, 3)], "gumbel_softmax: dimension 2 out of range", {"dim": 2})

g.write()
