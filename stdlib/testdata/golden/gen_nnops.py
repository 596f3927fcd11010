"""Goldens of torch's functional nn ops in tref: /usr/bin/python3 gen_nnops.py

conv1d, conv_transpose2d, bmm, batch_norm (evaluation, training, and the
running statistics torch updates in place, which tref returns), group_norm,
avg_pool2d, adaptive_avg_pool2d and pad, called with torch.nn.functional's
positional order and keyword names.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(11)
g = Golden("nnops")


def randn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def sh(shape):
    return "x".join(map(str, shape))


# ---- conv1d -----------------------------------------------------------------

for xs, ws, kw in [
    ([2, 3, 10], [4, 3, 3], {}),
    ([3, 10], [4, 3, 3], {}),
    ([2, 4, 9], [6, 2, 3], {"groups": 2}),
    ([1, 2, 12], [3, 2, 4], {"stride": 2, "padding": 1}),
    ([1, 2, 12], [3, 2, 3], {"dilation": 2, "padding": 2}),
    ([2, 3, 7], [5, 3, 4], {"padding": "same"}),
    ([2, 3, 7], [5, 3, 3], {"padding": "same", "dilation": 2}),
    ([2, 3, 7], [5, 3, 7], {"padding": "valid"}),
    ([1, 1, 5], [1, 1, 1], {}),
]:
    x, w, b = randn(*xs), randn(*ws), randn(ws[0])
    name = "conv1d/%s-%s%s" % (sh(xs), sh(ws), "".join("-%s=%s" % kv for kv in sorted(kw.items())))
    g.case(name, "conv1d", F.conv1d, [x, w, b], kw)
    g.case(name + "/nobias", "conv1d", F.conv1d, [x, w], kw)
x, w = randn(2, 3, 8), randn(4, 3, 3)
g.case("conv1d/f64", "conv1d", F.conv1d, [x.double(), w.double()])
g.case("conv1d/kw-names", "conv1d", lambda input, weight, bias, stride: F.conv1d(input, weight, bias, stride), [],
       {"input": x, "weight": w, "bias": randn(4), "stride": 3})
g.error("conv1d/channels", "conv1d", [x, randn(4, 2, 3)], "conv1d over [2, 3, 8] with weight [4, 2, 3]")
g.error("conv1d/rank", "conv1d", [randn(2, 3, 8, 1), w], "expected an input of shape [N, C, L] or [C, L]")
g.error("conv1d/too-short", "conv1d", [randn(1, 3, 2), w], "smaller than the kernel")
g.error("conv1d/same-stride", "conv1d", [x, w], "needs stride 1", {"padding": "same", "stride": 2})

# ---- conv_transpose2d ------------------------------------------------------

for xs, ws, kw in [
    ([1, 2, 4, 4], [2, 3, 3, 3], {}),
    ([2, 3, 5, 4], [3, 2, 2, 3], {"stride": 2}),
    ([1, 2, 4, 4], [2, 3, 3, 3], {"stride": 2, "padding": 1, "output_padding": 1}),
    ([1, 4, 3, 3], [4, 2, 3, 3], {"groups": 2, "stride": [2, 1]}),
    ([1, 2, 3, 5], [2, 2, 3, 2], {"dilation": 2, "padding": [1, 0]}),
    ([2, 3, 3], [2, 4, 2, 2], {}),
    ([1, 2, 3, 3], [2, 1, 1, 1], {"stride": 3, "output_padding": 2}),
    ([1, 2, 6, 6], [2, 3, 4, 4], {"stride": 2, "padding": 1}),
]:
    cin = xs[-3]
    x, w = randn(*xs), randn(*ws)
    cout = ws[1] * kw.get("groups", 1)
    name = "conv_transpose2d/%s-%s%s" % (sh(xs), sh(ws), "".join("-%s=%s" % kv for kv in sorted(kw.items())))
    g.case(name, "conv_transpose2d", F.conv_transpose2d, [x, w, randn(cout)], kw, atol=1e-5)
    g.case(name + "/nobias", "conv_transpose2d", F.conv_transpose2d, [x, w], kw, atol=1e-5)
g.case("conv_transpose2d/f64", "conv_transpose2d", F.conv_transpose2d, [randn(1, 2, 3, 3).double(), randn(2, 2, 2, 2).double()])
g.case("conv_transpose2d/big", "conv_transpose2d", F.conv_transpose2d, [randn(2, 16, 20, 20), randn(16, 8, 3, 3)],
       {"stride": 2, "padding": 1, "output_padding": 1}, atol=1e-4, rtol=1e-4)
g.error("conv_transpose2d/channels", "conv_transpose2d", [randn(1, 3, 4, 4), randn(2, 3, 3, 3)], "input [1, 3, 4, 4] has 3 channels")
g.error("conv_transpose2d/output-padding", "conv_transpose2d", [randn(1, 2, 4, 4), randn(2, 3, 3, 3)],
        "output_padding [1, 1] must be non-negative and smaller than either stride", {"output_padding": 1})
g.error("conv_transpose2d/bool", "conv_transpose2d", [torch.ones(1, 2, 4, 4, dtype=torch.bool), torch.ones(2, 3, 3, 3, dtype=torch.bool)], "expected float32 or float64")

# ---- bmm --------------------------------------------------------------------

g.case("bmm/basic", "bmm", torch.bmm, [randn(3, 2, 4), randn(3, 4, 5)])
g.case("bmm/f64", "bmm", torch.bmm, [randn(2, 3, 3).double(), randn(2, 3, 1).double()])
g.case("bmm/empty", "bmm", torch.bmm, [randn(0, 2, 4), randn(0, 4, 5)])
g.case("bmm/kw", "bmm", lambda input, mat2: torch.bmm(input, mat2), [], {"input": randn(2, 1, 3), "mat2": randn(2, 3, 2)})
g.error("bmm/2d", "bmm", [randn(2, 4), randn(4, 5)], "expected two 3-d tensors")
g.error("bmm/batch", "bmm", [randn(2, 2, 4), randn(3, 4, 5)], "bmm does not broadcast")
g.error("bmm/inner", "bmm", [randn(2, 2, 4), randn(2, 3, 5)], "do not align (4 != 3)")

# ---- batch_norm --------------------------------------------------------------


def bn_train(x, rm, rv, w=None, b=None, training=True, momentum=0.1, eps=1e-5):
    rm, rv = rm.clone(), rv.clone()
    y = F.batch_norm(x, rm, rv, w, b, training, momentum, eps)
    return [y, rm, rv]


for xs in ([4, 3], [2, 3, 5], [2, 3, 4, 4], [3, 2, 2, 2, 2]):
    c = xs[1]
    x = randn(*xs) * 2 + 1
    rm, rv = randn(c), torch.rand(c) + 0.5
    w, b = randn(c), randn(c)
    g.case("batch_norm/eval/%s" % sh(xs), "batch_norm", F.batch_norm, [x, rm, rv, w, b])
    g.case("batch_norm/eval/%s/plain" % sh(xs), "batch_norm", F.batch_norm, [x, rm, rv])
    g.case("batch_norm/train/%s" % sh(xs), "batch_norm", bn_train, [x, rm, rv, w, b, True])
    g.case("batch_norm/train/%s/nostats" % sh(xs), "batch_norm", lambda x, rm, rv, w, b, t: F.batch_norm(x, rm, rv, w, b, t),
           [x, None, None, w, b, True])
x = randn(8, 4, 3)
rm, rv = randn(4), torch.rand(4) + 0.5
g.case("batch_norm/train/momentum-eps", "batch_norm", bn_train, [x, rm, rv], {"training": True, "momentum": 0.3, "eps": 0.01})
g.case("batch_norm/eval/kw", "batch_norm", F.batch_norm, [x, rm, rv], {"weight": randn(4), "eps": 0.1})
g.case("batch_norm/eval/f64", "batch_norm", F.batch_norm, [x.double(), rm.double(), rv.double()])
g.case("batch_norm/eval/f16", "batch_norm", lambda x, rm, rv: F.batch_norm(x.float(), rm, rv).half(), [x.half(), rm, rv], rtol=2e-3, atol=2e-3)
g.error("batch_norm/train-one", "batch_norm", [randn(1, 3), rm[:3], rv[:3]], "expected more than 1 value per channel when training", {"training": True})
g.error("batch_norm/eval-nostats", "batch_norm", [x, None, None], "must be tensors in evaluation mode")
g.error("batch_norm/channels", "batch_norm", [x, randn(3), rv], "input [8, 4, 3] has 4 channels, but running_mean has shape [3]")

# ---- group_norm --------------------------------------------------------------

for xs, groups in (([2, 6, 4], 3), ([2, 4, 3, 3], 2), ([3, 4], 4), ([1, 6, 2, 2, 2], 1), ([2, 8, 5], 8)):
    c = xs[1]
    x = randn(*xs) * 3 + 1
    name = "group_norm/%s/g%d" % (sh(xs), groups)
    # One value per group leaves torch's variance at rounding noise, which
    # 1/sqrt(eps) amplifies.
    g.case(name, "group_norm", F.group_norm, [x, groups, randn(c), randn(c)], atol=1e-4 if x.numel() == xs[0] * groups else None)
    g.case(name + "/plain", "group_norm", F.group_norm, [x, groups])
g.case("group_norm/eps-kw", "group_norm", F.group_norm, [randn(2, 4, 3), 2], {"eps": 0.5, "bias": randn(4)})
g.error("group_norm/divisible", "group_norm", [randn(2, 6, 4), 4], "divisible by num_groups=4")

# ---- avg_pool2d ---------------------------------------------------------------

x = randn(2, 3, 7, 6)
for kw in [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2},
    {"kernel_size": [3, 2], "stride": [1, 2]},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": 2, "divisor_override": 3},
    {"kernel_size": 4, "stride": 3, "padding": 2, "ceil_mode": True},
]:
    name = "avg_pool2d/" + "-".join("%s=%s" % kv for kv in sorted(kw.items()))
    args = dict(kw)
    k = args.pop("kernel_size")
    g.case(name, "avg_pool2d", F.avg_pool2d, [x, k], args)
g.case("avg_pool2d/unbatched", "avg_pool2d", F.avg_pool2d, [randn(3, 4, 4), 2])
g.case("avg_pool2d/f64", "avg_pool2d", F.avg_pool2d, [randn(1, 2, 5, 5).double(), 3, 1, 1])
g.error("avg_pool2d/padding", "avg_pool2d", [x, 2, 2, 2], "padding [2, 2] must be at most half of the kernel [2, 2]")
g.error("avg_pool2d/int", "avg_pool2d", [torch.ones(1, 1, 4, 4, dtype=torch.int64), 2], "expected a floating-point tensor")

# ---- adaptive_avg_pool2d -------------------------------------------------------

for xs, out in (([2, 3, 7, 6], [3, 2]), ([2, 3, 7, 6], 1), ([1, 2, 5, 5], 5), ([1, 2, 5, 7], [3, 4]), ([3, 8, 8], 3),
                ([1, 1, 4, 6], [None, 4]), ([1, 2, 3, 3], [6, 5])):
    x = randn(*xs)
    g.case("adaptive_avg_pool2d/%s-%s" % (sh(xs), str(out).replace(" ", "")), "adaptive_avg_pool2d", F.adaptive_avg_pool2d, [x, out])

# ---- pad ------------------------------------------------------------------------

x4 = randn(2, 3, 4, 5)
x3 = randn(2, 3, 5)
for mode in ("constant", "reflect", "replicate", "circular"):
    for x, pads in ((x3, [1, 2]), (x4, [1, 2, 3, 1]), (x4, [0, 0, 2, 0]), (x3[0], [2, 1]), (randn(1, 2, 3, 4, 5), [1, 1, 2, 0, 1, 2])):
        name = "pad/%s/%s/%s" % (mode, sh(x.shape), "_".join(map(str, pads)))
        if mode == "circular" and x.dim() == 2:
            g.error(name, "pad", [x, pads], "circular padding of 1 dimensions needs a batched 3-d input", {"mode": mode})
            continue
        g.case(name, "pad", F.pad, [x, pads], {"mode": mode})
g.case("pad/constant/value", "pad", F.pad, [x4, [1, 1]], {"value": 2.5})
g.case("pad/constant/positional", "pad", F.pad, [x4, [1, 1], "constant", 0.5])
g.case("pad/constant/negative", "pad", F.pad, [x4, [-1, 2, 0, -2]])
g.case("pad/constant/all-dims", "pad", F.pad, [x3, [1, 0, 0, 1, 2, 1]])
g.case("pad/constant/int", "pad", F.pad, [torch.arange(6).reshape(2, 3), [1, 1]], {"value": 7})
g.case("pad/constant/bool", "pad", F.pad, [torch.tensor([True, False]), [1, 2]])
g.case("pad/constant/int32", "pad", F.pad, [torch.arange(4, dtype=torch.int32), [2, 0]], {"value": -3})
g.case("pad/constant/empty", "pad", F.pad, [torch.zeros(2, 0), [1, 1]])
g.case("pad/default-mode", "pad", F.pad, [x3, [0, 0]])
g.error("pad/odd", "pad", [x3, [1, 2, 3]], "even length")
g.error("pad/reflect-too-big", "pad", [x3, [5, 0]], "must be non-negative and less than its size 5", {"mode": "reflect"})
g.error("pad/reflect-dims", "pad", [randn(5), [1, 1]], "needs a 2-d or 3-d input", {"mode": "reflect"})
g.error("pad/replicate-4d-1", "pad", [x4, [1, 1]], "needs a 2-d or 3-d input", {"mode": "replicate"})
g.error("pad/mode", "pad", [x3, [1, 1]], "mode must be", {"mode": "wrap"})
g.error("pad/too-many", "pad", [x3, [1, 1, 1, 1, 1, 1, 1, 1]], "pad 4 dimensions")

g.write()
