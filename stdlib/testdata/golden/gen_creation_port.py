"""Goldens of torch's other ways to make tensors and small spellings:
/usr/bin/python3 gen_creation_port.py

Tensor.new_zeros/new_ones/new_full/new_empty/new_tensor (the input's
dtype unless dtype= says), empty/empty_like (tref's hold zeros: the
reference is torch.zeros), scalar_tensor, the signal windows (hann,
hamming, blackman, bartlett, kaiser; periodic and symmetric, float32 and
float64, lengths 0, 1, 2 and more), rsub, positive, constant_pad_nd,
adjoint, and the gradients through rsub and constant_pad_nd; and the
dtype= of sum, mean, prod, softmax, log_softmax, softmin and norm (the
input converted first; sum and prod of a narrow integer dtype wrap to it).
"""

import warnings

import torch

from gen_common import Golden

warnings.filterwarnings("ignore", "To copy construct")  # new_tensor of a tensor
torch.manual_seed(11)
g = Golden("creation_port")

x64 = torch.randn(2, 3, dtype=torch.float64)
xi = torch.tensor([3, -1], dtype=torch.int32)

g.case("new_zeros/list", "new_zeros", lambda x, s: x.new_zeros(s), [x64, [2, 2]])
g.case("new_zeros/ints", "new_zeros", lambda x, a, b: x.new_zeros(a, b), [xi, 3, 1])
g.case("new_zeros/dtype", "new_zeros", lambda x, s, dtype: x.new_zeros(s, dtype=torch.int64), [x64, [3]], {"dtype": "int64"})
g.case("new_ones/list", "new_ones", lambda x, s: x.new_ones(s), [xi, [2, 3]])
g.case("new_ones/dtype", "new_ones", lambda x, s, dtype: x.new_ones(s, dtype=torch.float16), [x64, [2]], {"dtype": "float16"})
g.case("new_full/float", "new_full", lambda x, s, v: x.new_full(s, v), [x64, [2, 2], 1.5])
g.case("new_full/int", "new_full", lambda x, s, v: x.new_full(s, v), [xi, [3], 7])
g.case("new_empty", "new_empty", lambda x, s: torch.zeros(s, dtype=x.dtype), [x64, [1, 4]])
g.case("new_tensor/list", "new_tensor", lambda x, d: x.new_tensor(d), [x64, [[1, 2], [3, 4]]])
g.case("new_tensor/int", "new_tensor", lambda x, d: x.new_tensor(d), [xi, [1.0, 2.0]])
g.case("new_tensor/tensor", "new_tensor", lambda x, d: x.new_tensor(d), [xi, torch.tensor([1.5, -2.5])])
g.case("empty", "empty", lambda a, b: torch.zeros(a, b), [2, 3])
g.case("empty/dtype", "empty", lambda s, dtype: torch.zeros(s, dtype=torch.int32), [[4]], {"dtype": "int32"})
g.case("empty_like", "empty_like", lambda x: torch.zeros_like(x), [x64])
g.case("scalar_tensor/int", "scalar_tensor", torch.scalar_tensor, [3])
g.case("scalar_tensor/float", "scalar_tensor", torch.scalar_tensor, [2.5])
g.case("scalar_tensor/dtype", "scalar_tensor", lambda s, dtype: torch.scalar_tensor(s, dtype=torch.int64), [7], {"dtype": "int64"})
g.case("scalar_tensor/tensor", "scalar_tensor", lambda s: torch.scalar_tensor(s.item()), [torch.tensor([4], dtype=torch.int8)])

WINDOWS = {"hann": torch.hann_window, "hamming": torch.hamming_window, "blackman": torch.blackman_window,
           "bartlett": torch.bartlett_window, "kaiser": torch.kaiser_window}
for name, fn in WINDOWS.items():
    for n in [0, 1, 2, 5, 8, 33]:
        for periodic in [True, False]:
            g.case("%s/%d/%s" % (name, n, "periodic" if periodic else "symmetric"), name + "_window",
                   lambda n, periodic, fn=fn: fn(n, periodic=periodic), [n], {"periodic": periodic}, atol=2e-6)
    g.case("%s/float64" % name, name + "_window", lambda n, dtype, fn=fn: fn(n, dtype=torch.float64), [16],
           {"dtype": "float64"}, rtol=1e-12, atol=1e-14)
    g.error("%s/int" % name, name + "_window", [4], "floating-point dtype", {"dtype": "int64"})
    g.error("%s/negative" % name, name + "_window", [-1], "non-negative")
g.case("hamming/alpha-beta", "hamming_window", lambda n, periodic, alpha, beta: torch.hamming_window(n, periodic, alpha, beta),
       [9, False, 0.5, 0.25], atol=2e-6)
g.case("kaiser/beta", "kaiser_window", lambda n, periodic, beta: torch.kaiser_window(n, periodic, beta), [12, True, 5.0], atol=2e-6)
g.case("kaiser/beta-large", "kaiser_window", lambda n, periodic, beta, dtype: torch.kaiser_window(n, periodic, beta, dtype=torch.float64),
       [20, False, 20.0], {"dtype": "float64"}, rtol=1e-12, atol=1e-14)

a = torch.randn(3, 4)
b = torch.randn(3, 4)
g.case("rsub/tensor", "rsub", torch.rsub, [a, b])
g.case("rsub/alpha", "rsub", lambda x, y, alpha: torch.rsub(x, y, alpha=alpha), [a, b], {"alpha": 2.5})
g.case("rsub/number", "rsub", torch.rsub, [a, 3])
g.case("rsub/int", "rsub", lambda x, y, alpha: torch.rsub(x, y, alpha=alpha), [xi, torch.tensor([10, 20], dtype=torch.int32)], {"alpha": 3})
g.case("positive", "positive", torch.positive, [a])
g.error("positive/bool", "positive", [torch.tensor([True])], "bool")
g.case("constant_pad_nd", "constant_pad_nd", torch.constant_pad_nd, [a, [1, 2, 0, 1]])
g.case("constant_pad_nd/value", "constant_pad_nd", torch.constant_pad_nd, [a, [2, 1], -1.5])
g.case("adjoint", "adjoint", torch.adjoint, [torch.randn(2, 3, 4)])
g.error("adjoint/1d", "adjoint", [torch.randn(3)], "at least 2 dimensions")
g.grad_case("rsub", "rsub", lambda x, y, alpha: torch.rsub(x, y, alpha=alpha), [a, b], {"alpha": 2.0})
g.grad_case("constant_pad_nd", "constant_pad_nd", torch.constant_pad_nd, [a, [1, 1, 2, 0], 0.5])

D = {"float64": torch.float64, "float32": torch.float32, "int8": torch.int8, "int16": torch.int16, "int64": torch.int64}
xf = torch.randn(3, 4)
x8 = torch.tensor([[100, 100, 27], [-5, 3, 90]], dtype=torch.int8)
for label, fn, ref, x, kw in [
    ("sum/float64", "sum", torch.sum, xf, {"dtype": "float64"}),
    ("sum/int8-wraps", "sum", torch.sum, x8, {"dtype": "int8"}),
    ("sum/int8-dim", "sum", torch.sum, x8, {"dim": 1, "dtype": "int8"}),
    ("sum/int-to-float", "sum", torch.sum, x8, {"dim": 0, "dtype": "float32"}),
    ("sum/float-to-int", "sum", torch.sum, xf * 3, {"dtype": "int64"}),
    ("prod/int16", "prod", torch.prod, x8, {"dim": 1, "dtype": "int16"}),
    ("prod/float64", "prod", torch.prod, xf, {"dim": 0, "dtype": "float64"}),
    ("mean/int-to-float64", "mean", torch.mean, x8, {"dtype": "float64"}),
    ("mean/dim-keepdim", "mean", torch.mean, xf, {"dim": 1, "keepdim": True, "dtype": "float64"}),
    ("softmax/float64", "softmax", torch.softmax, xf, {"dim": 1, "dtype": "float64"}),
    ("log_softmax/float64", "log_softmax", torch.log_softmax, xf, {"dim": 0, "dtype": "float64"}),
    ("softmin/float64", "softmin", torch.nn.functional.softmin, xf, {"dim": 1, "dtype": "float64"}),
    ("norm/p2-float64", "norm", torch.norm, xf, {"p": 2, "dtype": "float64"}),
    ("norm/p1-dim", "norm", torch.norm, xf, {"p": 1, "dim": 1, "dtype": "float64"}),
]:
    tk = dict(kw)
    rk = dict(kw, dtype=D[kw["dtype"]])
    g.case("dtype/" + label, fn, lambda x, ref=ref, rk=rk: ref(x, **rk), [x], tref_kwargs=tk, rtol=1e-6, atol=1e-6)
g.error("dtype/mean-int", "mean", [xf], "mean: dtype must be a floating-point dtype, got int64", {"dtype": "int64"})
g.error("dtype/softmax-int", "softmax", [xf], "softmax: dtype must be a floating-point dtype", {"dtype": "int64", "dim": 0})
g.error("dtype/sum-unknown", "sum", [xf], "sum: unknown dtype", {"dtype": "float63"})

g.write()
