"""Golden text of tensor printing: /usr/bin/python3 gen_format.py

Writes format.json: for each case a tensor (dtype, shape, flat data) and
str(tensor) from PyTorch, adjusted for tref's two documented differences:
bools print as true/false and dtype= drops the "torch." prefix.
"""

import json
import math
import os

import torch

torch.manual_seed(2)
cases = []


def num(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def add(name, t):
    text = str(t).replace("dtype=torch.", "dtype=")
    if t.dtype == torch.bool:
        text = text.replace("True", "true").replace("False", "false")
    flat = t.float() if t.dtype in (torch.float16, torch.bfloat16) else t
    cases.append({
        "name": name,
        "dtype": str(t.dtype).replace("torch.", ""),
        "shape": list(t.shape),
        "data": [num(v) for v in flat.reshape(-1).tolist()],
        "text": text,
    })


nan, inf = float("nan"), float("inf")
add("f32/int-mode", torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
add("f32/decimals", torch.tensor([0.1, -2.5, 3.14159]))
add("f32/negative-int-mode", torch.tensor([-1.0, 20.0, -300.0]))
add("f32/sci-small", torch.tensor([1e-5, 1.0]))
add("f32/sci-large", torch.tensor([1.0, 2e9]))
add("f32/sci-ratio-int", torch.tensor([1.0, 5000.0]))
add("f32/sci-ratio", torch.tensor([0.5, 5000.0]))
add("f32/nan-inf-int", torch.tensor([nan, 1.0, inf, -inf]))
add("f32/nan-decimals", torch.tensor([nan, 1.5, -inf]))
add("f32/nan-sci", torch.tensor([nan, 1e-7, 3.0]))
add("f32/zeros", torch.zeros(2, 3))
add("f32/signed-zeros", torch.tensor([0.0, -0.0]))
add("f32/all-nan", torch.tensor([nan, nan]))
add("f32/wrap", torch.arange(30.0) / 7)
add("f32/wrap-2d", torch.arange(60.0).reshape(2, 30) / 7)
add("f32/3d", torch.arange(24.0).reshape(2, 3, 4) - 5)
add("f32/4d", torch.randn(2, 2, 2, 3))
add("f32/randn", torch.randn(4, 5))
add("f32/randn-sci", torch.randn(3, 4) * 1e-6)
add("f32/large-values", torch.tensor([123456.789, 1.5]))
add("f32/0d", torch.tensor(3.5))
add("f32/0d-int", torch.tensor(3.0))
add("f32/0d-nan", torch.tensor(nan))
add("f32/0d-sci", torch.tensor(1e-9))
add("f32/one", torch.tensor([7.0]))
add("f32/summary-1d", torch.arange(2000.0))
add("f32/summary-2d", torch.randn(40, 40))
add("f32/summary-3d", torch.arange(2000.0).reshape(2, 10, 100))
add("f32/summary-rows", torch.arange(1100.0).reshape(1100, 1) / 3)
add("f32/summary-small-rows", torch.arange(1005.0).reshape(5, 201))
add("f64/decimals", torch.tensor([0.25, 1.125], dtype=torch.float64))
add("f64/int-mode", torch.tensor([[1.0, 2.0]], dtype=torch.float64))
add("f64/0d", torch.tensor(2.5, dtype=torch.float64))
add("f16", torch.tensor([1.5, 2.0, -0.1], dtype=torch.float16))
add("bf16", torch.tensor([1.5, 2.0, 300.0], dtype=torch.bfloat16))
add("i64", torch.tensor([[1, -20], [300, 4]]))
add("i64/big", torch.tensor([9007199254740993, -1]))
add("i64/0d", torch.tensor(42))
add("i64/wrap", torch.arange(40) * 1000)
add("i64/summary", torch.arange(1500).reshape(30, 50))
add("u8", torch.tensor([0, 7, 255], dtype=torch.uint8))
add("u8/0d", torch.tensor(9, dtype=torch.uint8))
add("bool", torch.tensor([[True, False], [False, True]]))
add("bool/0d", torch.tensor(True))
add("bool/summary", torch.arange(1200) % 3 == 0)
add("empty/1d", torch.zeros(0))
add("empty/2d", torch.zeros(0, 3))
add("empty/2d-late", torch.zeros(2, 0))
add("empty/i64", torch.zeros(0, dtype=torch.int64))
add("empty/bool-3d", torch.zeros(1, 0, 2, dtype=torch.bool))
add("empty/f64", torch.zeros(0, dtype=torch.float64))
add("suffix-wrap", torch.arange(18.0, dtype=torch.float64).reshape(1, 18) / 7)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "format.json"), "w") as f:
    f.write('{"torch": "%s", "cases": [\n' % torch.__version__)
    f.write(",\n".join(json.dumps(c, allow_nan=False) for c in cases))
    f.write("\n]}\n")
