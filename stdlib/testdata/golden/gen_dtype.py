"""Goldens of the integer widths: /usr/bin/python3 gen_dtype.py

int8, int16 and int32 (torch 1.13 has no uint16, uint32 or uint64; tref's
are tested in Go) through creation, casts both ways, arithmetic with
torch's promotion (uint8 with int8 gives int16, an int64 0-d operand keeps
the tensor's width, a float scalar gives float32), wrapping on overflow,
comparisons, reductions (sum and prod widen to int64), and shape and index
ops that must keep the width.
"""

import torch

from gen_common import Golden

torch.manual_seed(7)
g = Golden("dtype")

INTS = {"i8": torch.int8, "i16": torch.int16, "i32": torch.int32}
ALL = dict(INTS, u8=torch.uint8, i64=torch.int64, f32=torch.float32, f64=torch.float64, bool=torch.bool)


def name(dt):
    return str(dt).replace("torch.", "")


def ints(dt, shape, lo=-9, hi=10):
    return torch.randint(lo, hi, shape, dtype=torch.int64).to(dt)


# Creation: tensor() and full() with a dtype, wrapping like torch.tensor.
for tag, dt in INTS.items():
    g.case("tensor/%s" % tag, "tensor", lambda d, dtype, dt=dt: torch.tensor([1, -2, 300, 70000], dtype=torch.int64).to(dt),
           [[1, -2, 300, 70000]], {"dtype": name(dt)}, tref_kwargs={"dtype": name(dt)})
    g.case("full/%s" % tag, "full", lambda s, v, dtype, dt=dt: torch.full(s, v, dtype=dt), [[2, 2], 5], {"dtype": name(dt)},
           tref_kwargs={"dtype": name(dt)})
    g.case("zeros/%s" % tag, "zeros", lambda s, dtype, dt=dt: torch.zeros(s, dtype=dt), [[3]], {"dtype": name(dt)},
           tref_kwargs={"dtype": name(dt)})
    g.case("arange/%s" % tag, "arange", lambda n, dtype, dt=dt: torch.arange(n, dtype=dt), [5], {"dtype": name(dt)},
           tref_kwargs={"dtype": name(dt)})

# Casts between every pair that involves a narrow width.
cast_src = {
    "f32": torch.tensor([-2.7, -0.5, 0.0, 0.5, 2.7, 100.5]),
    "f64": torch.tensor([-2.7, -0.5, 0.0, 0.5, 2.7, 1e5], dtype=torch.float64),
    "i64": torch.tensor([-300, -1, 0, 1, 255, 70000]),
    "u8": torch.tensor([0, 1, 127, 128, 254, 255], dtype=torch.uint8),
    "bool": torch.tensor([True, False, True, True, False, False]),
    "i8": torch.tensor([-128, -1, 0, 1, 100, 127], dtype=torch.int8),
    "i16": torch.tensor([-32768, -129, 0, 1, 300, 32767], dtype=torch.int16),
    "i32": torch.tensor([-(2**31), -70000, 0, 1, 300, 2**31 - 1], dtype=torch.int32),
}
for src, t in cast_src.items():
    for dst, dtype in ALL.items():
        if src not in INTS and dst not in INTS:
            continue
        if src in ("f32", "f64") and dst in ("i8", "u8"):
            t = t.clamp(-100, 100)
        g.case("astype/%s-%s" % (src, dst), "astype", lambda x, d, dtype=dtype: x.to(dtype), [t, name(dtype)])

# Arithmetic and comparisons, same width.
ARITH = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "floordiv": torch.floor_divide,
         "mod": torch.remainder, "maximum": torch.maximum, "minimum": torch.minimum, "pow": torch.pow,
         "eq": torch.eq, "lt": torch.lt, "ge": torch.ge}
for tag, dt in INTS.items():
    for op, fn in ARITH.items():
        a = ints(dt, [2, 3])
        b = ints(dt, [2, 3], 1, 5) if op in ("floordiv", "mod", "pow") else ints(dt, [2, 3])
        g.case("%s/%s" % (op, tag), op, fn, [a, b])
    big = torch.tensor([torch.iinfo(dt).max, torch.iinfo(dt).min, 3], dtype=dt)
    g.case("add/%s/wrap" % tag, "add", torch.add, [big, torch.tensor([1, -1, 1], dtype=dt)])
    g.case("mul/%s/wrap" % tag, "mul", torch.mul, [big, torch.tensor([2, 2, 2], dtype=dt)])
    g.case("neg/%s" % tag, "neg", torch.neg, [ints(dt, [4])])
    g.case("abs/%s" % tag, "abs", torch.abs, [ints(dt, [4])])
    x = ints(dt, [3, 4])
    g.case("sum/%s" % tag, "sum", torch.sum, [x])
    g.case("sum/%s/dim" % tag, "sum", lambda t, dim: torch.sum(t, dim=dim), [x], {"dim": 1})
    g.case("max/%s" % tag, "max", torch.max, [x])
    g.case("argmax/%s" % tag, "argmax", lambda t, dim: torch.argmax(t, dim=dim), [x], {"dim": 0})
    g.case("transpose/%s" % tag, "transpose", torch.transpose, [x, 0, 1])
    g.case("reshape/%s" % tag, "reshape", torch.reshape, [x, [2, 6]])
    g.case("cat/%s" % tag, "cat", lambda ts, dim: torch.cat(ts, dim), [[x, x], 0])
    g.case("where/%s" % tag, "where", torch.where, [x > 0, x, torch.zeros_like(x)])
    g.case("matmul/%s" % tag, "matmul", lambda a, b: (a.long() @ b.long()).to(a.dtype), [x, ints(dt, [4, 2])])
    g.case("clamp/%s" % tag, "clamp", torch.clamp, [x], {"min": -2, "max": 3})

# Promotion between widths and with scalars (0-d operands of the same
# category keep the width).
PAIRS = [("i8", "u8"), ("i8", "i16"), ("i16", "i32"), ("u8", "i32"), ("i32", "i64"), ("i8", "f32"), ("i32", "f64"),
         ("i16", "bool"), ("u8", "i16")]
for a_tag, b_tag in PAIRS:
    a, b = ints(ALL[a_tag], [3]) if a_tag != "u8" else ints(torch.uint8, [3], 0, 9), cast_src[b_tag][:3].to(ALL[b_tag]) if b_tag in ("bool", "f32", "f64") else ints(ALL[b_tag], [3], 0, 9)
    g.case("add/%s-%s" % (a_tag, b_tag), "add", torch.add, [a, b])
    g.case("mul/%s-%s" % (b_tag, a_tag), "mul", torch.mul, [b, a])
x = ints(torch.int32, [3])
g.case("add/i32-int", "add", lambda a, b: a + torch.tensor(b), [x, 7])
g.case("mul/i8-int", "mul", lambda a, b: a * torch.tensor(b), [ints(torch.int8, [3]), 100])
g.case("add/i16-float", "add", lambda a, b: a + torch.tensor(b), [ints(torch.int16, [3]), 0.5])
g.case("add/i32-0d-i64", "add", torch.add, [x, torch.tensor(5)])
g.case("add/i64-0d-i32", "add", torch.add, [torch.tensor(5), x])
g.case("add/i32-0d-i8", "add", torch.add, [torch.tensor(5, dtype=torch.int32), torch.tensor(3, dtype=torch.int8)])
# A 0-d operand of a higher category gives its own dtype, not the
# category's default (torch.result_type): float64, float16, int8.
g.case("add/i32-0d-f64", "add", torch.add, [x, torch.tensor(0.25, dtype=torch.float64)])
g.case("mul/0d-f16-i64", "mul", torch.mul, [torch.tensor(1.5, dtype=torch.float16), torch.tensor([1, -2, 3])])
g.case("add/bool-0d-i8", "add", torch.add, [torch.tensor([True, False]), torch.tensor(3, dtype=torch.int8)])
g.case("add/u8-0d-bf16", "add", torch.add, [torch.tensor([1, 200], dtype=torch.uint8), torch.tensor(0.5, dtype=torch.bfloat16)])
g.case("embedding/i32-ids", "embedding", lambda ids, t: torch.nn.functional.embedding(ids, t), [torch.tensor([2, 0], dtype=torch.int32), torch.randn(3, 4)])

g.write()
