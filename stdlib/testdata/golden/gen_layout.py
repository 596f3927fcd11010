"""Goldens of the layout functions, 1-d pools and kl_div of
stdlib/layout.go: /usr/bin/python3 gen_layout.py

meshgrid (ij and xy, a list argument), repeat_interleave (int and tensor
repeats, with and without dim), diag (both directions, every diagonal
sign), pixel_shuffle and pixel_unshuffle, max_pool1d and avg_pool1d
(stride, padding, dilation, ceil_mode, count_include_pad, unbatched) and
kl_div (every reduction, log_target, zeros in the target), with errors.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(23)
g = Golden("layout")


def randn(*shape):
    return torch.randn(shape, dtype=torch.float64).float()


a, b, c = torch.arange(2), torch.arange(3) * 10, torch.tensor([5.0, 6.0])
g.case("meshgrid/ij", "meshgrid", lambda x, y: list(torch.meshgrid(x, y, indexing="ij")), [a, b])
g.case("meshgrid/xy", "meshgrid", lambda x, y, indexing: list(torch.meshgrid(x, y, indexing=indexing)), [a, b], {"indexing": "xy"})
g.case("meshgrid/three", "meshgrid", lambda x, y, z: list(torch.meshgrid(x, y, z, indexing="ij")), [a.float(), c, c])
g.case("meshgrid/list", "meshgrid", lambda l: list(torch.meshgrid(*l, indexing="ij")), [[a, b]])
g.case("meshgrid/0d", "meshgrid", lambda x, y: list(torch.meshgrid(x, y, indexing="ij")), [torch.tensor(3), b])

x = torch.arange(6).reshape(2, 3)
g.case("repeat_interleave/flat", "repeat_interleave", torch.repeat_interleave, [x, 2])
g.case("repeat_interleave/dim", "repeat_interleave", torch.repeat_interleave, [x, 3], {"dim": 1})
g.case("repeat_interleave/counts", "repeat_interleave", torch.repeat_interleave, [x, torch.tensor([2, 0])], {"dim": 0})
g.case("repeat_interleave/counts-flat", "repeat_interleave", torch.repeat_interleave, [randn(2, 2), torch.tensor([1, 2, 0, 3])])
g.case("repeat_interleave/one-count", "repeat_interleave", torch.repeat_interleave, [x, torch.tensor([2])], {"dim": -1})
g.case("repeat_interleave/zero", "repeat_interleave", torch.repeat_interleave, [x, 0], {"dim": 0})

v = randn(3)
for k in (0, 1, 2, -1, -3):
    g.case("diag/vector/%d" % k, "diag", torch.diag, [v, k])
m = torch.arange(12).reshape(3, 4)
for k in (0, 1, 3, 4, -1, -2, -3):
    g.case("diag/matrix/%d" % k, "diag", torch.diag, [m, k])
g.case("diag/keyword", "diag", lambda input, diagonal: torch.diag(input, diagonal), [], {"input": v, "diagonal": -1})
g.case("diag/nan", "diag", torch.diag, [torch.tensor([float("nan"), float("inf")])])

g.case("pixel_shuffle", "pixel_shuffle", F.pixel_shuffle, [randn(2, 8, 3, 2), 2])
g.case("pixel_shuffle/unbatched", "pixel_shuffle", F.pixel_shuffle, [randn(9, 2, 2), 3])
g.case("pixel_unshuffle", "pixel_unshuffle", F.pixel_unshuffle, [randn(2, 2, 4, 6), 2])

s = randn(2, 3, 9)
g.case("max_pool1d", "max_pool1d", F.max_pool1d, [s, 3])
g.case("max_pool1d/options", "max_pool1d", F.max_pool1d, [s, 3], {"stride": 2, "padding": 1, "dilation": 2, "ceil_mode": True})
g.case("max_pool1d/unbatched", "max_pool1d", F.max_pool1d, [randn(4, 7), 2])
g.case("avg_pool1d", "avg_pool1d", F.avg_pool1d, [s, 4])
g.case("avg_pool1d/options", "avg_pool1d", F.avg_pool1d, [s, 3], {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})

inp = F.log_softmax(randn(4, 5), dim=1)
tgt = F.softmax(randn(4, 5), dim=1)
tgt[0, 1] = 0.0
for red in ("mean", "batchmean", "sum", "none"):
    g.case("kl_div/%s" % red, "kl_div", F.kl_div, [inp, tgt], {"reduction": red})
g.case("kl_div/log_target", "kl_div", F.kl_div, [inp, F.log_softmax(randn(4, 5), dim=1)], {"reduction": "sum", "log_target": True})

g.error("meshgrid/2d", "meshgrid", [x, a], "must be a 0-d or 1-d tensor")
g.error("repeat_interleave/too-many", "repeat_interleave", [x, torch.tensor([1, 2, 3])], "repeats has 3 counts for a dimension of size 6")
g.error("diag/3d", "diag", [randn(2, 2, 2)], "must be 1-d or 2-d")
g.error("pixel_shuffle/channels", "pixel_shuffle", [randn(1, 3, 2, 2), 2], "3 channels do not divide")
g.error("max_pool1d/4d", "max_pool1d", [randn(1, 1, 1, 4), 2], "must be [N, C, L] or [C, L]")
g.error("kl_div/reduction", "kl_div", [inp, tgt], "reduction must be", {"reduction": "avg"})
g.write()
