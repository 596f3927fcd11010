"""Goldens of the rearranging shape builtins of stdlib/reorder.go:
/usr/bin/python3 gen_reorder.py

view (with -1 and as separate ints), repeat (more sizes than dimensions,
zeros), flip, roll (with and without dims, negative and large shifts),
tril and triu (diagonals, batches, wide and tall matrices), over dtypes,
0-d and empty tensors.
"""

import torch

from gen_common import Golden

torch.manual_seed(13)
g = Golden("reorder")

x = torch.arange(24.0).reshape(2, 3, 4)

# view
g.case("view/list", "view", lambda x, s: x.view(s), [x, [4, 6]])
g.case("view/minus1", "view", lambda x, s: x.view(s), [x, [-1, 3]])
g.case("view/ints", "view", lambda x, a, b: x.view(a, b), [x, 6, -1])
g.case("view/0d", "view", lambda x, s: x.view(s), [torch.tensor(3.0), [1, 1]])
g.error("view/error", "view", [x, [5, 5]], "")

# repeat
for sizes in ([2, 1, 3], [1, 1, 1], [2, 2, 1, 2], [0, 2, 1], [3, 1, 1, 1, 1]):
    g.case("repeat/%s" % "x".join(map(str, sizes)), "repeat", lambda x, s: x.repeat(s), [x, sizes])
g.case("repeat/ints", "repeat", lambda x, a, b: x.repeat(a, b), [torch.tensor([[1, 2]]), 2, 3])
g.case("repeat/bool", "repeat", lambda x, s: x.repeat(s), [torch.tensor([True, False]), [3]])
g.case("repeat/0d", "repeat", lambda x, s: x.repeat(s), [torch.tensor(5), [2, 2]])
g.error("repeat/error/few", "repeat", [x, [2, 2]], "at least one per dimension")

# flip
for dims in ([0], [1], [-1], [0, 2], [2, 1, 0], []):
    g.case("flip/%s" % dims, "flip", lambda x, d: torch.flip(x, d), [x, dims])
g.case("flip/i64", "flip", lambda x, d: torch.flip(x, d), [torch.randint(0, 9, (3, 5)), [1]])
g.case("flip/0d", "flip", lambda x, d: torch.flip(x, d), [torch.tensor(2.0), [0]])
g.case("flip/empty", "flip", lambda x, d: torch.flip(x, d), [torch.zeros(0, 3), [0, 1]])
g.error("flip/error/dup", "flip", [x, [0, 0]], "more than once")
g.error("flip/error/dim", "flip", [x, [3]], "dim")

# roll
for shifts, dims in ((1, 0), (-1, 1), (5, 2), (13, 2), ([1, 2], [0, 2]), ([-3, 1], [-1, -2])):
    g.case("roll/%s/%s" % (shifts, dims), "roll", lambda x, s, d: torch.roll(x, s, d), [x, shifts, dims])
g.case("roll/flat", "roll", lambda x, s: torch.roll(x, s), [x, 5])
g.case("roll/flat-negative", "roll", lambda x, s: torch.roll(x, s), [x, -7])
g.case("roll/kw", "roll", lambda x, **kw: torch.roll(x, **kw), [x], {"shifts": 2, "dims": 1})
g.case("roll/empty", "roll", lambda x, s, d: torch.roll(x, s, d), [torch.zeros(0, 3), 1, 0])
g.case("roll/bool", "roll", lambda x, s, d: torch.roll(x, s, d), [torch.tensor([True, False, False]), 1, 0])
g.error("roll/error/lengths", "roll", [x, [1, 2], [0]], "same length")

# tril / triu
m = torch.randn(5, 4)
for name, fn in (("tril", torch.tril), ("triu", torch.triu)):
    for d in (0, 1, -1, 3, -5, 10):
        g.case("%s/d%d" % (name, d), name, fn, [m, d])
    g.case("%s/wide" % name, name, fn, [torch.randn(3, 6)])
    g.case("%s/batch" % name, name, fn, [torch.randn(2, 3, 4, 4)], {"diagonal": 1})
    g.case("%s/i64" % name, name, fn, [torch.randint(1, 9, (4, 4))])
    g.case("%s/bool" % name, name, fn, [torch.ones(3, 3, dtype=torch.bool)], {"diagonal": -1})
    g.case("%s/empty" % name, name, fn, [torch.zeros(0, 3)])
    g.error("%s/error/1d" % name, name, [torch.zeros(3)], "at least 2 dimensions")

g.write()
