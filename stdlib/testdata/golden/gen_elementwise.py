"""Goldens of the elementwise builtins: /usr/bin/python3 gen_elementwise.py

Binary arithmetic and comparisons over dtypes and broadcasting shapes
(0-d, size-1 dims, empty), unary math, clamp, astype and where. tref's
numbers are 0-d tensors, so the torch reference gets 0-d tensors where the
tref case passes a number (an int as int64, a float as float32, a bool as
bool); the case itself passes the number.
"""

import math

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(0)
g = Golden("elementwise")

DT = {
    "f32": torch.float32,
    "f64": torch.float64,
    "i64": torch.int64,
    "u8": torch.uint8,
    "bool": torch.bool,
}


def scalar_tensor(v):
    if isinstance(v, torch.Tensor):
        return v
    if isinstance(v, bool):
        return torch.tensor(v)
    if isinstance(v, int):
        return torch.tensor(v, dtype=torch.int64)
    return torch.tensor(v, dtype=torch.float32)


def make(dt, shape, kind="any"):
    """A deterministic tensor of dtype name dt; kind "pos" avoids zeros
    and negatives (integer divisors, logs), "nz" avoids zeros."""
    n = 1
    for s in shape:
        n *= s
    if dt == "bool":
        return (torch.arange(n) % 3 != 1).reshape(shape)
    if dt == "u8":
        lo = 1 if kind in ("pos", "nz") else 0
        return torch.randint(lo, 12, shape, dtype=torch.uint8)
    if dt == "i64":
        if kind == "pos":
            return torch.randint(1, 9, shape, dtype=torch.int64)
        t = torch.randint(-9, 10, shape, dtype=torch.int64)
        if kind == "nz":
            t = torch.where(t == 0, torch.full_like(t, 3), t)
        return t
    t = (torch.randn(shape, dtype=torch.float64) * 3).to(DT[dt])
    if kind == "pos":
        t = t.abs() + 0.25
    elif kind == "nz":
        t = torch.where(t.abs() < 0.1, torch.full_like(t, 0.5), t)
    return t


BINARY = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "floordiv": torch.floor_divide,
    "mod": torch.remainder,
    "pow": torch.pow,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "eq": torch.eq,
    "ne": torch.ne,
    "lt": torch.lt,
    "le": torch.le,
    "gt": torch.gt,
    "ge": torch.ge,
    "atan2": torch.atan2,
}


def binary_ref(op):
    fn = BINARY[op]
    return lambda a, b: fn(scalar_tensor(a), scalar_tensor(b))


def divisor_kind(op):
    return "pos" if op in ("floordiv", "mod") else "any"


def binary_case(op, name, a, b, **kw):
    g.case("%s/%s" % (op, name), op, binary_ref(op), [a, b], **kw)


def torch_errors(op, a, b):
    try:
        binary_ref(op)(a, b)
        return False
    except RuntimeError:
        return True


# Same shape, one dtype at a time.
for op in BINARY:
    for dt in DT:
        a = make(dt, [2, 3])
        b = make(dt, [2, 3], divisor_kind(op))
        if op == "pow" and dt in ("i64", "u8"):
            b = torch.randint(0, 4, [2, 3], dtype=DT[dt])
        if op in ("eq", "ne", "le", "ge") and dt != "bool":
            b = b.clone()
            b.view(-1)[::2] = a.view(-1)[::2]  # some equal pairs
        if torch_errors(op, a, b):
            continue
        binary_case(op, "same/" + dt, a, b)

# Broadcasting shapes (float32), 0-d and empty included.
SHAPES = [
    ([2, 3], [3]),
    ([3], [2, 3]),
    ([3, 1], [1, 4]),
    ([2, 1, 3], [4, 1]),
    ([2, 3, 4], [2, 1, 4]),
    ([], [2, 3]),
    ([2, 3], []),
    ([], []),
    ([1], [5]),
    ([0, 3], [3]),
    ([0, 3], [1, 1]),
    ([2, 1, 1, 3], [1, 4, 5, 1]),
]
for op in BINARY:
    for sa, sb in SHAPES:
        a = make("f32", sa)
        b = make("f32", sb, "nz" if op in ("floordiv", "mod", "div") else "any")
        if op == "pow":
            a = a.abs() + 0.5
        name = "bcast/%s-%s" % ("x".join(map(str, sa)) or "0d", "x".join(map(str, sb)) or "0d")
        binary_case(op, name, a, b)

# Mixed dtypes (promotion) and numbers.
MIXED = [
    ("f32", [2, 3], "i64", [2, 3]),
    ("i64", [2, 3], "f64", [3]),
    ("u8", [2, 3], "i64", [2, 3]),
    ("bool", [2, 3], "f32", [2, 3]),
    ("bool", [2, 3], "i64", [3]),
    ("i64", [4], "f32", []),
    ("f32", [4], "f64", []),
    ("u8", [4], "i64", []),
    ("f64", [], "f32", []),
    ("i64", [], "f32", [2]),
]
for op in BINARY:
    for da, sa, db, sb in MIXED:
        a = make(da, sa)
        b = make(db, sb, divisor_kind(op))
        if op == "pow":
            if da in ("i64", "u8", "bool") and db in ("i64", "u8", "bool"):
                b = torch.randint(0, 3, sb).to(DT[db])
            if DT[da].is_floating_point:
                a = a.abs() + 0.5
        if torch_errors(op, a, b):
            continue
        name = "mixed/%s%s-%s%s" % (da, sa, db, sb)
        binary_case(op, name.replace(" ", ""), a, b)
    for num in (2, 2.5, True, -3):
        if op in ("floordiv", "mod") and num is True:
            continue
        for dt in ("f32", "i64", "u8"):
            a = make(dt, [5])
            if op == "pow" and num == -3:
                if dt != "f32":
                    continue
                a = a.abs() + 0.5
            if op == "pow" and dt == "f32":
                a = a.abs() + 0.5
            if op == "pow" and dt == "i64":
                a = a.abs()  # an integer tensor exponent must not be negative
            if torch_errors(op, a, num):
                continue
            binary_case(op, "number/%s-%r" % (dt, num), a, num)
            if not torch_errors(op, num, a) and not (op == "pow" and dt != "f32" and num == -3):
                if op in ("floordiv", "mod") and dt != "f32":
                    continue  # the divisor may be zero
                binary_case(op, "number/%r-%s" % (num, dt), num, a)

# Special values.
special = torch.tensor([0.0, -0.0, 1.5, -2.5, float("nan"), float("inf"), float("-inf"), 7.0])
special2 = torch.tensor([2.0, -3.0, float("nan"), 0.0, 1.0, float("inf"), 2.0, -0.5])
for op in BINARY:
    binary_case(op, "special/f32", special, special2)
# Signs of integer division and modulo.
ia = torch.tensor([7, -7, 7, -7, 0, 6, -6, 5], dtype=torch.int64)
ib = torch.tensor([2, 2, -2, -2, 3, -4, 4, 5], dtype=torch.int64)
for op in ("floordiv", "mod"):
    binary_case(op, "signs/i64", ia, ib)
    binary_case(op, "signs/f32", ia.float(), ib.float())
    binary_case(op, "signs/f64", ia.double() + 0.25, ib.double())
binary_case("div", "i64-by-zero", ia, torch.tensor(0))
binary_case("pow", "u8-wraps", torch.tensor([3, 5, 200], dtype=torch.uint8), 3)
binary_case("pow", "i64-big", torch.tensor([3, -5, 10], dtype=torch.int64), 13)
binary_case("add", "u8-wraps", torch.tensor([250, 3], dtype=torch.uint8), 10)
binary_case("sub", "u8-wraps", torch.tensor([3, 250], dtype=torch.uint8), torch.tensor([5, 6], dtype=torch.uint8))
# Errors.
g.error("add/error/shapes", "add", [torch.ones(2, 3), torch.ones(4)], "cannot broadcast shapes [2, 3] and [4]")
g.error("mul/error/shapes3d", "mul", [torch.ones(2, 3, 4), torch.ones(3, 1, 5)], "cannot broadcast shapes [2, 3, 4] and [3, 1, 5]")
g.error("floordiv/error/zero", "floordiv", [ia, torch.tensor([1, 0, 1, 1, 1, 1, 1, 1])], "integer division by zero")
g.error("mod/error/zero", "mod", [ia, 0], "integer division by zero")
g.error("floordiv/error/zero-u8", "floordiv", [torch.tensor([3], dtype=torch.uint8), torch.tensor([0], dtype=torch.uint8)], "integer division by zero")
g.error("pow/error/neg-literal", "pow", [ia, -1], "negative integer powers")
g.error("pow/error/neg-tensor", "pow", [ia, torch.tensor([1, 2, -1, 1, 1, 1, 1, 1])], "negative integer powers")
g.error("sub/error/bool", "sub", [torch.tensor([True]), torch.tensor([False])], "subtraction with a bool")
g.error("mod/error/bool", "mod", [torch.tensor([True]), torch.tensor([True])], "not supported on bool")

# Unary ops.
FLOAT_UNARY = {
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "sin": torch.sin,
    "cos": torch.cos,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "gelu": F.gelu,
    "silu": lambda x: F.silu(x if x.is_floating_point() else x.float()),
}
KEEP_UNARY = {"neg": torch.neg, "abs": torch.abs, "relu": torch.relu}
uvals = torch.tensor([[-3.5, -1.0, -0.25, 0.0], [0.5, 1.0, 2.75, 9.0]])
for name, fn in FLOAT_UNARY.items():
    g.case(name + "/f32", name, fn, [uvals])
    g.case(name + "/f64", name, fn, [uvals.double() * 1.7])
    g.case(name + "/0d", name, fn, [torch.tensor(0.75)])
    g.case(name + "/empty", name, fn, [torch.zeros(0, 2)])
    if name != "gelu":
        g.case(name + "/i64", name, fn, [torch.tensor([[-2, 0], [1, 5]])])
        g.case(name + "/bool", name, fn, [torch.tensor([True, False])])
        g.case(name + "/u8", name, fn, [torch.tensor([0, 3, 200], dtype=torch.uint8)])
    g.case(name + "/special", name, fn, [torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0])])
g.error("gelu/error/i64", "gelu", [torch.tensor([1, 2])], "gelu needs a float tensor")
for name, fn in KEEP_UNARY.items():
    g.case(name + "/f32", name, fn, [uvals])
    g.case(name + "/f64", name, fn, [uvals.double()])
    g.case(name + "/i64", name, fn, [torch.tensor([[-2, 0], [1, 5]])])
    g.case(name + "/u8", name, fn, [torch.tensor([0, 3, 200], dtype=torch.uint8)])
    g.case(name + "/0d", name, fn, [torch.tensor(-4)])
    g.case(name + "/nan", name, fn, [torch.tensor([float("nan"), float("-inf")])])
    g.error(name + "/error/bool", name, [torch.tensor([True])], "not supported on bool")
for dt in DT:
    g.case("logical_not/" + dt, "logical_not", torch.logical_not, [make(dt, [2, 3])])
g.case("logical_not/nan", "logical_not", torch.logical_not, [torch.tensor([float("nan"), 0.0, -0.0])])

# clamp.
cx = make("f32", [3, 4])
g.case("clamp/f32-both", "clamp", torch.clamp, [cx], {"min": -1.0, "max": 1.5})
g.case("clamp/f32-min", "clamp", torch.clamp, [cx], {"min": 0.0})
g.case("clamp/f32-max", "clamp", torch.clamp, [cx], {"max": 0.5})
g.case("clamp/f32-int-bounds", "clamp", torch.clamp, [cx], {"min": -1, "max": 1})
g.case("clamp/f32-min-gt-max", "clamp", torch.clamp, [cx], {"min": 1.0, "max": -1.0})
g.case("clamp/f32-nan", "clamp", torch.clamp, [torch.tensor([float("nan"), 5.0, -5.0])], {"min": -1.0, "max": 1.0})
g.case("clamp/f64", "clamp", torch.clamp, [cx.double()], {"min": -0.5, "max": 0.5})
g.case("clamp/i64", "clamp", torch.clamp, [make("i64", [7])], {"min": -2, "max": 3})
g.case("clamp/i64-float-bound", "clamp", torch.clamp, [make("i64", [7])], {"min": 0.5})
g.case("clamp/u8-negative-bound", "clamp", torch.clamp, [torch.tensor([3, 250], dtype=torch.uint8)], {"min": -1})
g.case("clamp/bool-int-bound", "clamp", torch.clamp, [torch.tensor([True, False])], {"min": 0})
g.error("clamp/error/no-bounds", "clamp", [cx], "clamp needs min=, max= or both")

# astype.
cast_src = {
    "f32": torch.tensor([-2.7, -0.5, 0.0, 0.5, 2.7, 300.5]),
    "f64": torch.tensor([-2.7, -0.5, 0.0, 0.5, 2.7, 1e10], dtype=torch.float64),
    "i64": torch.tensor([-300, -1, 0, 1, 255, 1 << 40]),
    "u8": torch.tensor([0, 1, 127, 128, 254, 255], dtype=torch.uint8),
    "bool": torch.tensor([True, False, True, True, False, False]),
}
for src, t in cast_src.items():
    for dst, dtype in DT.items():
        if src == "f32" and dst == "u8":
            t2 = torch.tensor([0.0, 0.5, 2.7, 127.9, 200.0, 255.0])
        elif src == "f64" and dst in ("u8", "i64"):
            t2 = torch.tensor([0.0, 0.5, 2.7, 127.9, 200.0, 255.0], dtype=torch.float64)
        else:
            t2 = t
        name = str(dtype).replace("torch.", "")
        g.case("astype/%s-%s" % (src, dst), "astype", lambda x, d, dtype=dtype: x.to(dtype), [t2, name])
g.case("astype/f32-float16", "astype", lambda x, d: x.to(torch.float16), [torch.tensor([1.0, 0.1, 65504.0, 1e-5]), "float16"], rtol=1e-3)
g.case("astype/f32-bfloat16", "astype", lambda x, d: x.to(torch.bfloat16), [torch.tensor([1.0, 0.1, 3e38, -7.25]), "bfloat16"], rtol=1e-2)
g.case("astype/float16-f32", "astype", lambda x, d: x.float(), [torch.tensor([1.0, 0.1, -2.5], dtype=torch.float16), "float32"])
g.error("astype/error/dtype", "astype", [cx, "float128"], "unknown dtype")
h = torch.tensor([1.5, -2.25, 0.1], dtype=torch.float16)
g.case("add/float16", "add", torch.add, [h, h], rtol=1e-3)
g.case("mul/float16-f32-0d", "mul", lambda a, b: a * b, [h, torch.tensor(3.0)], rtol=1e-3)
g.case("exp/float16", "exp", lambda x: torch.exp(x.float()).half(), [h], rtol=1e-3)
g.case("add/bfloat16-float16", "add", torch.add, [h.bfloat16(), h], rtol=1e-2)

# where.
cond = make("bool", [2, 3])
g.case("where/same", "where", torch.where, [cond, make("f32", [2, 3]), make("f32", [2, 3])])
g.case("where/bcast", "where", torch.where, [make("bool", [3, 1]), make("f32", [1, 4]), make("f32", [4])])
g.case("where/cond-bcast", "where", torch.where, [make("bool", [4]), make("f32", [3, 4]), make("f32", [3, 1])])
g.case("where/scalar-b", "where", lambda c, a, b: torch.where(c, a, scalar_tensor(b)), [cond, make("f32", [2, 3]), 0.0])
g.case("where/scalars", "where", lambda c, a, b: torch.where(c, scalar_tensor(a), scalar_tensor(b)), [cond, 1.5, -2.0])
g.case("where/mixed", "where", torch.where, [cond, make("i64", [2, 3]), make("f32", [3])])
g.case("where/int-scalar", "where", lambda c, a, b: torch.where(c, a, scalar_tensor(b)), [cond, make("i64", [2, 3]), 7])
g.case("where/f64-f32", "where", torch.where, [cond, make("f64", [2, 3]), make("f32", [2, 3])])
g.case("where/bool", "where", torch.where, [cond, make("bool", [2, 3]), torch.tensor(False)])
g.case("where/u8", "where", torch.where, [cond, make("u8", [2, 3]), make("u8", [1])])
g.case("where/empty", "where", torch.where, [make("bool", [0, 3]), make("f32", [3]), make("f32", [0, 1])])
g.case("where/0d", "where", torch.where, [torch.tensor(True), torch.tensor(1.0), torch.tensor(2.0)])
g.error("where/error/cond", "where", [make("f32", [3]), make("f32", [3]), make("f32", [3])], "condition must be a bool")
g.error("where/error/shapes", "where", [make("bool", [2]), make("f32", [3]), make("f32", [3])], "cannot broadcast")

g.write()
