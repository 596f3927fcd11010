"""Goldens of the gather/scatter builtins of stdlib/gather.go:
/usr/bin/python3 gen_gather.py

gather, scatter (src and value), scatter_add, index_select, masked_fill and
one_hot with torch's argument orders, over dims (negative included),
dtypes, index shapes smaller than the input, 0-d and empty tensors, and
the errors of out-of-range indices and mismatched shapes.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(5)
g = Golden("gather")


def data(dt, shape):
    if dt == torch.bool:
        return torch.rand(shape) > 0.5
    if dt in (torch.int64, torch.uint8):
        return torch.randint(0, 50, shape, dtype=dt)
    return torch.randn(shape, dtype=dt)


def tag(dt):
    return str(dt).replace("torch.", "")


# gather
x = torch.randn(3, 4, 5)
for dim in (0, 1, 2, -1, -3):
    d = dim % 3
    ishape = [2, 3, 4]
    ishape[d] = 6
    idx = torch.randint(0, x.shape[d], ishape)
    g.case("gather/d%d" % dim, "gather", torch.gather, [x, dim, idx])
for dt in (torch.float64, torch.int64, torch.uint8, torch.bool, torch.float16):
    xx = data(dt, [4, 3])
    g.case("gather/%s" % tag(dt), "gather", torch.gather, [xx, 0, torch.randint(0, 4, (5, 2))])
g.case("gather/1d", "gather", torch.gather, [torch.arange(10.0), 0, torch.tensor([9, 0, 3, 3])])
g.case("gather/0d", "gather", torch.gather, [torch.tensor(2.5), 0, torch.tensor(0)])
g.case("gather/empty-index", "gather", torch.gather, [x, 1, torch.zeros(3, 0, 5, dtype=torch.int64)])
g.error("gather/error/oob", "gather", [x, 1, torch.full((3, 4, 5), 4)], "index 4 is out of bounds for dimension 1 with size 4")
g.error("gather/error/negative", "gather", [x, 1, torch.full((3, 4, 5), -1)], "out of bounds")
g.error("gather/error/rank", "gather", [x, 1, torch.zeros(3, 4, dtype=torch.int64)], "same number of dimensions")
g.error("gather/error/size", "gather", [x, 1, torch.zeros(4, 4, 5, dtype=torch.int64)], "larger than input")
g.error("gather/error/dtype", "gather", [x, 1, torch.zeros(3, 4, 5)], "must be an int64 tensor")
g.error("gather/error/dim", "gather", [x, 3, torch.zeros(3, 4, 5, dtype=torch.int64)], "dim")

# scatter and scatter_add (unique indices per target row for scatter, so
# the order of writes does not matter)
base = torch.zeros(4, 5)
for dim in (0, 1, -1):
    d = dim % 2
    n = base.shape[d]
    if d == 0:
        idx = torch.stack([torch.randperm(n)[:3] for _ in range(5)], 1)  # [3, 5]
    else:
        idx = torch.stack([torch.randperm(n)[:3] for _ in range(4)], 0)  # [4, 3]
    src = torch.randn(5, 6)
    g.case("scatter/d%d" % dim, "scatter", torch.scatter, [base, dim, idx, src])
    g.case("scatter_add/d%d" % dim, "scatter_add", torch.scatter_add, [torch.randn(4, 5), dim, idx, src])
    g.case("scatter/value/d%d" % dim, "scatter", lambda x, d, i, value: torch.scatter(x, d, i, value=value),
           [torch.randn(4, 5), dim, idx], {"value": 7.5})
dup = torch.tensor([[0, 0, 1], [2, 2, 2]])
g.case("scatter_add/dups", "scatter_add", torch.scatter_add, [torch.ones(2, 3), 1, dup, torch.arange(6.0).reshape(2, 3)])
g.case("scatter_add/i64", "scatter_add", torch.scatter_add, [torch.ones(2, 3, dtype=torch.int64), 1, dup, torch.arange(6).reshape(2, 3)])
g.case("scatter_add/f64-3d", "scatter_add", torch.scatter_add,
       [torch.randn(2, 3, 4, dtype=torch.float64), 2, torch.randint(0, 4, (2, 2, 6)), torch.randn(2, 3, 6, dtype=torch.float64)])
g.case("scatter/positional-number", "scatter", lambda x, d, i, v: torch.scatter(x, d, i, v), [torch.zeros(3, 3), 0, torch.tensor([[2, 0, 1]]), 1.5])
g.case("scatter/int-value", "scatter", lambda x, d, i, value: torch.scatter(x, d, i, value=value),
       [torch.zeros(2, 4, dtype=torch.int64), 1, torch.tensor([[3], [0]])], {"value": 9})
g.case("scatter/bool", "scatter", torch.scatter, [torch.zeros(2, 3, dtype=torch.bool), 1, torch.tensor([[2], [1]]), torch.ones(2, 1, dtype=torch.bool)])
g.case("scatter/1d", "scatter", torch.scatter, [torch.zeros(5), 0, torch.tensor([4, 1]), torch.tensor([1.0, 2.0, 3.0])])
g.case("scatter/empty-index", "scatter", torch.scatter, [torch.ones(2, 2), 0, torch.zeros(0, 2, dtype=torch.int64), torch.ones(2, 2)])
g.error("scatter/error/oob", "scatter", [torch.zeros(2, 3), 1, torch.tensor([[3]]), torch.ones(1, 1)], "out of bounds")
g.error("scatter/error/dtype", "scatter", [torch.zeros(2, 3), 1, torch.tensor([[1]]), torch.ones(1, 1, dtype=torch.float64)], "dtype")
g.error("scatter/error/src-size", "scatter", [torch.zeros(2, 3), 1, torch.tensor([[1, 2]]), torch.ones(1, 1)], "larger than src")
g.error("scatter/error/both", "scatter", [torch.zeros(2, 3), 1, torch.tensor([[1]]), torch.ones(1, 1)], "give one of", {"value": 1.0})
g.error("scatter/error/neither", "scatter", [torch.zeros(2, 3), 1, torch.tensor([[1]])], "give one of")
g.error("scatter_add/error/bool", "scatter_add", [torch.zeros(2, 3, dtype=torch.bool), 1, torch.tensor([[1]]), torch.ones(1, 1, dtype=torch.bool)], "not supported on bool")

# index_select
x = torch.randn(4, 5, 6)
for dim in (0, 1, 2, -1):
    n = x.shape[dim]
    g.case("index_select/d%d" % dim, "index_select", torch.index_select, [x, dim, torch.tensor([n - 1, 0, 1, 1])])
for dt in (torch.int64, torch.bool, torch.float64, torch.uint8):
    g.case("index_select/%s" % tag(dt), "index_select", torch.index_select, [data(dt, [3, 4]), 1, torch.tensor([3, 3, 0])])
g.case("index_select/empty-index", "index_select", torch.index_select, [x, 1, torch.zeros(0, dtype=torch.int64)])
g.case("index_select/0d-index", "index_select", torch.index_select, [x, 0, torch.tensor(2)])
g.error("index_select/error/oob", "index_select", [x, 0, torch.tensor([4])], "out of bounds")
g.error("index_select/error/2d", "index_select", [x, 0, torch.zeros(2, 2, dtype=torch.int64)], "1-d or 0-d")

# masked_fill
x = torch.randn(3, 4)
for mshape in ([3, 4], [4], [3, 1], []):
    mask = torch.rand(mshape) > 0.5
    g.case("masked_fill/mask%s" % "x".join(map(str, mshape)), "masked_fill", torch.masked_fill, [x, mask, -1.5])
g.case("masked_fill/int-x-float-value", "masked_fill", torch.masked_fill, [torch.arange(6).reshape(2, 3), torch.tensor([True, False, True]), 2.75])
g.case("masked_fill/inf", "masked_fill", torch.masked_fill, [x, torch.rand(3, 4) > 0.5, float("-inf")])
g.case("masked_fill/tensor-value", "masked_fill", torch.masked_fill, [x, torch.rand(3, 4) > 0.5, torch.tensor(3.0)])
g.case("masked_fill/f64", "masked_fill", torch.masked_fill, [x.double(), torch.rand(3, 4) > 0.5, 0.5])
g.case("masked_fill/empty", "masked_fill", torch.masked_fill, [torch.zeros(0, 4), torch.zeros(0, 4, dtype=torch.bool), 1.0])
g.error("masked_fill/error/shape", "masked_fill", [x, torch.zeros(2, 3, 4, dtype=torch.bool), 1.0], "does not broadcast to the input's shape")
g.error("masked_fill/error/dtype", "masked_fill", [x, torch.zeros(3, 4, dtype=torch.int64), 1.0], "must be a bool tensor")

# one_hot
y = torch.tensor([[0, 2], [3, 1]])
g.case("one_hot/infer", "one_hot", F.one_hot, [y])
g.case("one_hot/num_classes", "one_hot", F.one_hot, [y], {"num_classes": 6})
g.case("one_hot/positional", "one_hot", F.one_hot, [torch.tensor([1, 0]), 3])
g.case("one_hot/0d", "one_hot", F.one_hot, [torch.tensor(2)], {"num_classes": 4})
g.case("one_hot/empty", "one_hot", F.one_hot, [torch.zeros(0, dtype=torch.int64)], {"num_classes": 3})
g.error("one_hot/error/too-big", "one_hot", [y], "smaller than num_classes", {"num_classes": 3})
g.error("one_hot/error/negative", "one_hot", [torch.tensor([-1, 0])], "non-negative", {"num_classes": 3})
g.error("one_hot/error/empty-infer", "one_hot", [torch.zeros(0, dtype=torch.int64)], "empty tensor")
g.error("one_hot/error/float", "one_hot", [torch.tensor([1.0])], "int64 tensor")

g.write()
