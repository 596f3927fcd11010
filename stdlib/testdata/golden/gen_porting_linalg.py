"""Goldens of torch's linear-algebra and shape functions of
stdlib/linalg_more.go and stdlib/shape_more.go:
/usr/bin/python3 gen_porting_linalg.py

dot, vdot, mv, addmv, addr, baddbmm, addbmm, kron, matrix_power, cov,
corrcoef, rot90, fliplr, flipud, tensor_split, hsplit, vsplit, dsplit,
column_stack, row_stack, atleast_1d/2d/3d, block_diag, cartesian_prod,
diag_embed, triu_indices and tril_indices: values (broadcasting, dtypes,
keywords under torch's names, NaN inputs where torch ignores or keeps
them), the gradients of the differentiable ones (replayed by vjp_of_sum,
as in gen_grad.py; tensor_split's list is differentiated in
spec/torch_porting_linalg.tr), and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(31)
g = Golden("porting_linalg")
grad_case = g.grad_case

F32, F64, I64 = torch.float32, torch.float64, torch.int64
NAN = float("nan")


def rn(*shape, dtype=F32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def ri(*shape):
    return torch.randint(-4, 5, shape)


def beta0_case(name, fn, ref, args, kwargs):
    """A beta=0 case: input (NaNs) not read. torch 1.13's baddbmm sometimes
    lets the NaNs through anyway (its documentation says it does not), so
    the expected output is torch's with a zero input in its place."""
    out = ref(torch.zeros_like(args[0]), *args[1:], **kwargs)
    g.expect(name, fn, args, kwargs, out)


def tag(dt):
    return str(dt).replace("torch.", "")


# dot, vdot, mv
for dt in (F32, F64):
    g.case("dot/%s" % tag(dt), "dot", torch.dot, [rn(7, dtype=dt), rn(7, dtype=dt)])
    g.case("mv/%s" % tag(dt), "mv", torch.mv, [rn(3, 5, dtype=dt), rn(5, dtype=dt)])
g.case("dot/int64", "dot", torch.dot, [ri(6), ri(6)])
g.case("dot/empty", "dot", torch.dot, [torch.zeros(0), torch.zeros(0)])
g.case("dot/nan", "dot", torch.dot, [torch.tensor([1.0, NAN, 2.0]), torch.tensor([0.0, 1.0, 3.0])])
g.case("dot/keywords", "dot", lambda input, other: torch.dot(input, other), [], {"input": rn(4), "other": rn(4)})
g.case("vdot", "vdot", torch.vdot, [rn(5), rn(5)])
g.case("vdot/int64", "vdot", torch.vdot, [ri(4), ri(4)])
g.case("mv/int64", "mv", torch.mv, [ri(2, 3), ri(3)])
g.case("mv/keywords", "mv", lambda input, vec: torch.mv(input, vec), [], {"input": rn(2, 4), "vec": rn(4)})
grad_case("dot", "dot", torch.dot, [rn(6), rn(6)])
grad_case("vdot", "vdot", torch.vdot, [rn(6), rn(6)])
grad_case("mv", "mv", torch.mv, [rn(3, 4), rn(4)])
g.error("dot/rank", "dot", [rn(2, 2), rn(2)], "dot: expected two 1-d tensors, got shapes [2, 2] and [2]")
g.error("dot/length", "dot", [rn(2), rn(3)], "dot: the vectors have 2 and 3 elements")
g.error("dot/dtype", "dot", [rn(2), rn(2, dtype=F64)], "dot: expected both vectors to have the same dtype, got float32 and float64")
g.error("dot/bool", "dot", [torch.tensor([True]), torch.tensor([True])], "dot:")
g.error("vdot/rank", "vdot", [rn(2), torch.tensor(1.0)], "vdot: expected two 1-d tensors")
g.error("mv/rank", "mv", [rn(3), rn(3)], "mv: expected a matrix and a vector, got shapes [3] and [3]")
g.error("mv/align", "mv", [rn(2, 3), rn(2)], "mv: a matrix of shape [2, 3] and a vector of shape [2] do not align (3 != 2)")
g.error("mv/dtype", "mv", [rn(2, 3), rn(3, dtype=F64)], "mv: the matrix is float32 and the vector float64")

# addmv, addr, baddbmm, addbmm
for dt in (F32, F64):
    t = tag(dt)
    g.case("addmv/%s" % t, "addmv", torch.addmv, [rn(2, dtype=dt), rn(2, 3, dtype=dt), rn(3, dtype=dt)])
    g.case("addmv/%s/scaled" % t, "addmv", torch.addmv, [rn(1, dtype=dt), rn(4, 3, dtype=dt), rn(3, dtype=dt)], {"beta": 0.5, "alpha": -2.0})
    beta0_case("addmv/%s/beta0" % t, "addmv", torch.addmv, [torch.full((2,), NAN, dtype=dt), rn(2, 3, dtype=dt), rn(3, dtype=dt)], {"beta": 0.0})
    g.case("addr/%s" % t, "addr", torch.addr, [rn(2, 3, dtype=dt), rn(2, dtype=dt), rn(3, dtype=dt)])
    g.case("addr/%s/scaled" % t, "addr", torch.addr, [rn(3, dtype=dt), rn(2, dtype=dt), rn(3, dtype=dt)], {"beta": 2.0, "alpha": 0.25})
    beta0_case("addr/%s/beta0" % t, "addr", torch.addr, [torch.full((2, 1), NAN, dtype=dt), rn(2, dtype=dt), rn(3, dtype=dt)], {"beta": 0.0})
    g.case("baddbmm/%s" % t, "baddbmm", torch.baddbmm, [rn(2, 3, 4, dtype=dt), rn(2, 3, 5, dtype=dt), rn(2, 5, 4, dtype=dt)])
    g.case("baddbmm/%s/bcast-scaled" % t, "baddbmm", torch.baddbmm, [rn(3, 1, dtype=dt), rn(2, 3, 5, dtype=dt), rn(2, 5, 4, dtype=dt)], {"beta": -1.5, "alpha": 0.5})
    beta0_case("baddbmm/%s/beta0" % t, "baddbmm", torch.baddbmm, [torch.full((4,), NAN, dtype=dt), rn(2, 3, 5, dtype=dt), rn(2, 5, 4, dtype=dt)], {"beta": 0.0})
    g.case("addbmm/%s" % t, "addbmm", torch.addbmm, [rn(3, 4, dtype=dt), rn(5, 3, 2, dtype=dt), rn(5, 2, 4, dtype=dt)])
    g.case("addbmm/%s/bcast-scaled" % t, "addbmm", torch.addbmm, [rn(4, dtype=dt), rn(2, 3, 6, dtype=dt), rn(2, 6, 4, dtype=dt)], {"beta": 0.5, "alpha": 3.0})
    beta0_case("addbmm/%s/beta0" % t, "addbmm", torch.addbmm, [torch.full((3, 4), NAN, dtype=dt), rn(2, 3, 6, dtype=dt), rn(2, 6, 4, dtype=dt)], {"beta": 0.0})
g.case("addmv/0d-input", "addmv", torch.addmv, [torch.tensor(1.5), rn(2, 3), rn(3)])
g.case("addmv/float64-input", "addmv", torch.addmv, [rn(2, dtype=F64), rn(2, 3), rn(3)])
g.case("addmv/int64", "addmv", torch.addmv, [ri(2), ri(2, 3), ri(3)], {"beta": 2, "alpha": 3})
g.case("addmv/keywords", "addmv", lambda input, mat, vec, beta, alpha: torch.addmv(input, mat, vec, beta=beta, alpha=alpha), [],
       {"input": rn(2), "mat": rn(2, 3), "vec": rn(3), "beta": 0.5, "alpha": 2.0})
g.case("addr/promote", "addr", torch.addr, [rn(2, 3), rn(2), rn(3, dtype=F64)])
g.case("addr/int-input", "addr", torch.addr, [ri(2, 3), rn(2), rn(3)])
g.case("addr/int64", "addr", torch.addr, [ri(2, 3), ri(2), ri(3)], {"beta": 2, "alpha": -1})
beta0_case("addr/beta0-promote", "addr", torch.addr, [torch.full((2, 3), NAN, dtype=F64), rn(2), rn(3)], {"beta": 0.0})
g.case("addr/keywords", "addr", lambda input, vec1, vec2, alpha: torch.addr(input, vec1, vec2, alpha=alpha), [],
       {"input": rn(2, 2), "vec1": rn(2), "vec2": rn(2), "alpha": 2.0})
g.case("baddbmm/float64-input", "baddbmm", torch.baddbmm, [rn(2, 3, 4, dtype=F64), rn(2, 3, 5), rn(2, 5, 4)])
g.case("baddbmm/int64", "baddbmm", torch.baddbmm, [ri(1, 2), ri(2, 2, 3), ri(2, 3, 2)], {"alpha": 2})
g.case("baddbmm/keywords", "baddbmm", lambda input, batch1, batch2: torch.baddbmm(input, batch1, batch2), [],
       {"input": rn(1), "batch1": rn(2, 2, 3), "batch2": rn(2, 3, 2)})
g.case("addbmm/empty-batch", "addbmm", torch.addbmm, [rn(2, 3), torch.zeros(0, 2, 4), torch.zeros(0, 4, 3)], {"beta": 2.0})
g.case("addbmm/int64", "addbmm", torch.addbmm, [ri(2, 2), ri(3, 2, 4), ri(3, 4, 2)], {"beta": -1})
grad_case("addmv", "addmv", torch.addmv, [rn(1), rn(3, 4), rn(4)], {"beta": 0.5, "alpha": -1.5})
grad_case("addmv/beta0-nan", "addmv", torch.addmv, [torch.full((3,), NAN), rn(3, 4), rn(4)], {"beta": 0.0})
grad_case("addr", "addr", torch.addr, [rn(3, 1), rn(3), rn(4)], {"beta": 2.0, "alpha": 0.5})
grad_case("addr/beta0-nan", "addr", torch.addr, [torch.full((3, 4), NAN), rn(3), rn(4)], {"beta": 0.0})
grad_case("baddbmm", "baddbmm", torch.baddbmm, [rn(3, 4), rn(2, 3, 5), rn(2, 5, 4)], {"beta": -0.5, "alpha": 2.0})
grad_case("addbmm", "addbmm", torch.addbmm, [rn(3, 4), rn(2, 3, 5), rn(2, 5, 4)], {"beta": 1.5, "alpha": 0.75})
grad_case("addbmm/beta0-nan", "addbmm", torch.addbmm, [torch.full((3, 4), NAN), rn(2, 3, 5), rn(2, 5, 4)], {"beta": 0.0})
g.error("addmv/shape", "addmv", [rn(3), rn(2, 3), rn(3)], "addmv: input of shape [3] does not broadcast to the product's shape [2]")
g.error("addmv/input-rank", "addmv", [rn(2, 2), rn(2, 3), rn(3)], "addmv: input of shape [2, 2] does not broadcast")
g.error("addmv/align", "addmv", [rn(2), rn(2, 3), rn(2)], "addmv: a matrix of shape [2, 3] and a vector of shape [2] do not align")
g.error("addmv/dtype", "addmv", [rn(2), rn(2, 3), rn(3, dtype=F64)], "addmv: the matrix is float32 and the vector float64")
g.error("addr/rank", "addr", [rn(2, 3), rn(2, 1), rn(3)], "addr: vec1 and vec2 must be 1-d, got shapes [2, 1] and [3]")
g.error("addr/shape", "addr", [rn(2, 3, 1), rn(2), rn(3)], "addr: input of shape [2, 3, 1] does not broadcast")
g.error("addr/int-beta", "addr", [ri(2, 2), ri(2), ri(2)], "addr: for integer operands, beta must be an integer, got 2.5", {"beta": 2.5})
g.error("addr/int-alpha", "addr", [ri(2, 2), ri(2), ri(2)], "addr: for integer operands, alpha must be an integer", {"alpha": 0.5})
g.error("baddbmm/rank", "baddbmm", [rn(3), rn(2, 4), rn(2, 4, 3)], "baddbmm: batch1 and batch2 must be 3-d, got shapes [2, 4] and [2, 4, 3]")
g.error("baddbmm/batches", "baddbmm", [rn(3), rn(2, 2, 4), rn(3, 4, 3)], "baddbmm: batch1 and batch2 must have the same number of batches, got 2 and 3")
g.error("baddbmm/align", "baddbmm", [rn(3), rn(2, 2, 4), rn(2, 3, 3)], "baddbmm: batch1 [2, 2, 4] and batch2 [2, 3, 3] do not align (4 != 3)")
g.error("baddbmm/dtype", "baddbmm", [rn(3), rn(2, 2, 4), rn(2, 4, 3, dtype=F64)], "baddbmm: batch1 is float32 and batch2 float64")
g.error("baddbmm/shape", "baddbmm", [rn(2, 2, 2, 3), rn(2, 2, 4), rn(2, 4, 3)], "baddbmm: input of shape [2, 2, 2, 3] does not broadcast")
g.error("addbmm/dtype", "addbmm", [rn(2, 3, dtype=F64), rn(2, 2, 4), rn(2, 4, 3)], "addbmm: input is float64 and the batches float32")
g.error("addbmm/shape", "addbmm", [rn(3, 3), rn(2, 2, 4), rn(2, 4, 3)], "addbmm: input of shape [3, 3] does not broadcast to the product's shape [2, 3]")
g.error("addbmm/batches", "addbmm", [rn(2, 2), rn(1, 2, 3), rn(2, 3, 2)], "addbmm: batch1 and batch2 must have the same number of batches")

# kron
g.case("kron/2d", "kron", torch.kron, [rn(2, 3), rn(4, 2)])
g.case("kron/ranks", "kron", torch.kron, [rn(2, 3), rn(4, 1, 2)])
g.case("kron/1d", "kron", torch.kron, [torch.tensor([1.0, NAN, 2.0]), torch.tensor([0.0, 1.0])])
g.case("kron/0d", "kron", torch.kron, [torch.tensor(2.0), rn(2, 3)])
g.case("kron/0d-0d", "kron", torch.kron, [torch.tensor(2.0), torch.tensor(-3.0)])
g.case("kron/float64", "kron", torch.kron, [rn(2, 2, dtype=F64), rn(3, dtype=F64)])
g.case("kron/int-float", "kron", torch.kron, [ri(2, 3), rn(4, 1, 2, dtype=F64)])
g.case("kron/int64", "kron", torch.kron, [ri(2, 2), ri(2, 3)])
g.case("kron/bool", "kron", torch.kron, [torch.tensor([True, False]), torch.tensor([[True], [True]])])
g.case("kron/keywords", "kron", lambda input, other: torch.kron(input, other), [], {"input": rn(2), "other": rn(2, 2)})
grad_case("kron", "kron", torch.kron, [rn(2, 3), rn(3, 1, 2)])
grad_case("kron/0d", "kron", torch.kron, [torch.tensor(1.5), rn(2, 2)])

# matrix_power
wellc = torch.eye(3, dtype=F64) * 2 + rn(3, 3, dtype=F64) * 0.3
for n in (0, 1, 2, 3, 4, 5, 6, 7, 13):
    g.case("matrix_power/%d" % n, "matrix_power", torch.matrix_power, [rn(3, 3) * 0.6, n], rtol=1e-4, atol=1e-5)
g.case("matrix_power/batch", "matrix_power", torch.matrix_power, [rn(2, 4, 3, 3, dtype=F64), 9])
g.case("matrix_power/int64", "matrix_power", torch.matrix_power, [ri(2, 2), 5])
g.case("matrix_power/bool0", "matrix_power", torch.matrix_power, [torch.tensor([[True, True], [False, True]]), 0])
g.case("matrix_power/inverse", "matrix_power", torch.matrix_power, [wellc, -1])
g.case("matrix_power/inverse3", "matrix_power", torch.matrix_power, [torch.stack([wellc, wellc.T]), -3])
g.case("matrix_power/empty", "matrix_power", torch.matrix_power, [torch.zeros(0, 2, 2), -1])
g.case("matrix_power/keywords", "matrix_power", lambda input, n: torch.matrix_power(input, n), [], {"input": rn(2, 2), "n": 6})
for n in (0, 2, 3, 6, -2):
    grad_case("matrix_power/%d" % n, "matrix_power", torch.matrix_power, [(wellc if n < 0 else rn(3, 3) * 0.6).float(), n], atol=1e-4, rtol=1e-4)
grad_case("matrix_power/batch", "matrix_power", torch.matrix_power, [rn(2, 2, 2), 5], atol=1e-4, rtol=1e-4)
g.error("matrix_power/square", "matrix_power", [rn(2, 3), 2], "matrix_power: expected square matrices [..., k, k], got shape [2, 3]")
g.error("matrix_power/rank", "matrix_power", [rn(3), 2], "matrix_power: expected square matrices")
g.error("matrix_power/int-inverse", "matrix_power", [ri(2, 2), -1], "matrix_power: a negative n inverts the input, which must be floating point, got int64")
g.error("matrix_power/bool", "matrix_power", [torch.tensor([[True]]), 2], "matrix_power:")
g.error("matrix_power/n-type", "matrix_power", [rn(2, 2), 1.5], "matrix_power: argument \"n\" must be an int")

# cov, corrcoef
obs = rn(3, 7)
fw = torch.tensor([1, 2, 0, 3, 1, 1, 4])
aw = torch.rand(7, dtype=torch.float64).float() + 0.1
g.case("cov", "cov", torch.cov, [obs])
g.case("cov/float64", "cov", torch.cov, [rn(4, 5, dtype=F64)])
g.case("cov/1d", "cov", torch.cov, [rn(6)])
g.case("cov/0d", "cov", torch.cov, [torch.tensor(2.0)])
g.case("cov/one-variable", "cov", torch.cov, [rn(1, 5)])
g.case("cov/int64", "cov", torch.cov, [ri(2, 5)])
g.case("cov/nan", "cov", torch.cov, [torch.tensor([[1.0, NAN, 2.0], [0.0, 1.0, 3.0]])])
for corr in (0, 2, 7, 9):
    g.case("cov/correction%d" % corr, "cov", torch.cov, [obs], {"correction": corr})
g.case("cov/fweights", "cov", torch.cov, [obs], {"fweights": fw})
g.case("cov/aweights", "cov", torch.cov, [obs], {"aweights": aw})
g.case("cov/both", "cov", torch.cov, [obs], {"fweights": fw, "aweights": aw})
g.case("cov/both-correction0", "cov", torch.cov, [obs], {"fweights": fw, "aweights": aw, "correction": 0})
g.case("cov/both-correction3", "cov", torch.cov, [obs], {"fweights": fw, "aweights": aw, "correction": 3})
g.case("cov/fweights-correction0", "cov", torch.cov, [obs], {"fweights": fw, "correction": 0})
g.case("cov/aweights-float64", "cov", torch.cov, [obs], {"aweights": aw.double()})
g.case("cov/int-fweights", "cov", torch.cov, [ri(2, 7)], {"fweights": fw})
g.case("cov/int-aweights", "cov", torch.cov, [ri(2, 7)], {"aweights": aw})
g.case("cov/1obs-aweights", "cov", torch.cov, [rn(2, 1)], {"aweights": torch.tensor([0.5])})
g.case("cov/1obs-fweights", "cov", torch.cov, [rn(2, 1)], {"fweights": torch.tensor([2])})
g.case("cov/fweights-dof", "cov", torch.cov, [rn(2, 3)], {"fweights": torch.tensor([1, 0, 0])})
g.case("cov/no-observations", "cov", torch.cov, [torch.zeros(2, 0)])
g.case("cov/keywords", "cov", lambda input, correction, aweights: torch.cov(input, correction=correction, aweights=aweights), [],
       {"input": obs, "correction": 0, "aweights": aw})
g.case("corrcoef", "corrcoef", torch.corrcoef, [obs])
g.case("corrcoef/float64", "corrcoef", torch.corrcoef, [rn(4, 6, dtype=F64)])
g.case("corrcoef/1d", "corrcoef", torch.corrcoef, [rn(5)])
g.case("corrcoef/int64", "corrcoef", torch.corrcoef, [ri(3, 6)])
g.case("corrcoef/constant-row", "corrcoef", torch.corrcoef, [torch.tensor([[1.0, 1.0, 1.0], [3.0, 1.0, 0.0]])])
g.case("corrcoef/collinear", "corrcoef", torch.corrcoef, [torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], [4.0, 3.0, 2.0, 1.0]])])
g.case("corrcoef/keywords", "corrcoef", lambda input: torch.corrcoef(input), [], {"input": rn(2, 4)})
grad_case("cov", "cov", torch.cov, [rn(3, 6)])
grad_case("cov/1d", "cov", torch.cov, [rn(6)])
grad_case("cov/correction0", "cov", torch.cov, [rn(2, 5)], {"correction": 0})
# torch's correction, fweights and aweights are keyword-only; tref also
# takes them positionally, in that order, so that the weights are
# differentiated here.
cov_pos = lambda x, correction, fweights, aweights: torch.cov(x, correction=correction, fweights=fweights, aweights=aweights)
grad_case("cov/fweights", "cov", cov_pos, [rn(3, 7), 1, fw, None])
grad_case("cov/aweights", "cov", cov_pos, [rn(3, 7), 1, None, aw])
grad_case("cov/both", "cov", cov_pos, [rn(2, 7), 2, fw, aw])
grad_case("corrcoef", "corrcoef", torch.corrcoef, [rn(3, 6)], atol=1e-4)
grad_case("corrcoef/1d", "corrcoef", torch.corrcoef, [rn(6)])
g.error("cov/rank", "cov", [rn(2, 2, 2)], "cov: expected input to have two or fewer dimensions, got shape [2, 2, 2]")
g.error("cov/bool", "cov", [torch.tensor([True, False])], "cov: bool inputs are not supported")
g.error("cov/fweights-dtype", "cov", [obs], "cov: expected fweights to have an integer dtype, got float32", {"fweights": aw})
g.error("cov/aweights-dtype", "cov", [obs], "cov: expected aweights to have a floating-point dtype, got int64", {"aweights": fw})
g.error("cov/fweights-rank", "cov", [obs], "cov: expected fweights to have one or fewer dimensions, got shape [1, 7]", {"fweights": fw.reshape(1, 7)})
g.error("cov/fweights-numel", "cov", [obs], "cov: expected fweights to have as many elements as there are observations in the input, got 3 != 7", {"fweights": fw[:3]})
g.error("cov/fweights-negative", "cov", [obs], "cov: fweights cannot be negative", {"fweights": -fw})
g.error("cov/aweights-negative", "cov", [obs], "cov: aweights cannot be negative", {"aweights": aw - 0.5})
g.error("cov/zero-weights", "cov", [obs], "cov: the weights sum to zero", {"aweights": torch.zeros(7)})
g.error("cov/zero-products", "cov", [rn(2, 2)], "cov: the weights sum to zero", {"fweights": torch.tensor([1, 0]), "aweights": torch.tensor([0.0, 1.0])})
g.error("cov/correction-type", "cov", [obs], "cov: argument \"correction\" must be an int", {"correction": 1.5})
g.error("corrcoef/rank", "corrcoef", [rn(2, 2, 2)], "corrcoef: expected input to have two or fewer dimensions")
g.error("corrcoef/bool", "corrcoef", [torch.tensor([[True, False]])], "corrcoef: bool inputs are not supported")

# rot90, fliplr, flipud
m = torch.arange(6).reshape(2, 3)
cube = torch.arange(24).reshape(2, 3, 4)
for k in (0, 1, 2, 3, 4, -1, -2, 5, -7):
    g.case("rot90/k%d" % k, "rot90", torch.rot90, [m, k])
g.case("rot90/default", "rot90", torch.rot90, [m])
g.case("rot90/dims12", "rot90", torch.rot90, [cube, 1, [1, 2]])
g.case("rot90/dims20", "rot90", torch.rot90, [cube, 3, [2, 0]])
g.case("rot90/negative-dims", "rot90", torch.rot90, [cube, 1, [-1, -3]])
g.case("rot90/keywords", "rot90", lambda input, k, dims: torch.rot90(input, k, dims), [], {"input": cube, "k": 2, "dims": [0, 2]})
g.case("rot90/nan", "rot90", torch.rot90, [torch.tensor([[NAN, 1.0], [2.0, 3.0]]), 1])
g.case("fliplr", "fliplr", torch.fliplr, [cube])
g.case("flipud", "flipud", torch.flipud, [cube])
g.case("flipud/1d", "flipud", torch.flipud, [torch.tensor([True, False, False])])
g.case("fliplr/keywords", "fliplr", lambda input: torch.fliplr(input), [], {"input": m})
grad_case("rot90", "rot90", torch.rot90, [rn(2, 3, 4), 1, [2, 1]])
grad_case("rot90/k3", "rot90", torch.rot90, [rn(3, 4), 3])
grad_case("fliplr", "fliplr", torch.fliplr, [rn(2, 3)])
grad_case("flipud", "flipud", torch.flipud, [rn(2, 3)])
g.error("rot90/ndims", "rot90", [m, 1, [0]], "rot90: dims must name 2 dimensions, got [0]")
g.error("rot90/rank", "rot90", [torch.arange(3)], "rot90: the input must have at least 2 dimensions, got shape [3]")
g.error("rot90/same", "rot90", [m, 1, [0, 0]], "rot90: the rotation dims must differ, got 0 and 0")
g.error("rot90/same-wrapped", "rot90", [m, 1, [0, -2]], "rot90: the rotation dims must differ, got 0 and -2")
g.error("rot90/wrapped-range", "rot90", [cube, 1, [0, 3]], "rot90: the rotation dims must differ, got 0 and 3")
g.error("rot90/range", "rot90", [cube, 1, [0, 4]], "rot90: dims [0, 4] are out of range for a tensor of shape [2, 3, 4]")
g.error("fliplr/rank", "fliplr", [torch.arange(3)], "fliplr: the input must have at least 2 dimensions, got shape [3]")
g.error("flipud/rank", "flipud", [torch.tensor(1.0)], "flipud: the input must have at least 1 dimensions, got shape []")

# tensor_split, hsplit, vsplit, dsplit
v7 = torch.arange(7)
g.case("tensor_split/sections", "tensor_split", lambda x, s: list(torch.tensor_split(x, s)), [v7, 3])
g.case("tensor_split/more-sections", "tensor_split", lambda x, s: list(torch.tensor_split(x, s)), [v7, 9])
g.case("tensor_split/indices", "tensor_split", lambda x, s: list(torch.tensor_split(x, s)), [v7, [1, 5, 3, -2, 10]])
g.case("tensor_split/no-indices", "tensor_split", lambda x, s: list(torch.tensor_split(x, s)), [v7, []])
g.case("tensor_split/dim", "tensor_split", lambda x, s, dim: list(torch.tensor_split(x, s, dim=dim)), [cube, 3], {"dim": -1})
g.case("tensor_split/indices-dim", "tensor_split", lambda x, s, dim: list(torch.tensor_split(x, s, dim)), [cube, [1, 2], 1])
g.case("tensor_split/tensor-indices", "tensor_split", lambda x, s: list(torch.tensor_split(x, s)), [v7, torch.tensor([2, 4])])
g.case("tensor_split/tensor-sections", "tensor_split", lambda x, s: list(torch.tensor_split(x, s)), [v7, torch.tensor(2)])
g.case("tensor_split/empty-dim", "tensor_split", lambda x, s: list(torch.tensor_split(x, s)), [torch.zeros(0, 2), 2])
g.case("tensor_split/keywords", "tensor_split", lambda input, indices_or_sections, dim: list(torch.tensor_split(input, indices_or_sections, dim)), [],
       {"input": cube, "indices_or_sections": 2, "dim": 0})
g.case("hsplit/1d", "hsplit", lambda x, s: list(torch.hsplit(x, s)), [torch.arange(8), 4])
g.case("hsplit/2d", "hsplit", lambda x, s: list(torch.hsplit(x, s)), [cube, 3])
g.case("hsplit/indices", "hsplit", lambda x, s: list(torch.hsplit(x, s)), [cube, [1, -1]])
g.case("vsplit", "vsplit", lambda x, s: list(torch.vsplit(x, s)), [cube, 2])
g.case("vsplit/indices", "vsplit", lambda x, s: list(torch.vsplit(x, s)), [torch.arange(8.0).reshape(4, 2), [1, 3]])
g.case("dsplit", "dsplit", lambda x, s: list(torch.dsplit(x, s)), [cube, 2])
g.case("dsplit/indices", "dsplit", lambda x, s: list(torch.dsplit(x, s)), [cube, [3]])
g.error("tensor_split/0d", "tensor_split", [torch.tensor(1.0), 2], "tensor_split: expected a tensor with at least 1 dimension, got a 0-d tensor")
g.error("tensor_split/zero", "tensor_split", [v7, 0], "tensor_split: the number of sections must be positive, got 0")
g.error("tensor_split/dim-range", "tensor_split", [v7, 2, 1], "tensor_split: dim 1 of a tensor of shape [7] is out of range")
g.error("tensor_split/float-tensor", "tensor_split", [v7, torch.tensor([2.0])], "tensor_split: a tensor indices_or_sections must be int64, got float32")
g.error("tensor_split/2d-tensor", "tensor_split", [v7, torch.tensor([[2]])], "tensor_split: a tensor indices_or_sections must be 0-d or 1-d, got shape [1, 1]")
g.error("tensor_split/type", "tensor_split", [v7, "a"], "tensor_split: indices_or_sections must be an int, a list of ints or an int64 tensor")
g.error("tensor_split/huge", "tensor_split", [v7, 1 << 50], "tensor_split: 1125899906842624 pieces are too many")
g.error("hsplit/huge", "hsplit", [torch.zeros(0), 1 << 50], "hsplit: 1125899906842624 pieces are too many")
g.error("hsplit/indivisible", "hsplit", [v7, 2], "hsplit: dimension 0 of size 7 does not split into 2 equal sections")
g.error("hsplit/zero", "hsplit", [torch.arange(8), 0], "hsplit: dimension 0 of size 8 does not split into 0 equal sections")
g.error("hsplit/0d", "hsplit", [torch.tensor(1), 2], "hsplit: the input must have at least 1 dimensions, got shape []")
g.error("vsplit/rank", "vsplit", [torch.arange(8), 2], "vsplit: the input must have at least 2 dimensions, got shape [8]")
g.error("dsplit/rank", "dsplit", [torch.ones(2, 2), 2], "dsplit: the input must have at least 3 dimensions, got shape [2, 2]")

# column_stack, row_stack
g.case("column_stack", "column_stack", lambda ts: torch.column_stack(ts), [[torch.tensor([1, 2]), torch.ones(2, 3, dtype=I64)]])
g.case("column_stack/0d", "column_stack", lambda ts: torch.column_stack(ts), [[torch.tensor(1), torch.tensor([[2, 3]])]])
g.case("column_stack/1d", "column_stack", lambda ts: torch.column_stack(ts), [[rn(3), rn(3), rn(3)]])
g.case("column_stack/3d", "column_stack", lambda ts: torch.column_stack(ts), [[rn(2, 1, 2), rn(2, 3, 2)]])
g.case("column_stack/keywords", "column_stack", lambda tensors: torch.column_stack(tensors), [], {"tensors": [rn(2), rn(2, 2)]})
g.case("row_stack", "row_stack", lambda ts: torch.row_stack(ts), [[torch.tensor([1.0, 2.0]), torch.ones(2, 2)]])
g.case("row_stack/0d", "row_stack", lambda ts: torch.row_stack(ts), [[torch.tensor(1.0), torch.tensor(2.0)]])
g.error("column_stack/empty", "column_stack", [[]], "column_stack: expects a non-empty list of tensors")
g.error("column_stack/rows", "column_stack", [[rn(2), rn(3)]], "column_stack:")
g.error("row_stack/empty", "row_stack", [[]], "row_stack: expects a non-empty list of tensors")

# atleast_1d, atleast_2d, atleast_3d
shapes = [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 1)]
for name, fn in (("atleast_1d", torch.atleast_1d), ("atleast_2d", torch.atleast_2d), ("atleast_3d", torch.atleast_3d)):
    for s in shapes:
        g.case("%s/%dd" % (name, len(s)), name, fn, [rn(*s)])
        grad_case("%s/%dd" % (name, len(s)), name, fn, [rn(*s)])
    g.case("%s/list" % name, name, lambda ts, fn=fn: list(fn(ts)), [[torch.tensor(1), rn(2), rn(2, 2)]])
    g.case("%s/several" % name, name, lambda *ts, fn=fn: list(fn(*ts)), [torch.tensor(True), torch.arange(3)])
    g.case("%s/empty-list" % name, name, lambda ts, fn=fn: list(fn(ts)), [[]])
    g.error("%s/type" % name, name, [3], "%s: argument 1 must be a tensor, not" % name)

# block_diag, cartesian_prod, diag_embed
g.case("block_diag", "block_diag", torch.block_diag, [torch.tensor(1), torch.tensor([2.0, 3.0]), torch.ones(2, 2, dtype=I64)])
g.case("block_diag/one", "block_diag", torch.block_diag, [rn(2, 3)])
g.case("block_diag/none", "block_diag", torch.block_diag, [])
g.case("block_diag/empty-blocks", "block_diag", torch.block_diag, [torch.ones(0, 2), torch.ones(2, 0), rn(1, 1)])
g.case("block_diag/bool", "block_diag", torch.block_diag, [torch.tensor([True]), torch.tensor([[False, True]])])
g.case("block_diag/nan", "block_diag", torch.block_diag, [torch.tensor([[NAN]]), torch.tensor([[float("inf"), 1.0]])])
g.case("block_diag/float64", "block_diag", torch.block_diag, [rn(2, 2), rn(1, 3, dtype=F64)])
grad_case("block_diag", "block_diag", torch.block_diag, [rn(2, 3), torch.tensor(1.5), rn(2), rn(1, 1)])
g.error("block_diag/rank", "block_diag", [rn(2), rn(2, 2, 2)], "block_diag: the tensors must have 2 or fewer dimensions, tensor 1 has shape [2, 2, 2]")
g.error("block_diag/type", "block_diag", [rn(2), 3], "block_diag: argument 2 must be a tensor")
g.case("cartesian_prod", "cartesian_prod", torch.cartesian_prod, [torch.tensor([1, 2]), torch.tensor([3, 4, 5])])
g.case("cartesian_prod/three", "cartesian_prod", torch.cartesian_prod, [rn(2), rn(3), rn(2)])
g.case("cartesian_prod/one", "cartesian_prod", torch.cartesian_prod, [rn(4)])
g.case("cartesian_prod/empty", "cartesian_prod", torch.cartesian_prod, [torch.tensor([1, 2]), torch.tensor([], dtype=I64)])
g.case("cartesian_prod/bool", "cartesian_prod", torch.cartesian_prod, [torch.tensor([True, False]), torch.tensor([False])])
grad_case("cartesian_prod", "cartesian_prod", torch.cartesian_prod, [rn(3), rn(2), rn(2)])
grad_case("cartesian_prod/one", "cartesian_prod", torch.cartesian_prod, [rn(3)])
g.error("cartesian_prod/none", "cartesian_prod", [], "cartesian_prod: expects at least one tensor")
g.error("cartesian_prod/rank", "cartesian_prod", [torch.tensor(1), torch.tensor([3, 4])], "cartesian_prod: the tensors must be 1-d, tensor 0 has shape []")
g.error("cartesian_prod/dtype", "cartesian_prod", [torch.tensor([1, 2]), torch.tensor([3.0])], "cartesian_prod: the tensors must have one dtype, got int64 and float32")
vals = torch.tensor([1.0, NAN, -2.0])
for off in (0, 1, 2, -1, -3):
    g.case("diag_embed/offset%d" % off, "diag_embed", torch.diag_embed, [vals, off])
g.case("diag_embed/batch", "diag_embed", torch.diag_embed, [rn(2, 3, 4)])
g.case("diag_embed/dims", "diag_embed", torch.diag_embed, [rn(2, 3), 1, 0, 2])
g.case("diag_embed/dims-swapped", "diag_embed", torch.diag_embed, [rn(2, 3), -1, 2, 0])
g.case("diag_embed/dims-middle", "diag_embed", torch.diag_embed, [rn(2, 3, 2), 2, 1, -1])
g.case("diag_embed/int64", "diag_embed", torch.diag_embed, [ri(2, 3), -1])
g.case("diag_embed/bool", "diag_embed", torch.diag_embed, [torch.tensor([True, False])])
g.case("diag_embed/keywords", "diag_embed", lambda input, offset, dim1, dim2: torch.diag_embed(input, offset, dim1, dim2), [],
       {"input": rn(3, 2), "offset": 1, "dim1": 0, "dim2": 1})
grad_case("diag_embed", "diag_embed", torch.diag_embed, [rn(2, 3)])
grad_case("diag_embed/offset-dims", "diag_embed", torch.diag_embed, [rn(2, 3), -2, 2, 0])
grad_case("diag_embed/nan", "diag_embed", torch.diag_embed, [vals, 1])
g.error("diag_embed/same", "diag_embed", [rn(2, 3), 0, 1, 1], "diag_embed: dim1 and dim2 are both dimension 1; they must differ")
g.error("diag_embed/range", "diag_embed", [rn(2, 3), 0, 0, 3], "diag_embed: dim1 0 and dim2 3 must be dimensions of the 3-d result")
g.error("diag_embed/0d", "diag_embed", [torch.tensor(1.0)], "diag_embed: dim1 -2 and dim2 -1 must be dimensions of the 1-d result")

# triu_indices, tril_indices
for name, fn in (("triu_indices", torch.triu_indices), ("tril_indices", torch.tril_indices)):
    for r, c, off in ((3, 3, 0), (3, 4, -1), (4, 3, 1), (4, 3, 2), (3, 5, -2), (0, 4, 0), (4, 0, 0), (3, 4, 10), (3, 4, -10), (1, 1, 0), (5, 2, -3)):
        g.case("%s/%dx%d%+d" % (name, r, c, off), name, fn, [r, c, off])
    g.case("%s/default" % name, name, fn, [4, 4])
    g.case("%s/int32" % name, name, lambda row, col, dtype=None, fn=fn: fn(row, col, dtype=torch.int32), [3, 3], {"dtype": "int32"},
           tref_kwargs={"dtype": "int32"})
    g.case("%s/keywords" % name, name, lambda row, col, offset, fn=fn: fn(row, col, offset), [], {"row": 3, "col": 4, "offset": 1})
    g.error("%s/negative-row" % name, name, [-1, 4], "%s: row and col must not be negative, got -1 and 4" % name)
    g.error("%s/negative-col" % name, name, [3, -4], "%s: row and col must not be negative, got 3 and -4" % name)
    g.error("%s/float" % name, name, [3, 3], "%s: dtype must be an integer type, got float32" % name, {"dtype": "float32"})
    g.error("%s/huge" % name, name, [1 << 40, 1 << 40], "%s: 604462909807" % name)
M = (1 << 63) - 1
# Offsets and sizes near the int64 limits: torch 1.13 overflows in some of
# these (triu_indices(3, 2, M) gives garbage columns, tril_indices(3, 2, M)
# a negative size), so the expected outputs are stated: an offset beyond
# the matrix selects all of it or none.
E = torch.zeros(2, 0, dtype=I64)
g.expect("triu_indices/limits-above", "triu_indices", [3, 2, M], {}, E)
g.expect("tril_indices/limits-above", "tril_indices", [3, 2, M], {}, torch.tril_indices(3, 2, 5))
g.expect("triu_indices/limits-below", "triu_indices", [3, 2, -M], {}, torch.triu_indices(3, 2, -5))
g.expect("tril_indices/limits-below", "tril_indices", [3, 2, -M], {}, E)
g.expect("tril_indices/limits-rows", "tril_indices", [M, M, -M], {}, E)
g.expect("triu_indices/limits-cols", "triu_indices", [2, M, M - 1], {}, torch.tensor([[0], [M - 1]]))
g.error("triu_indices/limits-rows", "triu_indices", [M, M, -M], "triu_indices: 85070591730234615847396907784232501249 indices are too many")
g.expect("tril_indices/limits-cols", "tril_indices", [2, M, 0], {}, torch.tensor([[0, 1, 1], [0, 0, 1]]))


# Review fixes (appended so the random inputs above stay as they were).
# addr: input and product cast to the promoted dtype, then scaled by beta
# and alpha in it
g.case("addr/int-input-float-beta", "addr", torch.addr, [torch.ones(2, 2, dtype=torch.int64), torch.ones(2), torch.ones(2)], {"beta": 0.5})
g.case("addr/int-vectors-float-alpha", "addr", torch.addr, [torch.ones(2, 2), torch.tensor([1, 2]), torch.tensor([1, 2])], {"alpha": 0.5})
g.case("addr/float32-input-float64-beta", "addr", torch.addr, [torch.tensor([[3.0], [1.0]]), torch.tensor([1.0, 2.0], dtype=F64), torch.tensor([0.0], dtype=F64)], {"beta": 0.1}, rtol=0.0, atol=0.0)
g.case("addr/float32-input-float64-alpha", "addr", torch.addr, [torch.tensor([[1.0]]), torch.tensor([3.0], dtype=F64), torch.tensor([1.0], dtype=F64)], {"beta": 0.0, "alpha": 0.1}, rtol=0.0, atol=0.0)
g.case("addr/int-input-int-vectors-float-input", "addr", torch.addr, [torch.full((2, 2), 0.5, dtype=F64), torch.tensor([1, 2]), torch.tensor([3, 4])], {"beta": 3, "alpha": 2})
grad_case("addr/promote", "addr", torch.addr, [rn(2, 3), rn(2, dtype=F64), rn(3, dtype=F64)], {"beta": 0.5, "alpha": 1.5})
# diag_embed of an empty result builds no mask
g.case("diag_embed/empty-wide", "diag_embed", torch.diag_embed, [torch.zeros(0, 1000000)])
g.case("diag_embed/empty-dims", "diag_embed", torch.diag_embed, [torch.zeros(0, 3), 1, 0, 2])
g.case("diag_embed/empty-last", "diag_embed", torch.diag_embed, [torch.zeros(2, 0)])
g.case("diag_embed/empty-offset", "diag_embed", torch.diag_embed, [torch.zeros(2, 0), -2])
# triu_indices and tril_indices: int64 or int32, as torch
g.error("triu_indices/int16", "triu_indices", [3, 3], "triu_indices: dtype must be an integer type, got int16 (int64 or int32", {"dtype": "int16"})
g.error("tril_indices/int8", "tril_indices", [3, 3], "tril_indices: dtype must be an integer type, got int8 (int64 or int32", {"dtype": "int8"})
g.error("tril_indices/uint8", "tril_indices", [3, 3], "tril_indices: dtype must be an integer type, got uint8 (int64 or int32", {"dtype": "uint8"})

g.write()
