"""Goldens of interpolate (stdlib/interpolate.go): /usr/bin/python3 gen_interpolate.py

F.interpolate over [N, C, L] and [N, C, H, W]: nearest (the exact
doubling, other sizes, scale factors that are not size ratios),
nearest-exact, linear, bilinear, bicubic and trilinear (align_corners
both ways, size or scale_factor, recompute_scale_factor, down- and
upsampling, float64), area in 1, 2 and 3 dimensions, gradients, and
errors. The tolerance is tight:
the source positions and weights are torch's, computed in float32.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(29)
g = Golden("interpolate")


def randn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


img = randn(2, 3, 5, 7)
seq = randn(2, 3, 6)
T = dict(rtol=1e-6, atol=1e-6)
g.case("nearest/double", "interpolate", F.interpolate, [img], {"scale_factor": 2.0}, **T)
g.case("nearest/size", "interpolate", F.interpolate, [img], {"size": [8, 4]}, **T)
g.case("nearest/scale", "interpolate", F.interpolate, [img], {"scale_factor": 1.7}, **T)
g.case("nearest/scale-list", "interpolate", F.interpolate, [img], {"scale_factor": [0.6, 2.3]}, **T)
g.case("nearest/1d", "interpolate", F.interpolate, [seq], {"size": 13}, **T)
g.case("nearest-exact/scale", "interpolate", F.interpolate, [img], {"scale_factor": 1.7, "mode": "nearest-exact"}, **T)
g.case("nearest-exact/size", "interpolate", F.interpolate, [img], {"size": [3, 11], "mode": "nearest-exact"}, **T)
for align in (False, True):
    tag = "align" if align else "noalign"
    g.case("bilinear/%s/up" % tag, "interpolate", F.interpolate, [img], {"size": [9, 13], "mode": "bilinear", "align_corners": align}, **T)
    g.case("bilinear/%s/down" % tag, "interpolate", F.interpolate, [img], {"size": [2, 3], "mode": "bilinear", "align_corners": align}, **T)
    g.case("bilinear/%s/scale" % tag, "interpolate", F.interpolate, [img], {"scale_factor": 1.5, "mode": "bilinear", "align_corners": align}, **T)
    g.case("bilinear/%s/one" % tag, "interpolate", F.interpolate, [img], {"size": [1, 7], "mode": "bilinear", "align_corners": align}, **T)
    g.case("linear/%s" % tag, "interpolate", F.interpolate, [seq], {"size": 10, "mode": "linear", "align_corners": align}, **T)
    g.case("bilinear/%s/f64" % tag, "interpolate", F.interpolate, [randn(1, 2, 4, 3, dtype=torch.float64)], {"scale_factor": 2.5, "mode": "bilinear", "align_corners": align}, rtol=1e-12, atol=1e-12)
g.case("bilinear/recompute", "interpolate", F.interpolate, [img], {"scale_factor": 1.3, "mode": "bilinear", "recompute_scale_factor": True}, **T)
g.case("bilinear/scale-nonratio", "interpolate", F.interpolate, [img], {"scale_factor": 1.3, "mode": "bilinear"}, **T)
g.case("area", "interpolate", F.interpolate, [img], {"size": [3, 4], "mode": "area"}, **T)
g.case("area/1d", "interpolate", F.interpolate, [seq], {"size": 4, "mode": "area"}, **T)
vol = randn(1, 2, 3, 4, 5)
g.case("area/3d", "interpolate", F.interpolate, [vol], {"size": [2, 3, 2], "mode": "area"}, **T)
g.case("nearest/3d", "interpolate", F.interpolate, [vol], {"scale_factor": [2.0, 1.5, 0.5]}, **T)
for align in (False, True):
    tag = "align" if align else "noalign"
    g.case("bicubic/%s/up" % tag, "interpolate", F.interpolate, [img], {"size": [9, 13], "mode": "bicubic", "align_corners": align}, rtol=1e-5, atol=1e-5)
    g.case("bicubic/%s/down" % tag, "interpolate", F.interpolate, [img], {"size": [3, 2], "mode": "bicubic", "align_corners": align}, rtol=1e-5, atol=1e-5)
    g.case("bicubic/%s/scale" % tag, "interpolate", F.interpolate, [img], {"scale_factor": 1.7, "mode": "bicubic", "align_corners": align}, rtol=1e-5, atol=1e-5)
    g.case("bicubic/%s/f64" % tag, "interpolate", F.interpolate, [randn(1, 2, 4, 3, dtype=torch.float64)], {"scale_factor": 2.5, "mode": "bicubic", "align_corners": align}, rtol=1e-12, atol=1e-12)
    g.case("trilinear/%s" % tag, "interpolate", F.interpolate, [vol], {"size": [5, 3, 7], "mode": "trilinear", "align_corners": align}, rtol=1e-5, atol=1e-5)
g.case("bicubic/one", "interpolate", F.interpolate, [img], {"size": [1, 1], "mode": "bicubic"}, rtol=1e-5, atol=1e-5)
g.grad_case("interpolate-bicubic", "interpolate", F.interpolate, [randn(1, 2, 3, 4)], {"size": [5, 6], "mode": "bicubic"}, atol=1e-4)
g.grad_case("interpolate-bicubic-align", "interpolate", F.interpolate, [randn(1, 1, 4, 4)], {"scale_factor": 0.7, "mode": "bicubic", "align_corners": True}, atol=1e-4)
g.grad_case("interpolate-trilinear", "interpolate", F.interpolate, [randn(1, 1, 2, 3, 2)], {"size": [3, 4, 4], "mode": "trilinear"}, atol=1e-4)

g.error("interpolate/both", "interpolate", [img], "exactly one of size and scale_factor", {"size": 3, "scale_factor": 2.0})
g.error("interpolate/mode", "interpolate", [img], "mode \"cubic\" is not supported", {"size": 3, "mode": "cubic"})
g.error("interpolate/bicubic-3d", "interpolate", [seq], "mode \"bicubic\" takes a 4-d input", {"size": 3, "mode": "bicubic"})
g.error("interpolate/trilinear-4d", "interpolate", [img], "mode \"trilinear\" takes a 5-d input", {"size": 3, "mode": "trilinear"})
g.error("interpolate/linear-4d", "interpolate", [img], "mode \"linear\" takes a 3-d input", {"size": 3, "mode": "linear"})
g.error("interpolate/align-nearest", "interpolate", [img], "align_corners is only for the linear and cubic modes", {"size": 3, "align_corners": True})
g.error("interpolate/2d", "interpolate", [randn(3, 4)], "must be [N, C, L], [N, C, H, W] or [N, C, D, H, W]", {"size": 3})
g.write()
