"""Goldens of the bitwise builtins of stdlib/bitwise.go:
/usr/bin/python3 gen_bitwise.py

bitwise_and, bitwise_or, bitwise_xor and bitwise_not over integer dtypes
(negative values, the extremes), bools, mixed dtypes (promotion),
broadcasting, 0-d and empty tensors, a number as other, keyword
arguments, and the errors on float tensors.
"""

import torch

from gen_common import Golden

torch.manual_seed(13)
g = Golden("bitwise")

BIN = {"bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor}
INTS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


def ints(dt, shape):
    info = torch.iinfo(dt)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    return torch.randint(lo, hi + 1, shape, dtype=torch.int64).to(dt)


def tag(dt):
    return str(dt).replace("torch.", "")


for name, fn in BIN.items():
    for dt in INTS:
        g.case("%s/%s" % (name, tag(dt)), name, fn, [ints(dt, [3, 4]), ints(dt, [3, 4])])
    ext = torch.tensor([torch.iinfo(torch.int64).min, torch.iinfo(torch.int64).max, -1, 0])
    g.case("%s/int64-extremes" % name, name, fn, [ext, torch.tensor([-1, 1, 7, -1])])
    g.case("%s/bool" % name, name, fn, [torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False])])
    g.case("%s/bcast" % name, name, fn, [ints(torch.int64, [2, 1, 3]), ints(torch.int64, [4, 1])])
    g.case("%s/promote" % name, name, fn, [ints(torch.int32, [5]), ints(torch.int64, [5])])
    g.case("%s/bool-int" % name, name, fn, [torch.tensor([True, False, True]), ints(torch.int16, [3])])
    g.case("%s/uint8-int8" % name, name, fn, [ints(torch.uint8, [4]), ints(torch.int8, [4])])
    g.case("%s/number" % name, name, fn, [ints(torch.int64, [6]), 12])
    g.case("%s/number-uint8" % name, name, fn, [ints(torch.uint8, [6]), 5])
    g.case("%s/0d" % name, name, fn, [torch.tensor(6), torch.tensor(3)])
    g.case("%s/empty" % name, name, fn, [torch.zeros(0, 2, dtype=torch.int64), torch.zeros(2, dtype=torch.int64)])
    g.case("%s/keywords" % name, name, lambda input, other: fn(input, other), [], {"input": torch.tensor([5, 6]), "other": torch.tensor([3, 3])})
    g.error("%s/error/float" % name, name, [torch.tensor([1.0]), torch.tensor([1])], "not supported on float32")

for dt in INTS:
    g.case("bitwise_not/%s" % tag(dt), "bitwise_not", torch.bitwise_not, [ints(dt, [3, 4])])
for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
    info = torch.iinfo(dt)
    g.case("bitwise_not/%s-extremes" % tag(dt), "bitwise_not", torch.bitwise_not, [torch.tensor([info.min, info.max, 0], dtype=dt)])
g.case("bitwise_not/bool", "bitwise_not", torch.bitwise_not, [torch.tensor([True, False])])
g.case("bitwise_not/0d", "bitwise_not", torch.bitwise_not, [torch.tensor(5)])
g.case("bitwise_not/empty", "bitwise_not", torch.bitwise_not, [torch.zeros(0, dtype=torch.int32)])
g.error("bitwise_not/error/float", "bitwise_not", [torch.tensor([1.5])], "not supported on float32")
g.write()
