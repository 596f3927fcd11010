"""Torch references of GridSample (frontend/onnx/ops_gridsample.go) for the
modes and paddings ONNX 1.12's node tests leave out:
/usr/bin/python3 gen_gridsample.py  (writes gridsample.json here)

F.grid_sample on one float32 input [1, 2, 3, 4] and a grid [1, 3, 5, 2]
reaching past the borders, for every mode, padding_mode and align_corners.
"""

import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(17)
x = torch.randn(1, 2, 3, 4)
grid = torch.rand(1, 3, 5, 2) * 3 - 1.5
cases = []
for mode in ("nearest", "bilinear", "bicubic"):
    for padding in ("zeros", "border", "reflection"):
        for align in (False, True):
            y = F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align)
            cases.append({"mode": mode, "padding": padding, "align": align, "y": y.reshape(-1).tolist()})
out = {"x": x.reshape(-1).tolist(), "grid": grid.reshape(-1).tolist(), "cases": cases}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gridsample.json"), "w") as f:
    json.dump(out, f)
