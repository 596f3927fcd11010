"""Goldens of torch's shape, product, embedding and predicate functions of
stdlib/shape_port.go and stdlib/shape_port_index.go:
/usr/bin/python3 gen_porting_shape.py

mm, inner, equal, ravel, select, broadcast_tensors, broadcast_shapes,
diagflat, combinations, chain_matmul, trapz, is_tensor, is_floating_point,
is_nonzero, isreal, unique_consecutive, slice_scatter, select_scatter,
diagonal_scatter, index_put and put: values (dtypes, negative dims and
indices, broadcasting, empty tensors, keywords under torch's names), the
gradients of the differentiable ones (replayed by vjp_of_sum, as in
gen_grad.py: both inputs of the embeddings, index_put and put with
accumulate and with repeated indices; broadcast_tensors' list is
differentiated in spec/torch_porting_shape.tr), and errors.

Debian's torch 1.13.0a0 gives slice_scatter a wrong default step when step
is not passed (a slice of one element); torch's documented default is 1,
which tref follows, so the references below always pass step.
"""

import torch

from gen_common import Golden

torch.manual_seed(37)
g = Golden("porting_shape")
grad_case = g.grad_case

F32, F64, I64, I32, BOOL = torch.float32, torch.float64, torch.int64, torch.int32, torch.bool
NAN = float("nan")


def rn(*shape, dtype=F32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def ri(*shape):
    return torch.randint(-4, 5, shape)


L = lambda *v: torch.tensor(v, dtype=I64)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    return torch.slice_scatter(input, src, dim, start, end, step)


# mm
for dt in (F32, F64):
    g.case("mm/%s" % str(dt)[6:], "mm", torch.mm, [rn(3, 4, dtype=dt), rn(4, 2, dtype=dt)])
g.case("mm/int64", "mm", torch.mm, [ri(2, 3), ri(3, 2)])
g.case("mm/empty-inner", "mm", torch.mm, [rn(2, 0), rn(0, 3)])
g.case("mm/empty-rows", "mm", torch.mm, [rn(0, 3), rn(3, 2)])
g.case("mm/nan", "mm", torch.mm, [torch.tensor([[1.0, NAN], [0.0, 1.0]]), torch.eye(2)])
g.case("mm/keywords", "mm", lambda input, mat2: torch.mm(input, mat2), [], {"input": rn(2, 2), "mat2": rn(2, 3)})
grad_case("mm", "mm", torch.mm, [rn(3, 4), rn(4, 2)])
g.error("mm/vector", "mm", [rn(2, 3), rn(3)], "mm: expected two 2-d tensors, got shapes [2, 3] and [3]")
g.error("mm/batched", "mm", [rn(2, 2, 3), rn(3, 2)], "mm: expected two 2-d tensors, got shapes [2, 2, 3] and [3, 2]")
g.error("mm/shapes", "mm", [rn(2, 3), rn(2, 3)], "mm: shapes [2, 3] and [2, 3] cannot be multiplied (3 != 2)")
g.error("mm/dtype", "mm", [rn(2, 3), rn(3, 2, dtype=F64)], "mm: input is float32 and mat2 float64: they must have one dtype")
g.error("mm/bool", "mm", [torch.ones(2, 2, dtype=BOOL), torch.ones(2, 2, dtype=BOOL)], "mm:")

# inner
g.case("inner/1d", "inner", torch.inner, [rn(5), rn(5)])
g.case("inner/2d", "inner", torch.inner, [rn(2, 3), rn(4, 3)])
g.case("inner/3d-1d", "inner", torch.inner, [rn(2, 3, 4), rn(4)])
g.case("inner/1d-3d", "inner", torch.inner, [rn(4), rn(2, 3, 4)])
g.case("inner/float64", "inner", torch.inner, [rn(2, 3, dtype=F64), rn(2, 2, 3, dtype=F64)])
g.case("inner/int64", "inner", torch.inner, [ri(2, 3), ri(3)])
g.case("inner/0d-int", "inner", torch.inner, [torch.tensor(2), rn(3)])
g.case("inner/0d-float", "inner", torch.inner, [rn(2, 3), torch.tensor(-1.5)])
g.case("inner/0d-0d", "inner", torch.inner, [torch.tensor(2), torch.tensor(3)])
g.case("inner/0d-bool", "inner", torch.inner, [torch.tensor(True), torch.tensor(True)])
g.case("inner/empty-k", "inner", torch.inner, [rn(2, 0), rn(3, 0)])
g.case("inner/empty-1d", "inner", torch.inner, [rn(0), rn(0)])
g.case("inner/empty-rows", "inner", torch.inner, [rn(0, 3), rn(2, 3)])
g.case("inner/keywords", "inner", lambda input, other: torch.inner(input, other), [], {"input": rn(3), "other": rn(2, 3)})
grad_case("inner", "inner", torch.inner, [rn(2, 3), rn(4, 3)])
grad_case("inner/3d", "inner", torch.inner, [rn(2, 2, 3), rn(3)])
grad_case("inner/0d", "inner", torch.inner, [rn(2, 3), torch.tensor(0.75)])
g.error("inner/last", "inner", [rn(2, 3), rn(2)], "inner: the last dimensions must match, got shapes [2, 3] and [2]")
g.error("inner/dtype", "inner", [rn(3), rn(3, dtype=F64)], "inner: input is float32 and other float64: they must have one dtype")
g.error("inner/int-float", "inner", [ri(2, 3), rn(3)], "inner: input is int64 and other float32")
g.error("inner/bool", "inner", [torch.ones(3, dtype=BOOL), torch.ones(3, dtype=BOOL)], "inner:")

# equal
a23 = rn(2, 3)
g.case("equal/same", "equal", torch.equal, [a23, a23.clone()])
g.case("equal/differ", "equal", torch.equal, [a23, a23 + torch.tensor([[0, 0, 0], [0, 1e-3, 0]])])
g.case("equal/shape", "equal", torch.equal, [torch.zeros(2), torch.zeros(1, 2)])
g.case("equal/nan", "equal", torch.equal, [torch.tensor([1.0, NAN]), torch.tensor([1.0, NAN])])
g.case("equal/signed-zero", "equal", torch.equal, [torch.tensor([0.0]), torch.tensor([-0.0])])
g.case("equal/empty", "equal", torch.equal, [torch.zeros(0, 3), torch.ones(0, 3)])
g.case("equal/empty-shape", "equal", torch.equal, [torch.zeros(0, 3), torch.zeros(3, 0)])
g.case("equal/int-float", "equal", torch.equal, [L(1, 2), torch.tensor([1.0, 2.0])])
g.case("equal/int-float-differ", "equal", torch.equal, [L(1, 2), torch.tensor([1.0, 2.5])])
g.case("equal/bool-int", "equal", torch.equal, [torch.tensor([True, False]), L(1, 0)])
g.case("equal/int64-big", "equal", torch.equal, [torch.tensor(2 ** 53 + 1), torch.tensor(2 ** 53)])
g.case("equal/0d", "equal", torch.equal, [torch.tensor(3.0), torch.tensor(3.0)])
g.case("equal/keywords", "equal", lambda input, other: torch.equal(input, other), [], {"input": L(1, 2), "other": L(1, 3)})

# ravel
g.case("ravel/2d", "ravel", torch.ravel, [rn(2, 3)])
g.case("ravel/0d", "ravel", torch.ravel, [torch.tensor(3.0)])
g.case("ravel/int", "ravel", torch.ravel, [torch.arange(24).reshape(2, 3, 4)])
g.case("ravel/bool", "ravel", torch.ravel, [torch.tensor([[True], [False]])])
g.case("ravel/empty", "ravel", torch.ravel, [torch.zeros(2, 0, 3)])
g.case("ravel/keywords", "ravel", lambda input: torch.ravel(input), [], {"input": rn(3, 1)})
grad_case("ravel", "ravel", torch.ravel, [rn(2, 3)])

# select
x234 = rn(2, 3, 4)
g.case("select/dim0", "select", torch.select, [x234, 0, 1])
g.case("select/neg-dim", "select", torch.select, [x234, -1, 2])
g.case("select/neg-index", "select", torch.select, [x234, 1, -3])
g.case("select/1d", "select", torch.select, [torch.arange(5), 0, -1])
g.case("select/bool", "select", torch.select, [torch.tensor([[True, False], [False, False]]), 1, 0])
g.case("select/empty-rest", "select", torch.select, [torch.zeros(3, 0), 0, 2])
g.case("select/keywords", "select", lambda input, dim, index: torch.select(input, dim, index), [], {"input": x234, "dim": 2, "index": 0})
grad_case("select", "select", torch.select, [rn(2, 3, 4), 1, -1])
g.error("select/range", "select", [torch.arange(6).reshape(2, 3), 1, 3], "select: index 3 is out of range for dimension 1 of size 3 (shape [2, 3])")
g.error("select/range-neg", "select", [torch.arange(6).reshape(2, 3), 1, -4], "select: index -4 is out of range for dimension 1 of size 3")
g.error("select/empty", "select", [torch.zeros(0, 3), 0, 0], "select: index 0 is out of range for dimension 0 of size 0")
g.error("select/dim", "select", [torch.arange(6).reshape(2, 3), 2, 0], "select: dim 2 of a tensor of shape [2, 3] is out of range")
g.error("select/0d", "select", [torch.tensor(3.0), 0, 0], "select: cannot select from a 0-d tensor")

# broadcast_tensors, broadcast_shapes
g.case("broadcast_tensors", "broadcast_tensors", torch.broadcast_tensors, [rn(2, 1), rn(3)])
g.case("broadcast_tensors/three", "broadcast_tensors", torch.broadcast_tensors, [rn(4, 1, 1), L(1, 2), torch.tensor(True)])
g.case("broadcast_tensors/one", "broadcast_tensors", torch.broadcast_tensors, [rn(2, 3)])
g.case("broadcast_tensors/none", "broadcast_tensors", torch.broadcast_tensors, [])
g.case("broadcast_tensors/empty", "broadcast_tensors", torch.broadcast_tensors, [rn(0, 1), rn(1, 3)])
g.error("broadcast_tensors/mismatch", "broadcast_tensors", [rn(2), rn(3)], "broadcast_tensors: shape [3] (argument 2) does not broadcast with [2]")
g.error("broadcast_tensors/not-tensor", "broadcast_tensors", [rn(2), "x"], "broadcast_tensors: argument 2 must be a tensor")
g.case("broadcast_shapes", "broadcast_shapes", torch.broadcast_shapes, [[2, 1], [3], 3])
g.case("broadcast_shapes/ints", "broadcast_shapes", torch.broadcast_shapes, [2, 1])
g.case("broadcast_shapes/none", "broadcast_shapes", torch.broadcast_shapes, [])
g.case("broadcast_shapes/0d", "broadcast_shapes", torch.broadcast_shapes, [[2, 1], []])
g.case("broadcast_shapes/zero", "broadcast_shapes", torch.broadcast_shapes, [[2, 1], [1, 0]])
g.case("broadcast_shapes/zero-int", "broadcast_shapes", torch.broadcast_shapes, [0, 1])
g.error("broadcast_shapes/mismatch", "broadcast_shapes", [[2], [3]], "broadcast_shapes: shape [3] (argument 2) does not broadcast with [2]")
g.error("broadcast_shapes/negative", "broadcast_shapes", [[-1], [3]], "broadcast_shapes: shape [-1] (argument 1) has a negative dimension")
g.error("broadcast_shapes/string", "broadcast_shapes", ["a"], "broadcast_shapes: shape 1 must be a list of ints or an int, not string")

# diagflat
g.case("diagflat/1d", "diagflat", torch.diagflat, [rn(3)])
g.case("diagflat/2d", "diagflat", torch.diagflat, [torch.tensor([[1, 2], [3, 4]])])
g.case("diagflat/offset", "diagflat", torch.diagflat, [rn(2), 1])
g.case("diagflat/neg-offset", "diagflat", torch.diagflat, [rn(2, 1, dtype=F64), -2])
g.case("diagflat/0d", "diagflat", torch.diagflat, [torch.tensor(5.0)])
g.case("diagflat/empty-offset", "diagflat", torch.diagflat, [torch.zeros(0), 2])
g.case("diagflat/empty", "diagflat", torch.diagflat, [torch.zeros(0, 3)])
g.case("diagflat/bool", "diagflat", torch.diagflat, [torch.tensor([True, False])])
g.case("diagflat/nan", "diagflat", torch.diagflat, [torch.tensor([NAN, 1.0])])
g.case("diagflat/keywords", "diagflat", lambda input, offset: torch.diagflat(input, offset=offset), [], {"input": rn(2), "offset": -1})
grad_case("diagflat", "diagflat", torch.diagflat, [rn(2, 2), 1])

# combinations
v4 = rn(4)
g.case("combinations", "combinations", torch.combinations, [torch.tensor([1, 2, 3])])
g.case("combinations/r3", "combinations", torch.combinations, [v4, 3])
g.case("combinations/r1", "combinations", torch.combinations, [v4, 1])
g.case("combinations/rn", "combinations", torch.combinations, [v4, 4])
g.case("combinations/replacement", "combinations", torch.combinations, [torch.tensor([1.0, 2.0, 3.0]), 2, True])
g.case("combinations/replacement-r3", "combinations", torch.combinations, [L(5, 6), 3], {"with_replacement": True})
g.case("combinations/r0", "combinations", torch.combinations, [L(1, 2, 3), 0])
g.case("combinations/r0-replacement", "combinations", torch.combinations, [torch.tensor([1.0, 2.0]), 0, True])
g.case("combinations/r-beyond", "combinations", torch.combinations, [L(1, 2, 3), 4])
g.case("combinations/r-beyond-replacement", "combinations", torch.combinations, [L(1, 2), 4, True])
g.case("combinations/empty", "combinations", torch.combinations, [torch.zeros(0, dtype=F64), 2])
g.case("combinations/empty-r1", "combinations", torch.combinations, [torch.zeros(0, dtype=F64), 1])
g.case("combinations/empty-replacement", "combinations", torch.combinations, [torch.zeros(0), 2, True])
g.case("combinations/bool", "combinations", torch.combinations, [torch.tensor([True, False, True])])
g.case("combinations/keywords", "combinations", lambda input, r, with_replacement: torch.combinations(input, r=r, with_replacement=with_replacement), [],
       {"input": v4, "r": 2, "with_replacement": True})
grad_case("combinations", "combinations", torch.combinations, [rn(4), 3])
grad_case("combinations/replacement", "combinations", torch.combinations, [rn(3), 2, True])
g.error("combinations/2d", "combinations", [torch.tensor([[1, 2, 3]])], "combinations: expected a 1-d tensor, got shape [1, 3]")
g.error("combinations/0d", "combinations", [torch.tensor(1.0), 1], "combinations: expected a 1-d tensor, got shape []")
g.error("combinations/negative", "combinations", [L(1, 2, 3), -1], "combinations: r must not be negative, got -1")
g.error("combinations/too-many", "combinations", [torch.zeros(100), 20], "combinations: 100 elements taken 20 at a time make more than")

# chain_matmul (torch warns that it is deprecated)
import warnings
warnings.filterwarnings("ignore", message=".*chain_matmul is deprecated.*")
g.case("chain_matmul/two", "chain_matmul", torch.chain_matmul, [rn(2, 3), rn(3, 4)])
g.case("chain_matmul/four", "chain_matmul", torch.chain_matmul, [rn(5, 2), rn(2, 6), rn(6, 3), rn(3, 1)], rtol=1e-4, atol=1e-5)
g.case("chain_matmul/one", "chain_matmul", torch.chain_matmul, [rn(2, 3)])
g.case("chain_matmul/float64", "chain_matmul", torch.chain_matmul, [rn(2, 3, dtype=F64), rn(3, 3, dtype=F64), rn(3, 1, dtype=F64)])
g.case("chain_matmul/int64", "chain_matmul", torch.chain_matmul, [ri(2, 2), ri(2, 3)])
grad_case("chain_matmul", "chain_matmul", torch.chain_matmul, [rn(2, 3), rn(3, 4), rn(4, 2)])
g.error("chain_matmul/none", "chain_matmul", [], "chain_matmul: expected one or more matrices")
g.error("chain_matmul/vector", "chain_matmul", [rn(3), rn(3, 4)], "chain_matmul: tensor 0 has shape [3]: expected a matrix")
g.error("chain_matmul/dtype", "chain_matmul", [rn(2, 3), rn(3, 4, dtype=F64)], "chain_matmul: tensor 1 is float64 and tensor 0 float32")
g.error("chain_matmul/shapes", "chain_matmul", [rn(2, 3), rn(2, 3)], "chain_matmul: tensor 1 of shape [2, 3] does not follow tensor 0 of shape [2, 3]")

# trapz
g.case("trapz", "trapz", torch.trapz, [torch.tensor([1.0, 2.0, 3.0])])
g.case("trapz/dx", "trapz", torch.trapz, [rn(2, 5)], {"dx": 0.5})
g.case("trapz/x", "trapz", torch.trapz, [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.0, 1.0, 3.0])])
g.case("trapz/dim", "trapz", torch.trapz, [rn(4, 3)], {"dim": 0})
g.case("trapz/int", "trapz", torch.trapz, [L(1, 2, 3)])
g.case("trapz/empty", "trapz", torch.trapz, [torch.zeros(2, 0)])
grad_case("trapz", "trapz", torch.trapz, [rn(3, 4), rn(4)])
grad_case("trapz/dx", "trapz", torch.trapz, [rn(3, 4)], {"dx": 0.25, "dim": 0})
g.error("trapz/x-dx", "trapz", [rn(3), rn(3)], "trapz: pass x or dx, not both", {"dx": 0.5})

# is_tensor, is_floating_point, is_nonzero, isreal
g.case("is_tensor", "is_tensor", torch.is_tensor, [rn(2)])
g.case("is_tensor/list", "is_tensor", torch.is_tensor, [[rn(2)]])
g.case("is_tensor/string", "is_tensor", torch.is_tensor, ["x"])
g.case("is_tensor/none", "is_tensor", torch.is_tensor, [None])
for dt in (F32, F64, torch.float16, torch.bfloat16, I64, I32, BOOL, torch.uint8):
    g.case("is_floating_point/%s" % str(dt)[6:], "is_floating_point", torch.is_floating_point, [torch.zeros(2, dtype=dt)])
g.case("is_nonzero/zero", "is_nonzero", torch.is_nonzero, [torch.tensor([0.0])])
g.case("is_nonzero/neg-zero", "is_nonzero", torch.is_nonzero, [torch.tensor([[-0.0]])])
g.case("is_nonzero/nan", "is_nonzero", torch.is_nonzero, [torch.tensor([NAN])])
g.case("is_nonzero/int", "is_nonzero", torch.is_nonzero, [torch.tensor(3)])
g.case("is_nonzero/bool", "is_nonzero", torch.is_nonzero, [torch.tensor(False)])
g.case("is_nonzero/small", "is_nonzero", torch.is_nonzero, [torch.tensor([1e-30])])
g.error("is_nonzero/empty", "is_nonzero", [torch.zeros(0)], "is_nonzero: the truth value of a tensor with no elements is ambiguous")
g.error("is_nonzero/many", "is_nonzero", [L(1, 2)], "is_nonzero: the truth value of a tensor of more than one element is ambiguous")
g.case("isreal", "isreal", torch.isreal, [torch.tensor([1.0, NAN, float("inf")])])
g.case("isreal/int", "isreal", torch.isreal, [torch.tensor(3)])
g.case("isreal/empty", "isreal", torch.isreal, [torch.zeros(2, 0)])
g.case("isreal/bool", "isreal", torch.isreal, [torch.tensor([[True], [False]])])

# unique_consecutive
uc = L(1, 1, 2, 2, 3, 1, 1, 2)
rows = torch.tensor([[1, 1], [1, 1], [2, 3], [1, 1]])
g.case("unique_consecutive", "unique_consecutive", torch.unique_consecutive, [uc])
g.case("unique_consecutive/inverse", "unique_consecutive", lambda x, return_inverse: list(torch.unique_consecutive(x, return_inverse=return_inverse)), [uc], {"return_inverse": True})
g.case("unique_consecutive/counts", "unique_consecutive", lambda x, return_counts: list(torch.unique_consecutive(x, return_counts=return_counts)), [uc], {"return_counts": True})
g.case("unique_consecutive/all", "unique_consecutive", lambda x, return_inverse, return_counts: list(torch.unique_consecutive(x, return_inverse=return_inverse, return_counts=return_counts)),
       [uc], {"return_inverse": True, "return_counts": True})
g.case("unique_consecutive/2d-flat", "unique_consecutive", lambda x, return_inverse, return_counts: list(torch.unique_consecutive(x, return_inverse=return_inverse, return_counts=return_counts)),
       [rows], {"return_inverse": True, "return_counts": True})
g.case("unique_consecutive/dim0", "unique_consecutive", lambda x, return_inverse, return_counts, dim: list(torch.unique_consecutive(x, return_inverse=return_inverse, return_counts=return_counts, dim=dim)),
       [rows], {"return_inverse": True, "return_counts": True, "dim": 0})
g.case("unique_consecutive/dim-neg", "unique_consecutive", lambda x, dim: torch.unique_consecutive(x, dim=dim), [rows.t()], {"dim": -1})
g.case("unique_consecutive/float", "unique_consecutive", torch.unique_consecutive, [torch.tensor([0.5, 0.5, -0.0, 0.0, NAN, NAN, float("inf"), float("inf")])])
g.case("unique_consecutive/bool", "unique_consecutive", torch.unique_consecutive, [torch.tensor([True, True, False, True])])
g.case("unique_consecutive/0d", "unique_consecutive", lambda x, return_inverse, return_counts: list(torch.unique_consecutive(x, return_inverse=return_inverse, return_counts=return_counts)),
       [torch.tensor(3.0)], {"return_inverse": True, "return_counts": True})
g.case("unique_consecutive/empty", "unique_consecutive", lambda x, return_inverse, return_counts: list(torch.unique_consecutive(x, return_inverse=return_inverse, return_counts=return_counts)),
       [torch.zeros(0)], {"return_inverse": True, "return_counts": True})
g.case("unique_consecutive/empty-dim", "unique_consecutive", lambda x, return_inverse, return_counts, dim: list(torch.unique_consecutive(x, return_inverse=return_inverse, return_counts=return_counts, dim=dim)),
       [torch.zeros(2, 0)], {"return_inverse": True, "return_counts": True, "dim": 1})
g.case("unique_consecutive/keywords", "unique_consecutive", lambda input, return_counts: list(torch.unique_consecutive(input, return_counts=return_counts)), [], {"input": uc, "return_counts": True})
g.error("unique_consecutive/dim", "unique_consecutive", [rows], "unique_consecutive: dim 2 of a tensor of shape [4, 2] is out of range", {"dim": 2})
g.error("unique_consecutive/0d-dim", "unique_consecutive", [torch.tensor(3.0)], "unique_consecutive: dim 0 of a tensor of shape [] is out of range", {"dim": 0})
g.error("unique_consecutive/empty-other", "unique_consecutive", [torch.zeros(2, 0)], "unique_consecutive: dimension 1 of the input of shape [2, 0] is empty and is not dim 0", {"dim": 0})
g.error("unique/empty-other", "unique", [torch.zeros(0, 0)], "unique: dimension 1 of the input of shape [0, 0] is empty and is not dim 0", {"dim": 0})

# slice_scatter (step always passed to torch: see the module doc)
z43 = torch.zeros(4, 3)
g.case("slice_scatter/start", "slice_scatter", slice_scatter, [z43, rn(2, 3)], {"start": 2})
g.case("slice_scatter/dim1", "slice_scatter", slice_scatter, [z43, rn(4, 2)], {"dim": 1, "start": 0, "end": 2})
g.case("slice_scatter/step", "slice_scatter", slice_scatter, [z43, rn(2, 3)], {"start": 1, "end": 4, "step": 2})
g.case("slice_scatter/all", "slice_scatter", slice_scatter, [z43, rn(4, 3)])
g.case("slice_scatter/neg", "slice_scatter", slice_scatter, [z43, rn(2, 3)], {"start": -2})
g.case("slice_scatter/neg-end", "slice_scatter", slice_scatter, [z43, rn(2, 3)], {"start": 1, "end": -1})
g.case("slice_scatter/neg-dim", "slice_scatter", slice_scatter, [rn(2, 3, 4), rn(2, 3, 1)], {"dim": -1, "start": 3})
g.case("slice_scatter/clamped", "slice_scatter", slice_scatter, [z43, rn(2, 3)], {"start": -10, "end": 2})
g.case("slice_scatter/empty-slice", "slice_scatter", slice_scatter, [z43, torch.zeros(0, 3)], {"start": 5, "end": 10})
g.case("slice_scatter/backwards", "slice_scatter", slice_scatter, [z43, torch.zeros(0, 3)], {"start": 3, "end": 1})
g.case("slice_scatter/dtype", "slice_scatter", slice_scatter, [z43, rn(1, 3, dtype=F64)], {"end": 1})
g.case("slice_scatter/int-src", "slice_scatter", slice_scatter, [z43, ri(1, 3)], {"start": 3})
g.case("slice_scatter/float-into-int", "slice_scatter", slice_scatter, [torch.zeros(3, dtype=I64), torch.tensor([1.7, -2.7])], {"start": 1})
g.case("slice_scatter/bool", "slice_scatter", slice_scatter, [torch.zeros(3, dtype=BOOL), torch.tensor([True])], {"start": 2})
g.case("slice_scatter/positional", "slice_scatter", slice_scatter, [rn(3, 4), rn(3, 2), 1, 1, 3, 1])
g.case("slice_scatter/keywords", "slice_scatter", slice_scatter, [], {"input": z43, "src": rn(2, 3), "dim": 0, "start": 0, "end": 4, "step": 2})
grad_case("slice_scatter", "slice_scatter", slice_scatter, [rn(4, 3), rn(4, 2)], {"dim": 1, "start": 1})
grad_case("slice_scatter/step", "slice_scatter", slice_scatter, [rn(5, 2), rn(2, 2)], {"start": 1, "end": 5, "step": 3})
grad_case("slice_scatter/float64-src", "slice_scatter", slice_scatter, [rn(3, 2), rn(1, 2, dtype=F64)], {"start": -1})
g.error("slice_scatter/shape", "slice_scatter", [z43, rn(2, 3)], "slice_scatter: src of shape [2, 3] does not match the shape of the part of input it replaces, [1, 3]", {"start": 3})
g.error("slice_scatter/step0", "slice_scatter", [z43, rn(2, 3)], "slice_scatter: step must be positive, got 0", {"step": 0})
g.error("slice_scatter/step-neg", "slice_scatter", [z43, rn(2, 3)], "slice_scatter: step must be positive, got -1", {"step": -1})
g.error("slice_scatter/dim", "slice_scatter", [z43, rn(2, 3)], "slice_scatter: dim 2 of a tensor of shape [4, 3] is out of range", {"dim": 2})
g.error("slice_scatter/0d", "slice_scatter", [torch.tensor(1.0), torch.tensor(2.0)], "slice_scatter: cannot slice a 0-d tensor")

# select_scatter
g.case("select_scatter/dim0", "select_scatter", torch.select_scatter, [z43, rn(3), 0, -1])
g.case("select_scatter/dim1", "select_scatter", torch.select_scatter, [z43, rn(4), 1, 0])
g.case("select_scatter/3d", "select_scatter", torch.select_scatter, [rn(2, 3, 4), rn(2, 4), -2, 1])
g.case("select_scatter/1d", "select_scatter", torch.select_scatter, [torch.zeros(3), torch.tensor(5.0), 0, 1])
g.case("select_scatter/dtype", "select_scatter", torch.select_scatter, [z43, rn(3, dtype=F64), 0, 0])
g.case("select_scatter/int", "select_scatter", torch.select_scatter, [torch.zeros(2, 2, dtype=I64), L(7, -7), 1, 1])
g.case("select_scatter/keywords", "select_scatter", lambda input, src, dim, index: torch.select_scatter(input, src, dim, index), [],
       {"input": z43, "src": rn(4), "dim": 1, "index": 2})
grad_case("select_scatter", "select_scatter", torch.select_scatter, [rn(3, 4), rn(3), 1, -1])
grad_case("select_scatter/3d", "select_scatter", torch.select_scatter, [rn(2, 3, 2), rn(3, 2), 0, 1])
g.error("select_scatter/range", "select_scatter", [z43, rn(4), 1, 3], "select_scatter: index 3 is out of range for dimension 1 of size 3 (shape [4, 3])")
g.error("select_scatter/shape", "select_scatter", [z43, rn(1), 1, 0], "select_scatter: src of shape [1] does not match the shape of the part of input it replaces, [4]")
g.error("select_scatter/0d-src", "select_scatter", [z43, torch.tensor(2.0), 1, 0], "select_scatter: src of shape [] does not match")
g.error("select_scatter/0d", "select_scatter", [torch.tensor(1.0), torch.tensor(2.0), 0, 0], "select_scatter: cannot select from a 0-d tensor")

# diagonal_scatter
z33 = torch.zeros(3, 3)
g.case("diagonal_scatter", "diagonal_scatter", torch.diagonal_scatter, [z33, rn(3)])
g.case("diagonal_scatter/offset", "diagonal_scatter", torch.diagonal_scatter, [z33, rn(2), 1])
g.case("diagonal_scatter/neg-offset", "diagonal_scatter", torch.diagonal_scatter, [rn(3, 4), rn(2), -1])
g.case("diagonal_scatter/wide", "diagonal_scatter", torch.diagonal_scatter, [rn(2, 4), rn(2), 2])
g.case("diagonal_scatter/3d", "diagonal_scatter", torch.diagonal_scatter, [torch.zeros(2, 3, 4), rn(2, 3), 0, 1, 2])
g.case("diagonal_scatter/3d-dims", "diagonal_scatter", torch.diagonal_scatter, [torch.zeros(2, 3, 4), rn(4, 2), 0, 0, 1])
g.case("diagonal_scatter/3d-swapped", "diagonal_scatter", torch.diagonal_scatter, [rn(2, 3, 4), rn(3, 2), 0, 2, 0])
g.case("diagonal_scatter/neg-dims", "diagonal_scatter", torch.diagonal_scatter, [rn(2, 3, 4), rn(2, 2), 1, -1, -2])
g.case("diagonal_scatter/empty", "diagonal_scatter", torch.diagonal_scatter, [z33, torch.zeros(0), 5])
g.case("diagonal_scatter/empty-batch", "diagonal_scatter", torch.diagonal_scatter, [torch.zeros(0, 2, 2), torch.zeros(0, 2), 0, 1, 2])
g.case("diagonal_scatter/dtype", "diagonal_scatter", torch.diagonal_scatter, [z33, rn(3, dtype=F64)])
g.case("diagonal_scatter/int", "diagonal_scatter", torch.diagonal_scatter, [torch.zeros(2, 2, dtype=I64), L(3, 4)])
g.case("diagonal_scatter/bool", "diagonal_scatter", torch.diagonal_scatter, [torch.zeros(2, 2, dtype=BOOL), torch.tensor([True, False])])
g.case("diagonal_scatter/keywords", "diagonal_scatter", lambda input, src, offset, dim1, dim2: torch.diagonal_scatter(input, src, offset, dim1, dim2), [],
       {"input": rn(3, 2), "src": rn(2), "offset": -1, "dim1": 0, "dim2": 1})
grad_case("diagonal_scatter", "diagonal_scatter", torch.diagonal_scatter, [rn(3, 4), rn(3), 1])
grad_case("diagonal_scatter/3d", "diagonal_scatter", torch.diagonal_scatter, [rn(2, 3, 4), rn(4, 2), 0, 0, 1])
g.error("diagonal_scatter/shape", "diagonal_scatter", [z33, rn(2)], "diagonal_scatter: src of shape [2] does not match the shape of the diagonal it replaces, [3]")
g.error("diagonal_scatter/same-dims", "diagonal_scatter", [z33, rn(3), 0, 0, 0], "diagonal_scatter: dim1 and dim2 are both dimension 0; they must differ")
g.error("diagonal_scatter/1d", "diagonal_scatter", [torch.zeros(3), rn(3)], "diagonal_scatter: the input must have at least 2 dimensions, got shape [3]")
g.error("diagonal_scatter/dim", "diagonal_scatter", [z33, rn(3), 0, 0, 2], "diagonal_scatter: dim1 0 and dim2 2 must be dimensions of a tensor of shape [3, 3]")

# index_put
x34 = rn(3, 4)
g.case("index_put/rows", "index_put", torch.index_put, [x34, [L(0, 2)], torch.tensor(5.0)])
g.case("index_put/elements", "index_put", torch.index_put, [x34, [L(0, 2), L(1, -1)], torch.tensor([5.0, 6.0])])
g.case("index_put/values-bcast", "index_put", torch.index_put, [x34, [L(0, 1)], rn(4)])
g.case("index_put/index-bcast", "index_put", torch.index_put, [x34, [torch.tensor([[0, 1], [2, 0]]), L(0, 1)], rn(2, 2)])
g.case("index_put/2d-index", "index_put", torch.index_put, [x34, [torch.tensor([[0, 1], [2, 0]])], rn(4)])
g.case("index_put/0d-index", "index_put", torch.index_put, [x34, [torch.tensor(1)], rn(4)])
g.case("index_put/neg", "index_put", torch.index_put, [x34, [L(-3), L(-4)], torch.tensor(9.0)])
g.case("index_put/dup", "index_put", torch.index_put, [x34, [L(0, 0), L(1, 1)], torch.tensor([5.0, 6.0])])
g.case("index_put/accumulate", "index_put", torch.index_put, [x34, [L(0, 0, 2), L(1, 1, 3)], torch.tensor([5.0, 6.0, 7.0])], {"accumulate": True})
g.case("index_put/accumulate-rows", "index_put", torch.index_put, [x34, [L(2, 2, 0)], rn(3, 4)], {"accumulate": True})
g.case("index_put/mask", "index_put", torch.index_put, [x34, [torch.tensor([True, False, True])], torch.tensor(5.0)])
g.case("index_put/mask-2d", "index_put", torch.index_put, [x34, [x34 > 0], torch.tensor(0.0)])
g.case("index_put/mask-and-index", "index_put", torch.index_put, [rn(2, 3, 4), [torch.tensor([[True, False, True], [False, False, True]]), L(0, 1, 3)], rn(3)])
g.case("index_put/mask-none", "index_put", torch.index_put, [x34, [torch.zeros(3, dtype=BOOL)], torch.tensor(1.0)])
g.case("index_put/empty-index", "index_put", torch.index_put, [x34, [torch.zeros(0, dtype=I64)], torch.tensor(1.0)])
g.case("index_put/3d-rest", "index_put", torch.index_put, [rn(3, 2, 2), [L(1, 0)], rn(2, 2, 2)])
g.case("index_put/int", "index_put", torch.index_put, [torch.zeros(3, dtype=I64), [L(0, 0, 2)], L(1, 2, 3)], {"accumulate": True})
g.case("index_put/bool", "index_put", torch.index_put, [torch.zeros(3, dtype=BOOL), [L(0, 0)], torch.tensor([True, True])], {"accumulate": True})
g.case("index_put/bool-set", "index_put", torch.index_put, [torch.zeros(3, dtype=BOOL), [L(1)], torch.tensor(True)])
g.case("index_put/float64", "index_put", torch.index_put, [rn(2, 2, dtype=F64), [L(1)], rn(2, dtype=F64)])
g.case("index_put/keywords", "index_put", lambda input, indices, values, accumulate: torch.index_put(input, indices, values, accumulate=accumulate), [],
       {"input": x34, "indices": [L(1)], "values": rn(1, 4), "accumulate": True})
grad_case("index_put", "index_put", torch.index_put, [rn(3, 4), [L(0, 2), L(1, -1)], rn(2)])
grad_case("index_put/dup", "index_put", torch.index_put, [rn(3, 4), [L(0, 0, 2), L(1, 1, 0)], rn(3)])
grad_case("index_put/accumulate-dup", "index_put", torch.index_put, [rn(3, 4), [L(0, 0, 2), L(1, 1, 0)], rn(3)], {"accumulate": True})
grad_case("index_put/rows-bcast", "index_put", torch.index_put, [rn(3, 4), [L(2, 0)], rn(4)])
grad_case("index_put/rows-dup-accumulate", "index_put", torch.index_put, [rn(3, 4), [L(2, 2)], rn(1, 4)], {"accumulate": True})
grad_case("index_put/mask", "index_put", torch.index_put, [rn(3, 4), [torch.tensor([True, False, True])], rn(2, 4)])
g.error("index_put/range", "index_put", [x34, [L(3)], torch.tensor(5.0)], "index_put: index 3 is out of bounds for dimension 0 with size 3")
g.error("index_put/range-neg", "index_put", [x34, [L(-4)], torch.tensor(5.0)], "index_put: index -4 is out of bounds for dimension 0 with size 3")
g.error("index_put/range-dim1", "index_put", [x34, [L(0), L(4)], torch.tensor(5.0)], "index_put: index 4 is out of bounds for dimension 1 with size 4")
g.error("index_put/mask-shape", "index_put", [x34, [torch.tensor([True, False])], torch.tensor(5.0)], "index_put: the mask of shape [2] (index 0) does not match the dimensions it indexes, [3]")
g.error("index_put/dtype", "index_put", [x34, [L(0)], torch.tensor(5.0, dtype=F64)], "index_put: values (float64) must have the input's dtype float32")
g.error("index_put/values-shape", "index_put", [x34, [L(0, 1)], torch.ones(3, 4)], "index_put: values of shape [3, 4] do not broadcast to the indexed shape [2, 4]")
g.error("index_put/values-1d", "index_put", [x34, [L(0, 0)], torch.tensor([5.0, 6.0])], "index_put: values of shape [2] do not broadcast to the indexed shape [2, 4]")
g.error("index_put/index-bcast-error", "index_put", [x34, [L(0, 1), L(0, 1, 2)], torch.ones(1)], "index_put: indices of shapes [2], [3] do not broadcast together")
g.error("index_put/too-many", "index_put", [x34, [L(0), L(0), L(0)], torch.ones(1)], "index_put: too many indices for a tensor of shape [3, 4]: they cover 3 dimensions")
g.error("index_put/int32", "index_put", [x34, [torch.tensor([0], dtype=I32)], torch.ones(1)], "index_put: index 0 must be an int64 tensor or a bool mask")
g.error("index_put/float-index", "index_put", [x34, [torch.tensor([0.0])], torch.ones(1)], "index_put: index 0 must be an int64 tensor or a bool mask")
g.error("index_put/no-indices", "index_put", [x34, [], torch.ones(1)], "index_put: indices must hold at least one tensor")
# torch takes a 0-d bool mask (all or nothing); tref refuses it, as x[...] does
g.error("index_put/0d-mask", "index_put", [torch.zeros(3), [torch.tensor(True)], torch.tensor(5.0)], "index_put: a 0-d bool index (index 0) is not supported")
g.error("index_put/0d-input", "index_put", [torch.tensor(1.0), [L(0)], torch.tensor(2.0)], "index_put: too many indices for a tensor of shape []")

# put
x23 = rn(2, 3)
g.case("put", "put", torch.put, [x23, L(0, -1), torch.tensor([1.0, 2.0])])
g.case("put/2d-source", "put", torch.put, [x23, L(0, 1), torch.tensor([[1.0], [2.0]])])
g.case("put/2d-index", "put", torch.put, [x23, torch.tensor([[0], [4]]), torch.tensor([1.0, 2.0])])
g.case("put/dup", "put", torch.put, [x23, L(0, 0), torch.tensor([1.0, 2.0])])
g.case("put/accumulate", "put", torch.put, [x23, L(0, 0, -1), torch.tensor([1.0, 2.0, 3.0])], {"accumulate": True})
g.case("put/0d-source", "put", torch.put, [x23, L(5), torch.tensor(1.0)])
g.case("put/0d-input", "put", torch.put, [torch.tensor(1.0), L(0), torch.tensor([3.0])])
g.case("put/empty", "put", torch.put, [torch.zeros(0), torch.zeros(0, dtype=I64), torch.zeros(0)])
g.case("put/empty-index", "put", torch.put, [x23, torch.zeros(0, dtype=I64), torch.zeros(0)])
g.case("put/int", "put", torch.put, [torch.zeros(3, dtype=I64), L(0, 0), L(1, 2)], {"accumulate": True})
g.case("put/bool", "put", torch.put, [torch.zeros(3, dtype=BOOL), L(0, 0), torch.tensor([True, True])], {"accumulate": True})
g.case("put/float64", "put", torch.put, [rn(2, 2, dtype=F64), L(3), rn(1, dtype=F64)])
g.case("put/positional", "put", torch.put, [x23, L(1), torch.tensor([4.0]), True])
g.case("put/keywords", "put", lambda input, index, source, accumulate: torch.put(input, index, source, accumulate=accumulate), [],
       {"input": x23, "index": L(2, 2), "source": torch.tensor([1.0, 1.0]), "accumulate": True})
grad_case("put", "put", torch.put, [rn(2, 3), L(0, -1, 4), rn(3)])
grad_case("put/dup", "put", torch.put, [rn(2, 3), L(1, 1, 4), rn(3)])
grad_case("put/accumulate-dup", "put", torch.put, [rn(2, 3), torch.tensor([[1, 1], [4, 0]]), rn(4)], {"accumulate": True})
g.error("put/range", "put", [x23, L(6), torch.tensor([1.0])], "put: index 6 is out of range for a tensor of 6 elements")
g.error("put/range-neg", "put", [x23, L(-7), torch.tensor([1.0])], "put: index -7 is out of range for a tensor of 6 elements")
g.error("put/count", "put", [x23, L(0, 1), torch.tensor([1.0])], "put: index and source must have as many elements, got 2 and 1")
g.error("put/dtype", "put", [x23, L(0), torch.tensor([1.0], dtype=F64)], "put: source (float64) must have the input's dtype float32")
g.error("put/int32", "put", [x23, torch.tensor([0], dtype=I32), torch.tensor([1.0])], "put: the index must be an int64 tensor")
g.error("put/empty-input", "put", [torch.zeros(0), L(0), torch.tensor([1.0])], "put: cannot put elements into an empty tensor")

g.write()
