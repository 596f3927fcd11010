"""Goldens of affine_grid and grid_sample (stdlib/gridsample.go):
/usr/bin/python3 gen_grid_sample.py

F.grid_sample over [N, C, H, W] (and [N, C, D, H, W]): every mode
(bilinear, nearest) x padding_mode (zeros, border, reflection) x
align_corners combination on grids reaching well outside [-1, 1] (several
reflections), float64, positions on pixel centres and half-way ties
(nearest rounds half to even), unit-size and empty dimensions, non-finite
grid values, gradients for input and grid (nearest gives the grid zeros).
F.affine_grid for 2-d and 3-d sizes, both align_corners, unit sizes,
float64 and theta's gradient. Errors of both.

The values are torch's CPU kernel's; tref computes the same formulas
with its ops, so float32 differs by rounding only and the default
tolerances hold, for the gradients too.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(41)
g = Golden("grid_sample")


def randn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def grid(*shape, reach=1.0, dtype=torch.float32):
    """Uniform positions in [-reach, reach]."""
    return ((torch.rand(shape, dtype=torch.float64) * 2 - 1) * reach).to(dtype)


MODES = ("bilinear", "nearest")
PADS = ("zeros", "border", "reflection")
F64 = dict(rtol=1e-12, atol=1e-12)

img = randn(2, 3, 5, 7)
far = grid(2, 4, 6, 2, reach=3.5)       # up to two reflections
near = grid(2, 3, 4, 2, reach=1.2)
img64 = randn(1, 2, 4, 6, dtype=torch.float64)
far64 = grid(1, 3, 5, 2, reach=4.5, dtype=torch.float64)
for mode in MODES:
    for pad in PADS:
        for align in (False, True):
            tag = "%s/%s/%s" % (mode, pad, "align" if align else "noalign")
            kw = {"mode": mode, "padding_mode": pad, "align_corners": align}
            g.case(tag + "/far", "grid_sample", F.grid_sample, [img, far], kw)
            g.case(tag + "/near", "grid_sample", F.grid_sample, [img, near], kw)
            g.case(tag + "/f64", "grid_sample", F.grid_sample, [img64, far64], kw, **F64)
            x, gr = randn(2, 2, 4, 5), grid(2, 3, 3, 2, reach=2.5)
            g.grad_case("grid_sample/" + tag, "grid_sample", F.grid_sample, [x, gr], kw)
            g.grad_case("grid_sample/" + tag + "/f64", "grid_sample", F.grid_sample,
                        [randn(1, 2, 3, 4, dtype=torch.float64), grid(1, 2, 3, 2, reach=2.5, dtype=torch.float64)], kw, atol=1e-10)
            # 3-d: trilinear ("bilinear") and nearest over [N, C, D, H, W].
            x3, g3 = randn(2, 2, 3, 4, 5), grid(2, 2, 3, 2, 3, reach=2.5)
            g.case("3d/" + tag, "grid_sample", F.grid_sample, [x3, g3], kw)
            if mode == "bilinear":
                g.grad_case("grid_sample/3d/" + tag, "grid_sample", F.grid_sample, [x3, g3], kw)

g.case("default", "grid_sample", F.grid_sample, [img, far])

# Positions on pixel centres reproduce the input; half-way positions are
# ties for nearest (0.5 -> 0, 1.5 -> 2, 2.5 -> 2: half to even).
sq = randn(1, 2, 3, 4)
xs = torch.linspace(-1, 1, 4)
ys = torch.linspace(-1, 1, 3)
centres = torch.stack(torch.meshgrid(xs, ys, indexing="xy"), -1).unsqueeze(0)
g.case("centres/align", "grid_sample", F.grid_sample, [sq, centres], {"align_corners": True})
ties = torch.tensor([[[[-0.5, -1 / 3], [0.0, 0.0], [0.5, 1 / 3], [-1.0, -1.0], [1.0, 1.0], [0.75, 2 / 3]]]])
for pad in PADS:
    g.case("nearest/ties/" + pad, "grid_sample", F.grid_sample, [sq, ties], {"mode": "nearest", "padding_mode": pad})
    g.case("bilinear/edges/" + pad, "grid_sample", F.grid_sample, [sq, ties], {"padding_mode": pad})
    g.case("bilinear/edges/align/" + pad, "grid_sample", F.grid_sample, [sq, ties], {"padding_mode": pad, "align_corners": True})

# Unit-size dimensions: align_corners' reflection has an empty span there.
unit = randn(2, 2, 1, 5)
ug = grid(2, 3, 2, 2, reach=2.0)
for pad in PADS:
    for align in (False, True):
        for mode in MODES:
            g.case("unit/%s/%s/%s" % (mode, pad, align), "grid_sample", F.grid_sample, [unit, ug],
                   {"mode": mode, "padding_mode": pad, "align_corners": align})
        g.grad_case("grid_sample/unit/%s/%s" % (pad, align), "grid_sample", F.grid_sample, [unit, ug],
                    {"padding_mode": pad, "align_corners": align})

# Non-finite positions: NaN reads zeros in zeros (a NaN weight: NaN) and
# clips to the first pixel in border and reflection; infinities clip.
odd = torch.tensor([[[[float("nan"), 0.2], [0.1, float("nan")], [float("inf"), 0.0], [0.0, -float("inf")], [1e30, -1e30]]]])
for pad in PADS:
    for mode in MODES:
        g.case("nonfinite/%s/%s" % (mode, pad), "grid_sample", F.grid_sample, [sq, odd], {"mode": mode, "padding_mode": pad})

# Empty batch, channels or output.
g.case("empty/out", "grid_sample", F.grid_sample, [img, grid(2, 0, 3, 2)])
g.case("empty/channels", "grid_sample", F.grid_sample, [randn(2, 0, 3, 3), grid(2, 2, 2, 2)])
g.case("empty/batch", "grid_sample", F.grid_sample, [randn(0, 2, 3, 3), grid(0, 2, 2, 2)])

g.error("grid_sample/bicubic-3d", "grid_sample", [randn(1, 1, 2, 2, 2), grid(1, 1, 1, 1, 3)], "mode \"bicubic\" takes 4-d inputs", {"mode": "bicubic"})
g.error("grid_sample/mode", "grid_sample", [img, far], "mode \"linear\" is not supported", {"mode": "linear"})
g.error("grid_sample/padding", "grid_sample", [img, far], "padding_mode must be \"zeros\", \"border\" or \"reflection\", not \"circular\"", {"padding_mode": "circular"})
g.error("grid_sample/align", "grid_sample", [img, far], "align_corners must be a bool or none", {"align_corners": 1})
g.error("grid_sample/3d-input", "grid_sample", [randn(3, 5, 7), far], "the input must be [N, C, H, W] or [N, C, D, H, W], got shape [3, 5, 7]")
g.error("grid_sample/grid-last", "grid_sample", [img, grid(2, 4, 6, 3)], "the grid must be [N, H_out, W_out, 2] for an input of shape [2, 3, 5, 7], got shape [2, 4, 6, 3]")
g.error("grid_sample/grid-rank", "grid_sample", [randn(1, 1, 2, 2, 2), grid(1, 2, 2, 2)], "the grid must be [N, D_out, H_out, W_out, 3]")
g.error("grid_sample/batch", "grid_sample", [img, grid(3, 4, 6, 2)], "the grid's batch size 3 differs from the input's 2")
g.error("grid_sample/dtype", "grid_sample", [img, far.double()], "must have the same dtype, got float32 and float64")
g.error("grid_sample/int", "grid_sample", [torch.ones(1, 1, 2, 2, dtype=torch.int64), far], "the input must be floating point, got int64")
g.error("grid_sample/empty-spatial", "grid_sample", [randn(2, 3, 0, 7), far], "spatial dimensions must be non-empty")

# affine_grid: 2-d and 3-d, align_corners both ways, unit sizes.
theta = randn(2, 2, 3)
theta3 = randn(2, 3, 4)
for align in (False, True):
    tag = "align" if align else "noalign"
    kw = {"align_corners": align}
    g.case("affine_grid/%s" % tag, "affine_grid", F.affine_grid, [theta, [2, 3, 5, 7]], kw)
    g.case("affine_grid/%s/large" % tag, "affine_grid", F.affine_grid, [theta, [2, 1, 33, 40]], kw)
    g.case("affine_grid/%s/unit" % tag, "affine_grid", F.affine_grid, [theta, [2, 1, 1, 4]], kw)
    g.case("affine_grid/%s/f64" % tag, "affine_grid", F.affine_grid, [theta.double(), [2, 3, 6, 3]], kw, **F64)
    g.case("affine_grid/3d/%s" % tag, "affine_grid", F.affine_grid, [theta3, [2, 1, 3, 4, 5]], kw)
    g.grad_case("affine_grid/%s" % tag, "affine_grid", F.affine_grid, [theta, [2, 3, 4, 6]], kw)
    g.grad_case("affine_grid/3d/%s" % tag, "affine_grid", F.affine_grid, [theta3, [2, 1, 2, 3, 4]], kw)
g.case("affine_grid/default", "affine_grid", F.affine_grid, [theta, [2, 3, 5, 7]])

g.error("affine_grid/theta", "affine_grid", [randn(2, 3, 3), [2, 3, 5, 7]], "theta must be a batch of 2-d affine matrices [N, 2, 3] for size [2, 3, 5, 7], got shape [2, 3, 3]")
g.error("affine_grid/theta3", "affine_grid", [theta, [2, 3, 4, 5, 7]], "theta must be a batch of 3-d affine matrices [N, 3, 4]")
g.error("affine_grid/size", "affine_grid", [theta, [2, 3, 5]], "size must be [N, C, H, W] or [N, C, D, H, W], got [2, 3, 5]")
g.error("affine_grid/batch", "affine_grid", [theta, [3, 3, 5, 7]], "theta holds 2 matrices but size asks for a batch of 3")
g.error("affine_grid/zero", "affine_grid", [theta, [2, 3, 0, 7]], "size must be positive, got [2, 3, 0, 7]")
g.error("affine_grid/negative", "affine_grid", [theta, [2, 3, -1, 7]], "size must be positive")
g.error("affine_grid/int", "affine_grid", [torch.ones(2, 2, 3, dtype=torch.int64), [2, 3, 5, 7]], "theta must be floating point, got int64")
# bicubic (4-d): each padding and alignment, far reaches, gradients.
for pad in PADS:
    for align in (False, True):
        tag = "bicubic/%s/%s" % (pad, "align" if align else "noalign")
        kw = {"mode": "bicubic", "padding_mode": pad, "align_corners": align}
        g.case(tag + "/far", "grid_sample", F.grid_sample, [img, far], kw, rtol=1e-5, atol=1e-5)
        g.case(tag + "/f64", "grid_sample", F.grid_sample, [img64, far64], kw, **F64)
        g.grad_case("grid_sample/" + tag, "grid_sample", F.grid_sample, [randn(1, 2, 4, 5), grid(1, 3, 2, 2, reach=2.5)], kw, atol=1e-4)
g.case("bicubic/unit", "grid_sample", F.grid_sample, [unit, ug], {"mode": "bicubic", "padding_mode": "reflection", "align_corners": True})
g.write()
