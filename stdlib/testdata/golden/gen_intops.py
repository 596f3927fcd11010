"""Goldens of gcd, lcm, bitwise_left_shift, bitwise_right_shift and mode:
/usr/bin/python3 gen_intops.py

gcd and lcm over every integer dtype torch has (zeros, negatives, the
extremes where torch's kernel wraps, int8 and int16 lcm truncated from C's
int), broadcasting, promotion, 0-d and empty tensors, an int on either
side (torch wants a 0-d tensor there: the same values), keywords, errors.
The shifts likewise, with shift counts inside the width, counts from the
width to 31 on int8, int16 and uint8 (where torch 1.13 already gives 0 or
the sign), and, as explicit expectations, torch 2's definition of counts
that are negative or reach the width (torch 1.13's cpu kernel gives the
hardware's masked shift there). mode over rows of up to 16 elements (the
ones where torch's index is the last occurrence), dims, keepdim, ties,
0-d, bool and empty-batch inputs, its gradient, and, as explicit
expectations, long rows (torch's values; the last occurrence as index).
"""

import torch

from gen_common import Golden

torch.manual_seed(47)
g = Golden("intops")

I64 = torch.iinfo(torch.int64)
INTS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


def tag(dt):
    return str(dt).replace("torch.", "")


def ints(dt, shape, lo=-1000, hi=1000):
    info = torch.iinfo(dt)
    return torch.randint(max(info.min, lo), min(info.max, hi) + 1, shape, dtype=torch.int64).to(dt)


def with_tensor(fn, left=False):
    """fn with a Python int operand given to torch as a 0-d int64 tensor."""
    if left:
        return lambda x, y: fn(torch.tensor(x), y)
    return lambda x, y: fn(x, torch.tensor(y))


for name, fn in (("gcd", torch.gcd), ("lcm", torch.lcm)):
    g.case("%s/basic" % name, name, fn, [torch.tensor([0, 0, 5, -4, 12, -12, 7, 0, 1, -1]), torch.tensor([0, 3, 0, 6, -18, -18, 13, -5, -1, 1])])
    for dt in INTS:
        info = torch.iinfo(dt)
        g.case("%s/%s" % (name, tag(dt)), name, fn, [ints(dt, [3, 4], -60, 60), ints(dt, [3, 4], -60, 60)])
        g.case("%s/%s-extremes" % (name, tag(dt)), name, fn,
               [torch.tensor([info.min, info.min, info.max, 100, 120, -100, 0, info.max], dtype=dt),
                torch.tensor([0, info.min, 2, 3, 35, 3, info.min, info.max], dtype=dt)])
    g.case("%s/int64-mixed" % name, name, fn, [torch.tensor([I64.min, I64.min, I64.max, 6, I64.max]), torch.tensor([0, 6, 3, I64.min, 2])])
    g.case("%s/bcast" % name, name, fn, [ints(torch.int64, [2, 1, 3], -30, 30), ints(torch.int64, [4, 1], -30, 30)])
    g.case("%s/promote" % name, name, fn, [ints(torch.int32, [5], -50, 50), ints(torch.int64, [5], -50, 50)])
    g.case("%s/uint8-int8" % name, name, fn, [ints(torch.uint8, [4]), ints(torch.int8, [4])])
    g.case("%s/number" % name, name, with_tensor(fn), [torch.tensor([4, -6, 9, 0]), 6])
    g.case("%s/number-left" % name, name, with_tensor(fn, left=True), [-6, torch.tensor([4, -6, 9, 0])])
    g.case("%s/number-int8" % name, name, with_tensor(fn), [torch.tensor([4, 10, -3], dtype=torch.int8), 300])
    g.case("%s/0d" % name, name, fn, [torch.tensor(12), torch.tensor(18)])
    g.case("%s/empty" % name, name, fn, [torch.zeros(0, 2, dtype=torch.int64), torch.zeros(2, dtype=torch.int64)])
    g.case("%s/keywords" % name, name, lambda input, other: fn(input, other), [], {"input": torch.tensor([4, 6]), "other": torch.tensor([6, 4])})
    g.error("%s/float" % name, name, [torch.tensor([1.0]), torch.tensor([2])], "%s takes integer tensors, got float32 and int64" % name)
    g.error("%s/bool" % name, name, [torch.tensor([True]), torch.tensor([True])], "%s takes integer tensors, got bool and bool" % name)
    g.error("%s/float-number" % name, name, [torch.tensor([4]), 2.0], "other must be an integer tensor or an int")
    g.error("%s/shape" % name, name, [torch.ones(2, dtype=torch.int64), torch.ones(3, dtype=torch.int64)], "cannot broadcast")


def shift_torch2(name, a, b):
    """torch 2's shift of a by b (one dtype) where b is negative or reaches
    the width: 0 for a left shift, the sign for a right one."""
    bits = torch.iinfo(a.dtype).bits
    out = []
    for x, s in zip(a.tolist(), b.tolist()):
        if s < 0 or s >= bits:
            out.append(0 if name == "bitwise_left_shift" or x >= 0 else -1)
        elif name == "bitwise_left_shift":
            v = (x << s) & ((1 << bits) - 1)
            if a.dtype != torch.uint8 and v >= 1 << (bits - 1):
                v -= 1 << bits
            out.append(v)
        else:
            out.append(x >> s)
    return torch.tensor(out, dtype=a.dtype)


SHIFTS = {"bitwise_left_shift": torch.bitwise_left_shift, "bitwise_right_shift": torch.bitwise_right_shift}
for name, fn in SHIFTS.items():
    for dt in INTS:
        info = torch.iinfo(dt)
        bits = info.bits
        g.case("%s/%s" % (name, tag(dt)), name, fn, [ints(dt, [3, 5], -2**40, 2**40), torch.randint(0, bits, [3, 5]).to(dt)])
        g.case("%s/%s-extremes" % (name, tag(dt)), name, fn,
               [torch.tensor([info.min, info.max, info.min, info.max, 1, -1 if info.min < 0 else 255], dtype=dt),
                torch.tensor([1, 1, bits - 1, bits - 1, bits - 1, bits - 1], dtype=dt)])
        if bits < 32:
            # counts from the width to 31: C's int shift, then truncation
            g.case("%s/%s-wide" % (name, tag(dt)), name, fn,
                   [torch.tensor([1, 100, info.min, info.max, 5], dtype=dt), torch.tensor([bits, bits + 1, bits, 20, 31], dtype=dt)])
        if dt != torch.uint8:
            a = torch.tensor([1, -1, 5, info.min, info.max, -7, 3, -3], dtype=dt)
            b = torch.tensor([-1, -2, bits, bits, bits + 5, max(bits * 2, 100), min(bits * 4, info.max), -100], dtype=dt)
            g.expect("%s/%s-out-of-range" % (name, tag(dt)), name, [a, b], {}, shift_torch2(name, a, b))
    g.case("%s/bcast" % name, name, fn, [ints(torch.int64, [2, 1, 3]), torch.randint(0, 10, [4, 1])])
    g.case("%s/promote" % name, name, fn, [ints(torch.int8, [5], -100, 100), torch.randint(0, 8, [5], dtype=torch.int32)])
    g.case("%s/uint8-int8" % name, name, fn, [ints(torch.uint8, [4]), torch.tensor([0, 1, 3, 7], dtype=torch.int8)])
    g.case("%s/number" % name, name, fn, [ints(torch.int64, [6]), 3])
    g.case("%s/number-int8" % name, name, fn, [torch.tensor([1, -1, 100], dtype=torch.int8), 2])
    g.case("%s/number-left" % name, name, fn, [-40, torch.tensor([0, 1, 2, 3])])
    g.case("%s/0d" % name, name, fn, [torch.tensor(-12), torch.tensor(2)])
    g.case("%s/empty" % name, name, fn, [torch.zeros(0, 2, dtype=torch.int64), torch.zeros(2, dtype=torch.int64)])
    g.case("%s/keywords" % name, name, lambda input, other: fn(input, other), [], {"input": torch.tensor([5, -6]), "other": torch.tensor([1, 2])})
    g.error("%s/float" % name, name, [torch.tensor([1.5]), torch.tensor([1])], "%s takes integer tensors, got float32 and int64" % name)
    g.error("%s/bool" % name, name, [torch.tensor([True]), torch.tensor([True])], "takes integer tensors")
    g.error("%s/float-number" % name, name, [torch.tensor([4]), 1.0], "other must be an integer tensor or an int")
    g.error("%s/numbers" % name, name, [4, 1], "input or other must be a tensor")


def mode(*a, **k):
    return list(torch.mode(*a, **k))


g.case("mode/int", "mode", mode, [torch.tensor([[1, 2, 2, 3, 3, 1, 1], [5, 5, 4, 4, 9, 9, 0]])])
g.case("mode/float-ties", "mode", mode, [torch.tensor([3.0, 1.0, 3.0, 1.0, 2.0])])
g.case("mode/signed-zeros", "mode", mode, [torch.tensor([0.0, -0.0, 1.0])])
g.case("mode/random", "mode", mode, [torch.randint(0, 4, [3, 4, 16]).float()])
g.case("mode/dim0", "mode", mode, [torch.randint(-2, 2, [12, 5])], {"dim": 0})
g.case("mode/dim1-keepdim", "mode", mode, [torch.randint(0, 3, [2, 9, 3]).double()], {"dim": 1, "keepdim": True})
g.case("mode/negative-dim", "mode", mode, [torch.randint(0, 3, [4, 6, 2])], {"dim": -2})
g.case("mode/unique", "mode", mode, [torch.tensor([4.0, -1.0, 2.5, 7.0])])
g.case("mode/one", "mode", mode, [torch.tensor([[7], [3]])])
g.case("mode/0d", "mode", mode, [torch.tensor(2.5)])
g.case("mode/0d-keepdim", "mode", mode, [torch.tensor(2)], {"dim": 0, "keepdim": True})
g.case("mode/bool", "mode", mode, [torch.tensor([[True, False, True], [False, False, True]])])
g.case("mode/int8", "mode", mode, [torch.tensor([-128, 127, 127, -128, 0], dtype=torch.int8)])
g.case("mode/empty-batch", "mode", mode, [torch.zeros(0, 3)], {"dim": 1})
g.case("mode/keywords", "mode", lambda input, dim, keepdim: mode(input, dim, keepdim), [], {"input": torch.tensor([[1, 1], [2, 1]]), "dim": 0, "keepdim": False})
# Past 16 elements torch's unstable sort picks any occurrence: its values,
# the last occurrence as the index.
for label, x in (("long", torch.randint(0, 5, [3, 100])), ("long-float", torch.randint(-3, 3, [2, 40]).float())):
    v, _ = torch.mode(x)
    last = torch.tensor([max(j for j in range(x.shape[1]) if x[i, j] == v[i]) for i in range(x.shape[0])])
    g.expect("mode/%s" % label, "mode", [x], {}, [v, last])
g.grad_case("mode", "mode.values", lambda t: torch.mode(t).values, [torch.randint(0, 3, [3, 7]).float()])
g.grad_case("mode-dim0", "mode.values", lambda t, dim: torch.mode(t, dim).values, [torch.tensor([[1.5, 2.0], [1.5, 3.0], [0.5, 3.0]])], {"dim": 0})
g.error("mode/empty", "mode", [torch.zeros(0)], "dimension -1 of the input of shape [0] is empty; it has no mode")
g.error("mode/empty-dim", "mode", [torch.zeros(2, 0)], "it has no mode", {"dim": 1})
g.error("mode/dim", "mode", [torch.zeros(2, 3)], "out of range", {"dim": 2})
g.write()
