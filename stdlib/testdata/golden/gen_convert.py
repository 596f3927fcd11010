"""Goldens of torch's tensor creation-from-a-tensor, size and conversion
methods: /usr/bin/python3 gen_convert.py

zeros_like, ones_like, full_like, size, numel, t, float, double, half,
bfloat16, long, int, bool, to, clone and tolist (1-d; nested lists are
checked in spec/conversions.tr). rand_like and randn_like draw from tref's
own stream; their shapes and dtypes are tested in Go.
"""

import torch

from gen_common import Golden

torch.manual_seed(3)
g = Golden("convert")

x = torch.randn(2, 3) * 3
xi = torch.tensor([[1, -2, 3], [4, 5, -6]])
xb = torch.tensor([True, False])
for tag, t in (("f32", x), ("i64", xi), ("bool", xb), ("f64", x.double()), ("0d", torch.tensor(2.5)), ("empty", torch.zeros(0, 2))):
    g.case("zeros_like/%s" % tag, "zeros_like", torch.zeros_like, [t])
    g.case("ones_like/%s" % tag, "ones_like", torch.ones_like, [t])
    g.case("full_like/%s" % tag, "full_like", torch.full_like, [t, 7])
    g.case("size/%s" % tag, "size", lambda t: list(t.size()), [t])
    g.case("numel/%s" % tag, "numel", lambda t: t.numel(), [t])
    g.case("clone/%s" % tag, "clone", torch.clone, [t])
    for m in ("float", "double", "half", "bfloat16", "long", "int", "bool"):
        if m == "int" and t.dim() == 0:
            continue  # a number stays an int64 number (Python's int()); checked below
        g.case("%s/%s" % (m, tag), m, lambda t, m=m: getattr(t, m)(), [t], rtol=1e-2 if m in ("half", "bfloat16") else None)
g.case("full_like/float-into-int", "full_like", torch.full_like, [xi, 2.7])
g.case("full_like/dtype", "full_like", lambda t, v, dtype: torch.full_like(t, v, dtype=torch.float64), [xi, 2.5], {"dtype": "float64"})
g.case("zeros_like/dtype", "zeros_like", lambda t, dtype: torch.zeros_like(t, dtype=torch.int32), [x], {"dtype": "int32"})
g.case("ones_like/dtype-bool", "ones_like", lambda t, dtype: torch.ones_like(t, dtype=torch.bool), [x], {"dtype": "bool"})
for d in (0, 1, -1, -2):
    g.case("size/dim%d" % d, "size", lambda t, d: t.size(d), [x, d])
g.case("size/dim-kw", "size", lambda t, dim: t.size(dim), [x], {"dim": 1})
g.error("size/dim-range", "size", [x, 2], "out of range")
for tag, t in (("2d", x), ("1d", x[0]), ("0d", torch.tensor(1.5)), ("2d-int", xi)):
    g.case("t/%s" % tag, "t", torch.t, [t])
g.error("t/3d", "t", [torch.zeros(2, 3, 4)], "at most 2 dimensions")
for name, dt in (("float16", torch.float16), ("int32", torch.int32), ("int8", torch.int8), ("float64", torch.float64), ("bool", torch.bool)):
    g.case("to/%s" % name, "to", lambda t, d, dt=dt: t.to(dt), [x, name], rtol=1e-3)
g.case("to/tensor", "to", lambda t, o: t.to(o), [x, xi])
g.case("to/cpu", "to", lambda t, d: t.to(d), [x, "cpu"])
g.error("to/bad", "to", [x, "float8"], "neither a dtype")
g.case("int/0d", "int", lambda t: torch.tensor(int(t)), [torch.tensor(-3.7)])
g.case("int/str", "int", lambda s: torch.tensor(int(s)), [" 42 "])
g.case("float/str", "float", lambda s: torch.tensor(float(s), dtype=torch.float32), ["2.5e3"])
g.error("int/bad-str", "int", ["4.5"], "invalid literal for int()")
g.error("float/bad-str", "float", ["abc"], "could not convert string to float")
g.case("tolist/f32", "tolist", lambda t: t.tolist(), [torch.tensor([1.5, -2.0, 0.25])])
g.case("tolist/i64", "tolist", lambda t: t.tolist(), [torch.tensor([3, -1, 2**40])])
g.case("tolist/bool", "tolist", lambda t: t.tolist(), [xb])
g.case("tolist/0d", "tolist", lambda t: t.tolist(), [torch.tensor(7)])
g.case("tolist/i32", "tolist", lambda t: [torch.tensor(v) for v in t.tolist()], [torch.tensor([5, -6], dtype=torch.int32)])

g.write()
