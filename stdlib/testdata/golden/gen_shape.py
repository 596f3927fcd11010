"""Goldens of the creation and shape builtins: /usr/bin/python3 gen_shape.py

Writes shape.json (replayed by golden_test.go through the builtins) and
../index/index.json: the cases of the "index" op (x[i, a:b:c, ...]), which
has no builtin; stdlib/shape_test.go submits the op directly. Index cases
are computed with NumPy basic indexing, which tref follows (negative steps
included; PyTorch rejects those).
"""

import json
import os

import numpy as np
import torch

from gen_common import HERE, Golden, encode_tensor

torch.manual_seed(1)
g = Golden("shape")

DT = {
    "f32": torch.float32,
    "f64": torch.float64,
    "i64": torch.int64,
    "u8": torch.uint8,
    "bool": torch.bool,
}


def make(dt, shape):
    """A deterministic tensor of dtype name dt with distinct-ish values."""
    n = 1
    for s in shape:
        n *= s
    if dt == "bool":
        return (torch.arange(n) % 3 != 1).reshape(shape)
    if dt == "u8":
        return torch.randint(0, 250, shape, dtype=torch.uint8)
    if dt == "i64":
        return torch.randint(-1000, 1000, shape, dtype=torch.int64)
    return (torch.randn(shape, dtype=torch.float64) * 3).to(DT[dt])


# ---- creation -------------------------------------------------------------

g.case("tensor/ints", "tensor", torch.tensor, [[[1, 2, 3], [4, 5, 6]]])
g.case("tensor/floats", "tensor", torch.tensor, [[0.5, -1.25, 3.0]])
g.case("tensor/mixed", "tensor", torch.tensor, [[1, 2.5, 3]])
g.case("tensor/bools", "tensor", torch.tensor, [[[True, False], [False, True]]])
g.case("tensor/bool-int", "tensor", torch.tensor, [[True, 2]])
g.case("tensor/scalar", "tensor", torch.tensor, [7])
g.case("tensor/empty", "tensor", torch.tensor, [[]])
g.case("tensor/empty-nested", "tensor", torch.tensor, [[[], []]])
g.case("tensor/big-int", "tensor", torch.tensor, [[2**62 + 1, -(2**62) - 3]])
g.case("tensor/3d", "tensor", torch.tensor, [[[[1], [2]], [[3], [4]], [[5], [6]]]])
g.case("tensor/dtype-f64", "tensor", lambda d, dtype: torch.tensor(d, dtype=dtype),
       [[1, 2]], {"dtype": torch.float64}, tref_kwargs={"dtype": "float64"})
g.case("tensor/dtype-i64", "tensor", lambda d, dtype: torch.tensor(d, dtype=dtype),
       [[1.75, -2.5]], {"dtype": torch.int64}, tref_kwargs={"dtype": "int64"})
g.case("tensor/of-tensors", "tensor", lambda l: torch.stack(l), [[torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])]])
g.error("tensor/ragged", "tensor", [[[1, 2], [3]]], "ragged nested list: element [1] has shape [1], but element [0] has shape [2]")
g.error("tensor/ragged-deep", "tensor", [[[[1, 2], [3, 4]], [[1, 2], [3]]]], "element [1, 1] has shape [1]")
g.error("tensor/string", "tensor", [[1, "a"]], "element [1] is string")

for name, fn in (("zeros", torch.zeros), ("ones", torch.ones)):
    g.case(name + "/list", name, fn, [[2, 3]])
    g.case(name + "/int", name, fn, [4])
    g.case(name + "/0d", name, fn, [[]])
    g.case(name + "/empty", name, fn, [[0, 3]])
    g.case(name + "/i64", name, lambda s, dtype: fn(s, dtype=dtype), [[2, 2]], {"dtype": torch.int64},
           tref_kwargs={"dtype": "int64"})
    g.case(name + "/bool", name, lambda s, dtype: fn(s, dtype=dtype), [[3]], {"dtype": torch.bool},
           tref_kwargs={"dtype": "bool"})
    g.error(name + "/negative", name, [[2, -1]], "negative dimension -1 in shape [2, -1]")
    g.error(name + "/absurd", name, [[1 << 30, 1 << 30, 1 << 30]], "more than")
g.case("full/int", "full", torch.full, [[2, 2], 7])
g.case("full/float", "full", torch.full, [[3], 1.5])
g.case("full/bool", "full", torch.full, [[2], True])
g.case("full/neg", "full", torch.full, [[2, 1], -3])
g.case("full/dtype", "full", lambda s, v, dtype: torch.full(s, v, dtype=dtype), [[2], 3], {"dtype": torch.float64},
       tref_kwargs={"dtype": "float64"})

g.case("arange/n", "arange", torch.arange, [5])
g.case("arange/start-end", "arange", torch.arange, [2, 7])
g.case("arange/step", "arange", torch.arange, [1, 10, 3])
g.case("arange/neg-step", "arange", torch.arange, [10, 0, -3])
g.case("arange/float", "arange", torch.arange, [0.0, 1.0, 0.1])
g.case("arange/float-end", "arange", torch.arange, [2.5])
g.case("arange/mixed", "arange", torch.arange, [1, 4, 0.5])
g.case("arange/empty", "arange", torch.arange, [3, 3])
g.case("arange/dtype", "arange", lambda a, b, dtype: torch.arange(a, b, dtype=dtype), [0, 4], {"dtype": torch.float64},
       tref_kwargs={"dtype": "float64"})
g.error("arange/zero-step", "arange", [0, 5, 0], "step must be nonzero")
g.error("arange/wrong-way", "arange", [5, 0, 1], "goes away from end")

g.case("linspace/unit", "linspace", torch.linspace, [0.0, 1.0, 5])
g.case("linspace/neg", "linspace", torch.linspace, [-2.0, 3.0, 7])
g.case("linspace/long", "linspace", torch.linspace, [-1.3, 7.7, 101])
g.case("linspace/down", "linspace", torch.linspace, [4.0, -4.0, 6])
g.case("linspace/one", "linspace", torch.linspace, [1.5, 9.0, 1])
g.case("linspace/zero", "linspace", torch.linspace, [0.0, 1.0, 0])
g.case("linspace/ints", "linspace", torch.linspace, [0, 10, 4])

g.case("eye/square", "eye", torch.eye, [3])
g.case("eye/wide", "eye", torch.eye, [2, 4])
g.case("eye/tall", "eye", torch.eye, [4, 2])
g.case("eye/i64", "eye", lambda n, dtype: torch.eye(n, dtype=dtype), [2], {"dtype": torch.int64},
       tref_kwargs={"dtype": "int64"})

# ---- shape ops ------------------------------------------------------------

for dt in ("f32", "f64", "i64", "u8", "bool"):
    x = make(dt, [2, 3, 4])
    g.case("reshape/%s" % dt, "reshape", torch.reshape, [x, [4, 6]])
    g.case("permute/%s" % dt, "permute", torch.permute, [x, [2, 0, 1]])
    g.case("transpose/%s" % dt, "transpose", torch.transpose, [x, 0, 2])
    g.case("cat/%s" % dt, "cat", torch.cat, [[x, make(dt, [2, 1, 4])], 1])
    g.case("stack/%s" % dt, "stack", torch.stack, [[x, make(dt, [2, 3, 4])], 1])
    g.case("split/%s" % dt, "split", torch.split, [x, 2, 2])

x = make("f32", [2, 3, 4])
g.case("reshape/infer", "reshape", torch.reshape, [x, [-1, 4]])
g.case("reshape/infer-mid", "reshape", torch.reshape, [x, [2, -1, 2]])
g.case("reshape/to-0d", "reshape", torch.reshape, [torch.tensor([5.0]), []])
g.case("reshape/from-0d", "reshape", torch.reshape, [torch.tensor(5.0), [1, 1]])
g.case("reshape/empty", "reshape", torch.reshape, [torch.zeros(0, 4), [2, 0, 2]])
g.error("reshape/empty-infer", "reshape", [torch.zeros(0, 4), [2, 0, -1]], "ambiguous")
g.error("reshape/mismatch", "reshape", [x, [5, 5]], "cannot reshape [2, 3, 4] (24 elements) to [5, 5] (25 elements)")
g.error("reshape/two-infer", "reshape", [x, [-1, -1]], "only one dimension can be -1")
g.error("reshape/not-multiple", "reshape", [x, [5, -1]], "24 is not a multiple of 5")

g.case("transpose/neg", "transpose", torch.transpose, [x, -1, -2])
g.case("transpose/same", "transpose", torch.transpose, [x, 1, 1])
g.case("transpose/1d", "transpose", torch.transpose, [torch.arange(4), 0, -1])
g.case("transpose/big", "transpose", torch.transpose, [make("f32", [37, 70]), 0, 1])
g.case("transpose/batched", "transpose", torch.transpose, [make("f64", [3, 33, 40]), 1, 2])
g.error("transpose/range", "transpose", [x, 0, 3], "dimension 3 out of range for a tensor of rank 3")

g.case("permute/neg", "permute", torch.permute, [x, [-1, 0, -2]])
g.case("permute/identity", "permute", torch.permute, [x, [0, 1, 2]])
g.case("permute/4d", "permute", torch.permute, [make("i64", [2, 3, 4, 5]), [3, 1, 0, 2]])
g.error("permute/repeat", "permute", [x, [0, 0, 1]], "repeats dimension 0")
g.error("permute/short", "permute", [x, [1, 0]], "has 2 dimensions, the tensor has 3")

y = make("f32", [1, 3, 1, 2])
g.case("squeeze/all", "squeeze", torch.squeeze, [y])
g.case("squeeze/dim", "squeeze", torch.squeeze, [y, 2])
g.case("squeeze/neg", "squeeze", torch.squeeze, [y, -4])
g.case("squeeze/not-one", "squeeze", torch.squeeze, [y, 1])
g.case("squeeze/0d", "squeeze", torch.squeeze, [torch.tensor(3.0)])
g.case("unsqueeze/front", "unsqueeze", torch.unsqueeze, [x, 0])
g.case("unsqueeze/back", "unsqueeze", torch.unsqueeze, [x, -1])
g.case("unsqueeze/mid", "unsqueeze", torch.unsqueeze, [x, 2])
g.case("unsqueeze/0d", "unsqueeze", torch.unsqueeze, [torch.tensor(2), 0])
g.error("unsqueeze/range", "unsqueeze", [x, 4], "out of range")

z = make("i64", [2, 3, 4, 5])
g.case("flatten/all", "flatten", torch.flatten, [z])
g.case("flatten/start", "flatten", lambda t, s: torch.flatten(t, start_dim=s), [z, 1])
g.case("flatten/range", "flatten", lambda t, s, e: torch.flatten(t, s, e), [z, 1, 2])
g.case("flatten/neg", "flatten", lambda t, s, e: torch.flatten(t, s, e), [z, -3, -2])
g.case("flatten/kw", "flatten", lambda t, start_dim, end_dim: torch.flatten(t, start_dim, end_dim), [z],
       {"start_dim": 2, "end_dim": 3}, tref_kwargs={"start": 2, "end": 3})
g.case("flatten/0d", "flatten", torch.flatten, [torch.tensor(4.0)])
g.error("flatten/order", "flatten", [z, 2, 1], "start dimension 2 comes after end dimension 1")

g.case("expand/lead", "expand", lambda t, s: t.expand(s), [make("f32", [3, 1]), [2, 3, 4]])
g.case("expand/keep", "expand", lambda t, s: t.expand(s), [make("i64", [1, 4]), [3, -1]])
g.case("expand/same", "expand", lambda t, s: t.expand(s), [x, [2, 3, 4]])
g.case("expand/0d", "expand", lambda t, s: t.expand(s), [torch.tensor(1.5), [2, 2]])
g.case("expand/bool", "expand", lambda t, s: t.expand(s), [make("bool", [2, 1, 3]), [2, 5, 3]])
g.case("broadcast_to/basic", "broadcast_to", torch.broadcast_to, [make("f64", [4]), [3, 4]])
g.error("expand/bad", "expand", [make("f32", [2, 3]), [4, 3]], "dimension 0 has size 2, which must be 1 or 4")

a, b, c = make("f32", [2, 3]), make("f32", [2, 3]), make("f32", [4, 3])
g.case("cat/dim0", "cat", torch.cat, [[a, b, c]])
g.case("cat/neg", "cat", torch.cat, [[a, b], -1])
g.case("cat/single", "cat", torch.cat, [[a]])
g.case("cat/promote", "cat", torch.cat, [[make("i64", [2]), make("f32", [3])]])
g.case("cat/promote-bool", "cat", torch.cat, [[make("bool", [2]), make("u8", [1])]])
g.case("cat/skip-empty", "cat", torch.cat, [[a, torch.zeros(0), b]])
g.case("cat/empty-dim", "cat", torch.cat, [[torch.zeros(2, 0), a], 1])
g.case("cat/kw", "cat", lambda t, dim: torch.cat(t, dim=dim), [[a, b]], {"dim": 1})
g.error("cat/mismatch", "cat", [[a, c], 1], "they must match except in dimension 1")
g.error("cat/rank", "cat", [[a, make("f32", [3])]], "same number of dimensions")
g.error("cat/empty-list", "cat", [[]], "at least one")

g.case("stack/dim0", "stack", torch.stack, [[a, b]])
g.case("stack/last", "stack", torch.stack, [[a, b, b], -1])
g.case("stack/0d", "stack", torch.stack, [[torch.tensor(1.0), torch.tensor(2.0)]])
g.case("stack/promote", "stack", torch.stack, [[make("i64", [2]), make("f64", [2])]])
g.error("stack/mismatch", "stack", [[a, c]], "tensor 0 has shape [2, 3] and tensor 1 has shape [4, 3]")

w = make("f32", [7, 4])
g.case("split/int", "split", torch.split, [w, 3])
g.case("split/exact", "split", torch.split, [w, 7])
g.case("split/large", "split", torch.split, [w, 10])
g.case("split/sections", "split", torch.split, [w, [2, 0, 5]])
g.case("split/dim", "split", torch.split, [w, [1, 3], 1])
g.case("split/neg-dim", "split", torch.split, [w, 2, -1])
g.case("split/kw", "split", lambda t, s, dim: torch.split(t, s, dim=dim), [w, 2], {"dim": 1})
g.error("split/sum", "split", [w, [2, 2]], "sections [2, 2] sum to 4, but dimension 0 of shape [7, 4] has size 7")
g.error("split/zero", "split", [w, 0], "must be positive")
g.case("chunk/even", "chunk", torch.chunk, [w, 7])
g.case("chunk/uneven", "chunk", torch.chunk, [w, 3])
g.case("chunk/fewer", "chunk", torch.chunk, [make("f32", [5]), 4])
g.case("chunk/dim", "chunk", torch.chunk, [w, 2, 1])

g.write()

# ---- index ----------------------------------------------------------------


def item(it):
    if isinstance(it, int):
        return {"at": it}
    d = {"step": 1 if it.step is None else it.step}
    if it.start is not None:
        d["start"] = it.start
    if it.stop is not None:
        d["stop"] = it.stop
    return d


INDEX = [
    ("int", [4, 5], (1,)),
    ("neg-int", [4, 5], (-1, -5)),
    ("slice", [4, 5], (slice(1, 3),)),
    ("slice-step", [6, 5], (slice(None, None, 2), slice(1, None, 3))),
    ("slice-neg-bounds", [6, 5], (slice(-4, -1),)),
    ("reverse", [4, 5], (slice(None, None, -1),)),
    ("reverse-both", [4, 5], (slice(None, None, -1), slice(None, None, -2))),
    ("reverse-bounds", [7], (slice(5, 1, -2),)),
    ("clamp", [4, 5], (slice(-100, 100), slice(3, 100))),
    ("clamp-reverse", [4], (slice(100, -100, -1),)),
    ("empty", [4, 5], (slice(3, 1),)),
    ("empty-reverse", [4, 5], (slice(1, 3, -1),)),
    ("mixed", [3, 4, 5, 6], (1, slice(1, 3), slice(None), -1)),
    ("mixed-step", [3, 4, 5, 6], (slice(None, None, 2), 0, slice(None, None, -1), slice(1, 5, 2))),
    ("all-int", [2, 3, 4], (1, 2, 3)),
    ("few-items", [3, 4, 5], (slice(1, None),)),
    ("none", [3, 4], ()),
    ("last-dim", [2, 3, 40], (slice(None), slice(None), slice(5, 35, 3))),
]

cases = []
for dt in ("f32", "i64", "u8", "bool", "f64"):
    for name, shape, idx in INDEX:
        x = make(dt, shape)
        out = torch.from_numpy(np.array(x.numpy()[idx]))  # np.array keeps 0-d results 0-d
        cases.append({"name": "%s/%s" % (name, dt), "x": encode_tensor(x), "items": [item(i) for i in idx],
                      "out": encode_tensor(out)})
for name, shape, idx, msg in [
    ("error/range", [4, 5], (4,), "index 4 is out of range for dimension 0 of size 4"),
    ("error/neg-range", [4, 5], (0, -6), "index -6 is out of range for dimension 1 of size 5"),
    ("error/too-many", [4], (0, 0), "too many indices for a tensor of shape [4]"),
    ("error/zero-step", [4], (slice(None, None, 0),), "step cannot be zero"),
]:
    cases.append({"name": name, "x": encode_tensor(make("f32", shape)),
                  "items": [item(i) for i in idx], "error": msg})

path = os.path.join(HERE, "..", "index", "index.json")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as f:
    f.write('{"numpy": %s, "cases": [\n' % json.dumps(np.__version__))
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
