"""Goldens of torch's indexing functions and random sampling added as tref
builtins: /usr/bin/python3 gen_porting_index.py

take, take_along_dim, index_add, index_copy, index_fill, masked_select and
masked_scatter: values (broadcasting, negative indices where torch wraps
them, dtypes, 0-d and empty cases, keywords under torch's names), the
gradients to input and source (or value) with repeated indices (replayed by
vjp_of_sum, as in gen_grad.py), and errors. bernoulli, normal and
randint_like: only what does not depend on the random stream (tref's
differs from torch's; stdlib/random_more_test.go tests the statistics):
probabilities 0 and 1, std 0, a one-value range, the zero gradients torch
gives, and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(31)
g = Golden("porting_index")
grad_case = g.grad_case


def rn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


L = lambda *v: torch.tensor(v, dtype=torch.int64)
x23 = torch.arange(6.0).reshape(2, 3)

# take
g.case("take/2d-index", "take", torch.take, [x23, torch.tensor([[0, 5], [1, -1]])])
g.case("take/neg", "take", torch.take, [rn(3, 4), L(-12, 11, -1, 0)])
g.case("take/0d-input", "take", torch.take, [torch.tensor(5.0), L(0, 0, -1)])
g.case("take/0d-index", "take", torch.take, [x23, torch.tensor(4)])
g.case("take/float64", "take", torch.take, [rn(2, 2, dtype=torch.float64), L(3, 0)])
g.case("take/int", "take", torch.take, [torch.arange(10).reshape(2, 5), L(9, -10, 4)])
g.case("take/bool", "take", torch.take, [torch.tensor([[True, False], [False, True]]), L(0, 1, 3)])
g.case("take/empty-index", "take", torch.take, [x23, torch.zeros(0, 2, dtype=torch.int64)])
g.case("take/empty-both", "take", torch.take, [torch.ones(0), torch.zeros(0, dtype=torch.int64)])
g.case("take/keywords", "take", lambda input, index: torch.take(input, index), [], {"input": x23, "index": L(2)})
grad_case("take", "take", torch.take, [rn(3, 4), torch.tensor([[0, -1, 5], [5, 5, 11]])])
g.error("take/int32", "take", [x23, torch.tensor([0], dtype=torch.int32)], "take: the index must be an int64 tensor")
g.error("take/float-index", "take", [x23, torch.tensor([0.0])], "take: the index must be an int64 tensor")
g.error("take/range", "take", [x23, L(6)], "take: index 6 is out of range for a tensor of 6 elements")
g.error("take/range-neg", "take", [x23, L(-7)], "take: index -7 is out of range for a tensor of 6 elements")
g.error("take/empty", "take", [torch.ones(0), L(0)], "take: cannot take index 0 from an empty tensor")

# take_along_dim
s34 = rn(3, 4)
g.case("take_along_dim/none", "take_along_dim", torch.take_along_dim, [x23, torch.tensor([[0, 5], [3, 3]])])
g.case("take_along_dim/argsort", "take_along_dim", torch.take_along_dim, [s34, torch.argsort(s34, dim=1)], {"dim": 1})
g.case("take_along_dim/argmax-keepdim", "take_along_dim", torch.take_along_dim, [s34, torch.argmax(s34, dim=0, keepdim=True)], {"dim": 0})
g.case("take_along_dim/bcast", "take_along_dim", torch.take_along_dim, [torch.arange(6.0).reshape(1, 2, 3), torch.tensor([[[0], [2]], [[1], [1]]])], {"dim": 2})
g.case("take_along_dim/bcast-input", "take_along_dim", torch.take_along_dim, [rn(4, 1, 3), torch.tensor([[[2, 0], [1, 1]]])], {"dim": -1})
g.case("take_along_dim/more-indices", "take_along_dim", torch.take_along_dim, [torch.arange(3), torch.tensor([2, 2, 0, 1, 0])], {"dim": 0})
g.case("take_along_dim/0d-none", "take_along_dim", torch.take_along_dim, [torch.tensor(7.0), torch.tensor(0)])
g.error("take_along_dim/0d-dim", "take_along_dim", [torch.tensor(7.0), torch.tensor(0), 0], "take_along_dim: dim 0 of a tensor of shape [] is out of range")
g.case("take_along_dim/int", "take_along_dim", torch.take_along_dim, [torch.arange(12).reshape(3, 4), torch.tensor([[3], [0], [1]])], {"dim": 1})
g.case("take_along_dim/keywords", "take_along_dim", lambda input, indices, dim: torch.take_along_dim(input, indices, dim=dim), [], {"input": x23, "indices": torch.tensor([[1, 0, 1]]), "dim": 0})
grad_case("take_along_dim/bcast", "take_along_dim", torch.take_along_dim, [rn(1, 2, 3), torch.tensor([[[0, 0], [2, 1]], [[1, 1], [1, 1]]])], {"dim": 2})
grad_case("take_along_dim/none", "take_along_dim", torch.take_along_dim, [rn(2, 3), torch.tensor([[0, 5, 5]])])
g.error("take_along_dim/int32", "take_along_dim", [x23, torch.tensor([[0]], dtype=torch.int32), 1], "take_along_dim: the indices must be an int64 tensor")
g.error("take_along_dim/ndim", "take_along_dim", [x23, L(0), 1], "take_along_dim: input and indices must have the same number of dimensions")
g.error("take_along_dim/bcast-error", "take_along_dim", [x23, torch.tensor([[0], [1], [2]]), 1], "take_along_dim: input of shape [2, 3] and indices of shape [3, 1] do not broadcast outside dimension 1")
g.error("take_along_dim/dim", "take_along_dim", [x23, torch.tensor([[0]]), 2], "take_along_dim: dim 2 of a tensor of shape [2, 3] is out of range")
g.error("take_along_dim/range", "take_along_dim", [x23, torch.tensor([[-1]]), 1], "index -1 is out of bounds for dimension 1 with size 3")
g.error("take_along_dim/range-none", "take_along_dim", [x23, torch.tensor([[6]])], "index 6 is out of bounds for dimension 0 with size 6")

# index_add
g.case("index_add/dim0", "index_add", torch.index_add, [x23, 0, L(1, 0), rn(2, 3)])
g.case("index_add/dup-alpha", "index_add", torch.index_add, [rn(3, 4), 1, L(0, 3, 0, 0), rn(3, 4)], {"alpha": -2})
g.case("index_add/alpha-float", "index_add", torch.index_add, [rn(4, 2), 0, L(3, 1), rn(2, 2)], {"alpha": 0.75})
g.case("index_add/int", "index_add", torch.index_add, [torch.arange(6).reshape(3, 2), 0, L(2, 2), torch.tensor([[1, 2], [3, 4]])], {"alpha": 3})
g.case("index_add/int32-index", "index_add", torch.index_add, [x23, 0, torch.tensor([1], dtype=torch.int32), torch.ones(1, 3)])
g.case("index_add/bool", "index_add", torch.index_add, [torch.tensor([True, False, False]), 0, L(1, 2), torch.tensor([True, False])])
g.case("index_add/0d-input", "index_add", torch.index_add, [torch.tensor(1.0), 0, L(0, 0), torch.tensor([2.0, 3.0])])
g.case("index_add/0d-source", "index_add", torch.index_add, [torch.zeros(3), 0, L(1), torch.tensor(1.5)])
g.case("index_add/0d-index", "index_add", torch.index_add, [x23, -2, torch.tensor(1), torch.ones(1, 3)])
g.case("index_add/empty-index", "index_add", torch.index_add, [x23, 1, torch.zeros(0, dtype=torch.int64), torch.ones(2, 0)])
g.case("index_add/float64", "index_add", torch.index_add, [rn(2, 3, dtype=torch.float64), 1, L(2), rn(2, 1, dtype=torch.float64)])
g.case("index_add/special", "index_add", torch.index_add, [torch.tensor([1.0, float("inf"), 3.0]), 0, L(0, 2), torch.tensor([float("nan"), float("-inf")])])
g.case("index_add/keywords", "index_add", lambda input, dim, index, source, alpha: torch.index_add(input, dim, index, source, alpha=alpha), [],
       {"input": x23, "dim": 1, "index": L(0), "source": torch.ones(2, 1), "alpha": 2.0})
grad_case("index_add", "index_add", torch.index_add, [rn(3, 4), 1, L(0, 3, 0), rn(3, 3)], {"alpha": -1.5})
grad_case("index_add/dim0", "index_add", torch.index_add, [rn(4, 2), 0, L(3, 3, 1), rn(3, 2)])
g.error("index_add/negative", "index_add", [x23, 0, L(-1), torch.ones(1, 3)], "index_add: index -1 is out of bounds for dimension 0 with size 2")
g.error("index_add/range", "index_add", [x23, 0, L(2), torch.ones(1, 3)], "index_add: index 2 is out of bounds for dimension 0 with size 2")
g.error("index_add/dtype", "index_add", [x23, 0, L(0), torch.ones(1, 3, dtype=torch.float64)], "index_add: source (float64) must have the input's dtype float32")
g.error("index_add/shape", "index_add", [x23, 0, L(0), torch.ones(2, 3)], "index_add: source of shape [2, 3] does not match the input's shape [2, 3] with dimension 0 of size 1")
g.error("index_add/slice", "index_add", [x23, 0, L(0), torch.ones(1, 2)], "index_add: source of shape [1, 2] does not match")
g.error("index_add/2d-index", "index_add", [x23, 0, torch.tensor([[0]]), torch.ones(1, 3)], "index_add: the index must be 0-d or 1-d, got shape [1, 1]")
g.error("index_add/uint8-index", "index_add", [x23, 0, torch.tensor([0], dtype=torch.uint8), torch.ones(1, 3)], "index_add: the index must be an int64 or int32 tensor")
g.error("index_add/float-alpha", "index_add", [torch.arange(3), 0, L(0), torch.ones(1, dtype=torch.int64), 1.5], "index_add: alpha must be an integer for an input of dtype int64")
g.error("index_add/dim", "index_add", [x23, 2, L(0), torch.ones(2, 3)], "index_add: dim 2 is out of range for a tensor of shape [2, 3]")

# index_copy (a repeated index: the last of its slices, as torch's CPU kernel)
g.case("index_copy/dim0", "index_copy", torch.index_copy, [x23, 0, L(1, 0), rn(2, 3)])
g.case("index_copy/dim1", "index_copy", torch.index_copy, [rn(3, 4), -1, L(3, 1), rn(3, 2)])
g.case("index_copy/dup", "index_copy", torch.index_copy, [x23, 0, L(0, 0), torch.stack([torch.ones(3), 2 * torch.ones(3)])])
g.case("index_copy/int", "index_copy", torch.index_copy, [torch.arange(4), 0, L(3), torch.tensor([-7])])
g.case("index_copy/bool", "index_copy", torch.index_copy, [torch.tensor([True, False]), 0, L(1), torch.tensor([True])])
g.case("index_copy/0d-input", "index_copy", torch.index_copy, [torch.tensor(1.0), 0, L(0), torch.tensor(2.0)])
g.case("index_copy/0d-source", "index_copy", torch.index_copy, [torch.zeros(3), 0, L(0), torch.tensor(2.0)])
g.case("index_copy/0d-index", "index_copy", torch.index_copy, [x23, 0, torch.tensor(1), torch.ones(1, 3)])
g.case("index_copy/3d", "index_copy", torch.index_copy, [rn(2, 3, 2), 1, L(2, 0), rn(2, 2, 2)])
g.case("index_copy/keywords", "index_copy", lambda input, dim, index, source: torch.index_copy(input, dim, index, source), [],
       {"input": x23, "dim": 1, "index": L(2), "source": torch.zeros(2, 1)})
grad_case("index_copy", "index_copy", torch.index_copy, [rn(3, 4), 1, L(2, 0), rn(3, 2)])
grad_case("index_copy/dup", "index_copy", torch.index_copy, [rn(3, 2), 0, L(1, 1, 2), rn(3, 2)])
g.error("index_copy/int32", "index_copy", [x23, 0, torch.tensor([0], dtype=torch.int32), torch.ones(1, 3)], "index_copy: the index must be an int64 tensor")
g.error("index_copy/negative", "index_copy", [x23, 0, L(-1), torch.ones(1, 3)], "index_copy: index -1 is out of bounds for dimension 0 with size 2")
g.error("index_copy/shape", "index_copy", [x23, 0, L(0), torch.ones(2, 3)], "index_copy: source of shape [2, 3] does not match")
g.error("index_copy/dtype-error", "index_copy", [x23, 0, L(0), torch.ones(1, 3, dtype=torch.float64)], "index_copy: source (float64) must have the input's dtype float32")
g.error("index_copy/2d-index", "index_copy", [x23, 0, torch.tensor([[0]]), torch.ones(1, 3)], "index_copy: the index must be 0-d or 1-d")

# index_fill
g.case("index_fill/neg", "index_fill", torch.index_fill, [x23, 0, L(-1), 9])
g.case("index_fill/dim1-dup", "index_fill", torch.index_fill, [rn(3, 4), 1, L(0, 2, 0), -1.5])
g.case("index_fill/float-on-int", "index_fill", torch.index_fill, [torch.arange(3), 0, L(0), 2.7])
g.case("index_fill/tensor-value", "index_fill", torch.index_fill, [torch.arange(3), 0, L(0), torch.tensor(2.7)])
g.case("index_fill/float64-value", "index_fill", torch.index_fill, [x23, 0, L(0), torch.tensor(2.7, dtype=torch.float64)])
g.case("index_fill/bool-value", "index_fill", torch.index_fill, [x23, 1, L(2), torch.tensor(True)])
g.case("index_fill/bool", "index_fill", torch.index_fill, [torch.tensor([True, False]), 0, L(1), True])
g.case("index_fill/nan", "index_fill", torch.index_fill, [x23, 1, L(0), float("nan")])
g.case("index_fill/0d-index", "index_fill", torch.index_fill, [x23, 1, torch.tensor(-1), -1.0])
g.case("index_fill/0d-input", "index_fill", torch.index_fill, [torch.tensor(1.0), 0, L(0), 3.0])
g.case("index_fill/empty-index", "index_fill", torch.index_fill, [x23, 0, torch.zeros(0, dtype=torch.int64), 3.0])
g.case("index_fill/keywords", "index_fill", lambda input, dim, index, value: torch.index_fill(input, dim, index, value), [],
       {"input": x23, "dim": 0, "index": L(0), "value": -2.0})
grad_case("index_fill", "index_fill", torch.index_fill, [rn(3, 4), 1, L(3, 0, 3), 0.5])
grad_case("index_fill/value", "index_fill", torch.index_fill, [rn(3, 4), 1, L(3, 0, 3), torch.tensor(0.5)])
grad_case("index_fill/value-dim0", "index_fill", torch.index_fill, [rn(2, 3, 2), 0, L(1), torch.tensor(-1.0)])
g.error("index_fill/int32", "index_fill", [x23, 0, torch.tensor([0], dtype=torch.int32), 1.0], "index_fill: the index must be an int64 tensor")
g.error("index_fill/range", "index_fill", [x23, 0, L(2), 1.0], "index_fill: index 2 is out of bounds for dimension 0 with size 2")
g.error("index_fill/range-neg", "index_fill", [x23, 0, L(-3), 1.0], "index_fill: index -3 is out of bounds for dimension 0 with size 2")
g.error("index_fill/value-1d", "index_fill", [x23, 0, L(0), torch.tensor([2.7])], "index_fill: argument \"value\" must be a number or a 0-d tensor")
g.error("index_fill/2d-index", "index_fill", [x23, 0, torch.tensor([[0]]), 1.0], "index_fill: the index must be 0-d or 1-d")
g.error("index_fill/dim", "index_fill", [x23, -3, L(0), 1.0], "index_fill: dim -3 is out of range for a tensor of shape [2, 3]")

# masked_select
m23 = torch.tensor([[True, False, True], [False, False, True]])
g.case("masked_select", "masked_select", torch.masked_select, [rn(2, 3), m23])
g.case("masked_select/bcast-mask", "masked_select", torch.masked_select, [rn(2, 3), torch.tensor([False, True, True])])
g.case("masked_select/bcast-both", "masked_select", torch.masked_select, [torch.arange(3.0), torch.tensor([[True], [False], [True]])])
g.case("masked_select/uint8", "masked_select", torch.masked_select, [torch.arange(3.0), torch.tensor([1, 0, 1], dtype=torch.uint8)])
g.case("masked_select/int", "masked_select", torch.masked_select, [torch.arange(6).reshape(2, 3), m23])
g.case("masked_select/bool", "masked_select", torch.masked_select, [torch.tensor([True, False, True]), torch.tensor([True, True, False])])
g.case("masked_select/0d", "masked_select", torch.masked_select, [torch.tensor(3.0), torch.tensor(True)])
g.case("masked_select/none", "masked_select", torch.masked_select, [rn(2, 3), torch.zeros(2, 3, dtype=torch.bool)])
g.case("masked_select/empty", "masked_select", torch.masked_select, [torch.zeros(0, 3), torch.tensor([True, False, True])])
g.case("masked_select/special", "masked_select", torch.masked_select, [torch.tensor([float("nan"), float("inf"), -0.0]), torch.tensor([True, False, True])])
g.case("masked_select/keywords", "masked_select", lambda input, mask: torch.masked_select(input, mask), [], {"input": x23, "mask": m23})
grad_case("masked_select", "masked_select", torch.masked_select, [rn(2, 3), m23])
grad_case("masked_select/bcast", "masked_select", torch.masked_select, [rn(3), torch.tensor([[True, False, True], [True, True, False]])])
g.error("masked_select/int-mask", "masked_select", [torch.arange(3.0), L(1, 0, 1)], "masked_select: the mask must be a bool tensor")
g.error("masked_select/shape", "masked_select", [torch.arange(3.0), torch.tensor([True, False])], "masked_select: a mask of shape [2] does not broadcast with the input's shape [3]")

# masked_scatter
g.case("masked_scatter", "masked_scatter", torch.masked_scatter, [rn(2, 3), m23, rn(2, 3)])
g.case("masked_scatter/bcast-mask", "masked_scatter", torch.masked_scatter, [torch.zeros(2, 3), torch.tensor([True, False, True]), torch.arange(10.0)])
g.case("masked_scatter/bcast-both", "masked_scatter", torch.masked_scatter, [torch.zeros(3), torch.tensor([[True], [False]]), torch.arange(10.0)])
g.case("masked_scatter/src-2d", "masked_scatter", torch.masked_scatter, [torch.zeros(3), torch.tensor([True, False, True]), torch.arange(4.0).reshape(2, 2)])
g.case("masked_scatter/src-0d", "masked_scatter", torch.masked_scatter, [torch.zeros(2), torch.tensor([True, False]), torch.tensor(7.0)])
g.case("masked_scatter/0d", "masked_scatter", torch.masked_scatter, [torch.tensor(3.0), torch.tensor(True), torch.tensor([7.0])])
g.case("masked_scatter/none", "masked_scatter", torch.masked_scatter, [rn(2, 2), torch.zeros(2, 2, dtype=torch.bool), torch.zeros(0)])
g.case("masked_scatter/int", "masked_scatter", torch.masked_scatter, [torch.arange(4), torch.tensor([False, True, True, False]), torch.tensor([-1, -2, -3])])
g.case("masked_scatter/bool", "masked_scatter", torch.masked_scatter, [torch.tensor([False, False]), torch.tensor([True, False]), torch.tensor([True])])
g.case("masked_scatter/uint8", "masked_scatter", torch.masked_scatter, [torch.zeros(3), torch.tensor([1, 0, 1], dtype=torch.uint8), torch.arange(3.0)])
g.case("masked_scatter/keywords", "masked_scatter", lambda input, mask, source: torch.masked_scatter(input, mask, source), [],
       {"input": x23, "mask": m23, "source": -torch.arange(6.0)})
grad_case("masked_scatter", "masked_scatter", torch.masked_scatter, [rn(2, 3), m23, rn(5)])
grad_case("masked_scatter/bcast", "masked_scatter", torch.masked_scatter, [rn(3), torch.tensor([[True, False, True], [False, True, False]]), rn(2, 3)])
g.error("masked_scatter/too-few", "masked_scatter", [torch.zeros(3), torch.tensor([True, True, True]), torch.arange(2.0)], "masked_scatter: source has 2 elements, fewer than the mask's 3 true elements")
g.error("masked_scatter/dtype", "masked_scatter", [torch.zeros(3), torch.tensor([True, True, True]), torch.arange(3)], "masked_scatter: source (int64) must have the input's dtype float32")
g.error("masked_scatter/int-mask", "masked_scatter", [torch.zeros(3), L(1, 0, 1), torch.arange(3.0)], "masked_scatter: the mask must be a bool tensor")
g.error("masked_scatter/shape", "masked_scatter", [torch.zeros(3), torch.tensor([True, False]), torch.arange(3.0)], "masked_scatter: a mask of shape [2] does not broadcast")

# bernoulli, normal, randint_like: what does not depend on the stream.
g.case("bernoulli/certain", "bernoulli", torch.bernoulli, [torch.tensor([[0.0, 1.0], [1.0, 0.0]])])
g.case("bernoulli/float64", "bernoulli", torch.bernoulli, [torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64)])
g.case("bernoulli/p", "bernoulli", torch.bernoulli, [rn(2, 3), 1.0])
g.case("bernoulli/p-zero-int", "bernoulli", torch.bernoulli, [torch.arange(4), 0.0])
g.case("bernoulli/keywords", "bernoulli", lambda input, p: torch.bernoulli(input, p=p), [], {"input": torch.ones(2, dtype=torch.float64), "p": 1.0})
grad_case("bernoulli", "bernoulli", torch.bernoulli, [torch.tensor([0.25, 0.5, 0.75])])
g.error("bernoulli/range", "bernoulli", [torch.tensor([0.5, 1.5])], "bernoulli: the probabilities must be in [0, 1], got 1.5")
g.error("bernoulli/nan", "bernoulli", [torch.tensor([float("nan")])], "bernoulli: the probabilities must be in [0, 1], got NaN")
g.error("bernoulli/int-probabilities", "bernoulli", [L(0, 1)], "bernoulli: the probabilities must be floating point")
g.error("bernoulli/p-range", "bernoulli", [torch.zeros(2), 1.5], "bernoulli: p must be in [0, 1], got 1.5")
g.case("normal/std0", "normal", torch.normal, [torch.tensor([1.5, -2.0]), torch.zeros(3, 1)])
g.case("normal/tensor-float", "normal", torch.normal, [torch.tensor([[1.5, -2.0]], dtype=torch.float64), 0.0])
g.case("normal/float-tensor", "normal", torch.normal, [-3.0, torch.zeros(2, 2)])
g.case("normal/floats", "normal", torch.normal, [0.25, 0.0, [2, 3]])
g.case("normal/mean-dtype", "normal", torch.normal, [torch.tensor([1.0]), torch.zeros(2, dtype=torch.float64)])
g.case("normal/keywords", "normal", lambda mean, std, size: torch.normal(mean=mean, std=std, size=size), [], {"mean": 2.0, "std": 0.0, "size": [3]})
grad_case("normal", "normal", torch.normal, [rn(2, 3), torch.rand(2, 3) + 0.5])
grad_case("normal/tensor-float", "normal", torch.normal, [rn(3), 2.0])
g.error("normal/negative", "normal", [torch.zeros(2), torch.tensor([1.0, -1.0])], "normal: every element of std must be >= 0, got -1")
g.error("normal/nan", "normal", [torch.zeros(2), torch.tensor([1.0, float("nan")])], "normal: every element of std must be >= 0, got NaN")
g.error("normal/negative-float", "normal", [torch.zeros(2), -1.0], "normal: std must not be negative, got -1")
g.error("normal/no-size", "normal", [0.0, 1.0], "normal: give size when mean and std are numbers")
g.error("normal/int", "normal", [L(0, 1), 1.0], "normal: mean must be floating point")
g.error("normal/bcast", "normal", [torch.zeros(2), torch.ones(3)], "normal: mean of shape [2] and std of shape [3] do not broadcast")
g.error("normal/tensor-size", "normal", [torch.zeros(2), torch.ones(2)], "normal: size and dtype are for a mean and a std that are both numbers", kwargs={"size": [2]})
g.case("randint_like/one-value", "randint_like", torch.randint_like, [torch.zeros(2, 3), 4, 5])
g.case("randint_like/int32", "randint_like", torch.randint_like, [torch.zeros(3, dtype=torch.int32), -2, -1])
g.case("randint_like/bool", "randint_like", torch.randint_like, [torch.zeros(2, dtype=torch.bool), 1, 2])
g.case("randint_like/high", "randint_like", torch.randint_like, [torch.zeros(2, 2, dtype=torch.int64), 1])
g.case("randint_like/keywords", "randint_like", lambda input, low, high: torch.randint_like(input, low=low, high=high), [], {"input": torch.ones(3), "low": -7, "high": -6})
g.error("randint_like/range", "randint_like", [torch.zeros(2), 10, 5], "randint_like: low (10) must be less than high (5)")
g.error("randint_like/int8", "randint_like", [torch.zeros(2, dtype=torch.int8), 1000], "randint_like: the range [0, 1000) does not fit in int8")
g.error("randint_like/bool-range", "randint_like", [torch.zeros(2, dtype=torch.bool), 3], "randint_like: the range [0, 3) does not fit in bool")
g.error("randint_like/no-high", "randint_like", [torch.zeros(2)], "randint_like: high is required", kwargs={"low": 3})


# Review fixes (appended so the random inputs above stay as they were):
# the mask is read unbroadcast and its positions expanded on the host;
# masked_select reads input unbroadcast too.
bm = torch.tensor([[True, False, True, False]])
g.case("masked_select/bcast-mask-rows", "masked_select", torch.masked_select, [rn(3, 4), bm])
g.case("masked_select/bcast-mask-cols", "masked_select", torch.masked_select, [rn(3, 4), torch.tensor([[False], [True], [True]])])
g.case("masked_select/bcast-middle", "masked_select", torch.masked_select, [rn(2, 3, 4), torch.tensor([[[True, False, False, True]], [[False, True, True, False]]])])
g.case("masked_select/bcast-outer", "masked_select", torch.masked_select, [rn(3, 1, 2), torch.tensor([[True, False], [False, False], [True, True], [False, True]])])
g.case("masked_select/bcast-input", "masked_select", torch.masked_select, [rn(4, 1), torch.tensor([[[True, False, True]], [[False, True, True]]])])
g.case("masked_select/bcast-0d-input", "masked_select", torch.masked_select, [torch.tensor(2.5), torch.tensor([[True, False], [True, True]])])
g.case("masked_select/bcast-0d-mask", "masked_select", torch.masked_select, [rn(2, 3), torch.tensor(True)])
g.case("masked_select/bcast-all-true", "masked_select", torch.masked_select, [rn(2, 1, 3), torch.ones(4, 1, dtype=torch.bool)])
grad_case("masked_select/bcast-input", "masked_select", torch.masked_select, [rn(2, 1, 3), torch.tensor([[True, False, True], [True, True, False]])])
grad_case("masked_select/bcast-mask-middle", "masked_select", torch.masked_select, [rn(2, 3, 4), torch.tensor([[True, False, False, True]])])
g.case("masked_scatter/bcast-mask-middle", "masked_scatter", torch.masked_scatter, [torch.zeros(2, 3, 4), torch.tensor([[[True, False, False, True]], [[False, True, True, False]]]), torch.arange(30.0)])
g.case("masked_scatter/bcast-mask-outer", "masked_scatter", torch.masked_scatter, [torch.zeros(3, 1, 2), torch.tensor([[True, False], [False, False], [True, True], [False, True]]), torch.arange(30.0)])
grad_case("masked_scatter/bcast-mask-cols", "masked_scatter", torch.masked_scatter, [rn(3, 4), torch.tensor([[False], [True], [True]]), rn(10)])

g.write()
