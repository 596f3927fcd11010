"""Goldens of the pointwise builtins of stdlib/pointwise.go:
/usr/bin/python3 gen_pointwise.py

floor ceil round (decimals) trunc sign erf isnan isinf nan_to_num and the
activations leaky_relu elu softplus hardsigmoid hardswish gelu(approximate=)
over dtypes, 0-d and empty tensors, NaN and infinities, with torch's
argument names and defaults.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(3)
g = Golden("pointwise")

SPECIAL = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 0.5, -0.5, 1.5, 2.5, -2.5,
                        1e-30, -1e-30, 3.4e38, -3.4e38, 20.0, -20.0, 100.0, -100.0, 2.9999, -3.0, 3.0])


def floats(dt, shape, scale=4.0):
    return (torch.randn(shape, dtype=torch.float64) * scale).to(dt)


def ints(dt, shape):
    if dt == torch.uint8:
        return torch.randint(0, 20, shape, dtype=dt)
    return torch.randint(-20, 20, shape, dtype=dt)


ROUNDING = {"floor": torch.floor, "ceil": torch.ceil, "round": torch.round, "trunc": torch.trunc,
            "sign": torch.sign, "erf": torch.erf, "isnan": torch.isnan, "isinf": torch.isinf,
            "nan_to_num": torch.nan_to_num}
for name, fn in ROUNDING.items():
    for dt in (torch.float32, torch.float64):
        tag = str(dt).replace("torch.", "")
        g.case("%s/%s/3x5" % (name, tag), name, fn, [floats(dt, [3, 5])])
        g.case("%s/%s/special" % (name, tag), name, fn, [SPECIAL.to(dt)])
    g.case("%s/0d" % name, name, fn, [torch.tensor(-1.5)])
    g.case("%s/empty" % name, name, fn, [torch.zeros(0, 3)])
    for dt in (torch.int64, torch.uint8):
        g.case("%s/%s" % (name, str(dt).replace("torch.", "")), name, fn, [ints(dt, [4, 3])])
    if name in ("floor", "ceil", "round", "trunc"):
        g.error(name + "/error/bool", name, [torch.tensor([True, False])], "not supported on bool")
    else:
        g.case(name + "/bool", name, fn, [torch.tensor([True, False])])


def via_f32(fn):
    """torch's cpu lacks float16 kernels for some of these: the reference
    computes in float32 and rounds, as tref does."""
    return lambda x, **kw: fn(x.float(), **kw).to(x.dtype)


g.case("erf/f16", "erf", via_f32(torch.erf), [floats(torch.float16, [7])], rtol=1e-3, atol=1e-3)
g.case("floor/f16", "floor", via_f32(torch.floor), [floats(torch.float16, [7])])

# round(decimals=)
rx = floats(torch.float32, [20], 100.0)
for d in (1, 2, 3, -1, -2):
    g.case("round/decimals%d" % d, "round", torch.round, [rx], {"decimals": d})
    g.case("round/decimals%d/f64" % d, "round", torch.round, [rx.double()], {"decimals": d})
g.case("round/decimals/positional", "round", lambda x, d: torch.round(x, decimals=d), [rx, 2])
g.error("round/error/decimals-int", "round", [torch.tensor([15])], "needs a float tensor", {"decimals": -1})

# nan_to_num
nx = torch.tensor([float("nan"), float("inf"), float("-inf"), 1.5, -2.0])
g.case("nan_to_num/values", "nan_to_num", torch.nan_to_num, [nx], {"nan": 7.0, "posinf": 100.0, "neginf": -50.0})
g.case("nan_to_num/posinf-only", "nan_to_num", torch.nan_to_num, [nx], {"posinf": 3.0})
g.case("nan_to_num/positional", "nan_to_num", lambda x, n, p: torch.nan_to_num(x, n, p), [nx, 1.0, 2.0])
g.case("nan_to_num/f16", "nan_to_num", torch.nan_to_num, [nx.half()])
g.case("nan_to_num/f64", "nan_to_num", torch.nan_to_num, [nx.double()])

# Activations.
ACTS = {
    "leaky_relu": (F.leaky_relu, [{"negative_slope": 0.2}, {"negative_slope": -1.5}]),
    "elu": (F.elu, [{"alpha": 0.5}, {"alpha": 2.0}]),
    "softplus": (F.softplus, [{"beta": 2.0}, {"beta": 0.5, "threshold": 5.0}, {"threshold": 1.0}]),
    "hardsigmoid": (F.hardsigmoid, []),
    "hardswish": (F.hardswish, []),
}
for name, (fn, kws) in ACTS.items():
    for dt in (torch.float32, torch.float64):
        tag = str(dt).replace("torch.", "")
        g.case("%s/%s/4x6" % (name, tag), name, fn, [floats(dt, [4, 6])])
        g.case("%s/%s/special" % (name, tag), name, fn, [SPECIAL.to(dt)])
    for i, kw in enumerate(kws):
        g.case("%s/kw%d" % (name, i), name, fn, [floats(torch.float32, [9], 8.0)], kw)
    g.case("%s/0d" % name, name, fn, [torch.tensor(-0.75)])
    g.case("%s/empty" % name, name, fn, [torch.zeros(2, 0)])
    g.case("%s/f16" % name, name, via_f32(fn), [floats(torch.float16, [6])], rtol=1e-3, atol=1e-3)
    g.error("%s/error/int" % name, name, [torch.tensor([1, 2])], "needs a float tensor")
g.case("leaky_relu/positional", "leaky_relu", F.leaky_relu, [floats(torch.float32, [5]), 0.3])
g.case("elu/positional", "elu", F.elu, [floats(torch.float32, [5]), 0.7])
g.case("softplus/positional", "softplus", F.softplus, [floats(torch.float32, [5]), 3.0, 2.0])

gelu_tanh = lambda x, approximate: F.gelu(x, approximate=approximate)
for dt in (torch.float32, torch.float64):
    tag = str(dt).replace("torch.", "")
    g.case("gelu/tanh/%s" % tag, "gelu", gelu_tanh, [floats(dt, [5, 7])], {"approximate": "tanh"})
    g.case("gelu/tanh/%s/special" % tag, "gelu", gelu_tanh, [SPECIAL.to(dt)], {"approximate": "tanh"})
    g.case("gelu/none/%s" % tag, "gelu", gelu_tanh, [floats(dt, [5, 7])], {"approximate": "none"})
g.case("gelu/tanh/empty", "gelu", gelu_tanh, [torch.zeros(0)], {"approximate": "tanh"})
g.error("gelu/error/approximate", "gelu", [torch.zeros(2)], "approximate must be", {"approximate": "fast"})
g.error("gelu/error/tanh-int", "gelu", [torch.tensor([1])], "needs a float tensor", {"approximate": "tanh"})

g.write()
