"""Goldens of more torch and torch.special functions users porting code
meet, added as tref builtins: /usr/bin/python3 gen_porting_special.py

Pointwise functions (fmax, fmin, ldexp, frexp, signbit, logaddexp2,
xlog1py, entr, expit), the normal distribution's ndtr, log_ndtr and ndtri,
the modified Bessel functions i0, i0e, i1 and i1e (Cephes' series, near 0,
around the branch at |x| = 8 and beyond), and the reductions aminmax,
nanmedian, msort and renorm: values (float32, float64, integers,
broadcasting, numbers as operands, NaN, infinities, -0.0), the gradients
of the differentiable ones (replayed by vjp_of_sum), and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(37)
g = Golden("porting_special")
grad_case = g.grad_case
S = torch.special

nan, inf = float("nan"), float("inf")
f64 = torch.float64


def rn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def T(*vals, dtype=torch.float32):
    return torch.tensor(vals, dtype=dtype)


INTS = T(3, -2, 0, 1, -1, dtype=torch.int64)
SPECIAL = T(nan, inf, -inf, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 1e-8, 30.0, -30.0)

# fmax, fmin: NaN is ignored unless both are NaN; a tie gives input
fa = T(1.0, nan, nan, -0.0, 0.0, inf, -inf, 2.0, 3.0, nan, 5.0)
fb = T(nan, 2.0, nan, 0.0, -0.0, -inf, 1.0, 2.0, 4.0, -inf, -5.0)
for name, fn in (("fmax", torch.fmax), ("fmin", torch.fmin)):
    g.case("%s/special" % name, name, fn, [fa, fb])
    g.case("%s/float64" % name, name, fn, [fa.double(), fb.double()])
    g.case("%s/bcast" % name, name, fn, [rn(3, 1), rn(4)])
    g.case("%s/number" % name, name, lambda a, b, fn=fn: fn(a, torch.tensor(b)), [fa, 1.5])
    g.case("%s/number-first" % name, name, lambda a, b, fn=fn: fn(torch.tensor(a), b), [0.25, fb])
    g.case("%s/int" % name, name, fn, [INTS, T(1, 1, -1, 4, -3, dtype=torch.int64)])
    g.case("%s/int-float-number" % name, name, lambda a, b, fn=fn: fn(a, torch.tensor(b)), [INTS, 0.5])
    g.case("%s/int32-int" % name, name, lambda a, b, fn=fn: fn(a, torch.tensor(b)), [INTS.int(), 1])
    g.case("%s/bool" % name, name, fn, [T(True, False, True, False, dtype=torch.bool), T(True, True, False, False, dtype=torch.bool)])
    g.case("%s/mixed" % name, name, fn, [rn(4), rn(4, dtype=f64)])
    g.case("%s/keywords" % name, name, lambda input, other, fn=fn: fn(input, other), [], {"input": rn(3), "other": rn(3)})
    grad_case(name, name, fn, [T(1.0, 2.0, 3.0, nan, nan, -1.0), T(1.0, 1.0, 4.0, 1.0, nan, nan)])
    grad_case("%s/bcast" % name, name, fn, [rn(3, 1), rn(4)])
    g.error("%s/shape" % name, name, [rn(2, 3), rn(4)], "%s: cannot broadcast" % name)

# ldexp: input * 2 ** other, the power float32 for integer other
g.case("ldexp/float-int", "ldexp", torch.ldexp, [T(1.0, 2.0, 3.0, -0.5, 0.0), T(1, 2, -1, 10, 3, dtype=torch.int64)])
g.case("ldexp/int-int", "ldexp", torch.ldexp, [T(1, 2, -3, dtype=torch.int64), T(3, 4, 0, dtype=torch.int64)])
g.case("ldexp/fractional", "ldexp", torch.ldexp, [T(1.0, 2.0, -3.0), T(1.5, 0.5, -0.25)])
g.case("ldexp/special", "ldexp", torch.ldexp, [T(1.0, nan, inf, 0.0, 1.0, 1.0, -inf, 3.0), T(200, 1, -1, 1000, -150, 128, 2, -149, dtype=torch.int64)])
g.case("ldexp/float64-int", "ldexp", torch.ldexp, [T(1.0, 3.0, dtype=f64), T(-150, 100, dtype=torch.int64)])
g.case("ldexp/float64", "ldexp", torch.ldexp, [rn(3, dtype=f64), rn(3, dtype=f64) * 10])
g.case("ldexp/int-float64", "ldexp", torch.ldexp, [INTS, T(1.5, dtype=f64)])
g.case("ldexp/bool", "ldexp", torch.ldexp, [T(True, False, dtype=torch.bool), T(True, True, dtype=torch.bool)])
g.case("ldexp/bcast", "ldexp", torch.ldexp, [rn(3, 1), T(0, 1, 2, 3, dtype=torch.int64)])
g.case("ldexp/number", "ldexp", lambda a, b: torch.ldexp(a, torch.tensor(b)), [rn(4), 3])
grad_case("ldexp", "ldexp", torch.ldexp, [rn(3, 4), rn(3, 4)])
grad_case("ldexp/bcast", "ldexp", torch.ldexp, [rn(3, 1), rn(4)])
g.error("ldexp/shape", "ldexp", [rn(2, 3), rn(4)], "ldexp: cannot broadcast")

# frexp: {mantissa, exponent}
frx = T(0.0, -0.0, 1.0, -3.0, 0.75, inf, -inf, nan, 1e-40, 1e-45, 1.1754944e-38, 3.4e38, 0.5, -1.0, 1 - 2 ** -24, 2 ** 20 - 1)
g.case("frexp/special", "frexp", lambda x: list(torch.frexp(x)), [frx])
g.case("frexp/random", "frexp", lambda x: list(torch.frexp(x)), [rn(4, 5) * torch.tensor(10.0) ** torch.randint(-30, 30, (4, 5))])
frx64 = torch.cat([frx.double(), torch.tensor([2.0 ** -1074, 2.0 ** -1030, 2.0 ** -1022, 1.7976931348623157e308, 1 - 2 ** -53, 0.1], dtype=f64)])
g.case("frexp/float64", "frexp", lambda x: list(torch.frexp(x)), [frx64])
g.case("frexp/float64-random", "frexp", lambda x: list(torch.frexp(x)), [rn(30, dtype=f64) * torch.tensor(10.0, dtype=f64) ** torch.randint(-300, 300, (30,))])
g.error("frexp/int", "frexp", [INTS], "frexp: the input must be floating point, got int64")

# signbit
g.case("signbit/special", "signbit", torch.signbit, [SPECIAL])
g.case("signbit/float64", "signbit", torch.signbit, [SPECIAL.double()])
g.case("signbit/int", "signbit", torch.signbit, [INTS])
g.case("signbit/bool", "signbit", torch.signbit, [T(True, False, dtype=torch.bool)])
g.case("signbit/uint8", "signbit", torch.signbit, [T(0, 3, 255, dtype=torch.uint8)])

# logaddexp2
la = T(1.0, 2.0, -inf, inf, inf, nan, 0.0, -inf, 100.0, -100.0, 1e-3)
lb = T(1.0, 3.0, -inf, inf, -inf, 1.0, -1.0, 5.0, -100.0, -100.5, 2e-3)
g.case("logaddexp2/special", "logaddexp2", torch.logaddexp2, [la, lb])
g.case("logaddexp2/float64", "logaddexp2", torch.logaddexp2, [la.double(), lb.double()], rtol=1e-12)
g.case("logaddexp2/bcast", "logaddexp2", torch.logaddexp2, [rn(3, 1), rn(4)])
g.case("logaddexp2/mixed", "logaddexp2", torch.logaddexp2, [rn(3), rn(3, dtype=f64)])
g.case("logaddexp2/int-number", "logaddexp2", lambda a, b: torch.logaddexp2(a, torch.tensor(b)), [rn(4), 2])
g.case("logaddexp2/int-float", "logaddexp2", torch.logaddexp2, [INTS, rn(5)])
grad_case("logaddexp2", "logaddexp2", torch.logaddexp2, [rn(3, 4) * 3, rn(3, 4) * 3])
grad_case("logaddexp2/ties", "logaddexp2", torch.logaddexp2, [T(1.0, -2.0, 50.0, -50.0), T(1.0, -2.0, -50.0, 50.0)])
g.error("logaddexp2/int", "logaddexp2", [INTS, INTS], "logaddexp2: the inputs must be floating point, got int64 and int64")
g.error("logaddexp2/shape", "logaddexp2", [rn(2, 3), rn(4)], "logaddexp2: cannot broadcast")

# xlog1py
xa = T(0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, -3.0, nan, 1.5, 0.0, 0.0, 2.0)
xb = T(-1.0, nan, -2.0, inf, 0.0, -1.0, 2.0, 4.0, 1.0, inf, -inf, -0.5, -3.0)
g.case("xlog1py/special", "xlog1py", S.xlog1py, [xa, xb])
g.case("xlog1py/bcast", "xlog1py", S.xlog1py, [rn(3, 1), rn(4).abs()])
g.case("xlog1py/number-other", "xlog1py", S.xlog1py, [rn(4), 2.0])
g.case("xlog1py/number-input", "xlog1py", S.xlog1py, [3.0, T(0.0, 1.0, -0.5, nan, -1.0)])
g.case("xlog1py/int", "xlog1py", S.xlog1py, [INTS, T(1, 2, 3, 0, 5, dtype=torch.int64)])
g.case("xlog1py/float64", "xlog1py", S.xlog1py, [rn(3, dtype=f64), rn(3, dtype=f64).abs()], rtol=1e-12)
g.case("xlog1py/small", "xlog1py", S.xlog1py, [T(2.0, 3.0), T(1e-7, -1e-6)])
grad_case("xlog1py", "xlog1py", S.xlog1py, [rn(3, 4), rn(3, 4).abs()])
grad_case("xlog1py/bcast", "xlog1py", S.xlog1py, [rn(3, 1), rn(4).abs()])
# At input 0 the gradient with respect to input is log1p(other), 0 at
# other <= -1, NaN at NaN (tref: 0 at other = inf, and 0 with respect to
# other at other = -1, where torch has inf and NaN).
grad_case("xlog1py/edges", "xlog1py", S.xlog1py,
          [T(0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0, -2.0, 0.0), T(-2.0, 3.0, nan, 0.5, -0.5, nan, -3.0, -0.5, -inf)])
g.error("xlog1py/shape", "xlog1py", [rn(2, 3), rn(4)], "xlog1py: cannot broadcast")

# entr, expit
g.case("entr/special", "entr", S.entr, [SPECIAL])
g.case("entr/int", "entr", S.entr, [INTS])
g.case("entr/float64", "entr", S.entr, [rn(3, 4, dtype=f64).abs()], rtol=1e-12)
grad_case("entr", "entr", S.entr, [rn(3, 4).abs() + 0.01])
g.case("expit/special", "expit", S.expit, [SPECIAL])
g.case("expit/int", "expit", S.expit, [INTS])
g.case("expit/float64", "expit", S.expit, [rn(5, dtype=f64)], rtol=1e-12)
grad_case("expit", "expit", S.expit, [rn(3, 4)])

# ndtr, log_ndtr, ndtri
nx = T(-40.0, -38.0, -36.5, -35.5, -20.0, -12.5, -11.5, -10.0, -5.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 5.0, 10.0, 40.0, nan, inf, -inf)
g.case("ndtr/special", "ndtr", S.ndtr, [nx])
g.case("ndtr/float64", "ndtr", S.ndtr, [nx.double()], rtol=1e-12)
g.case("ndtr/int", "ndtr", S.ndtr, [INTS])
grad_case("ndtr", "ndtr", S.ndtr, [rn(3, 4) * 3])
g.case("log_ndtr/special", "log_ndtr", S.log_ndtr, [nx], rtol=2e-6)
g.case("log_ndtr/float64", "log_ndtr", S.log_ndtr, [nx.double()], rtol=1e-13, atol=1e-300)
g.case("log_ndtr/far", "log_ndtr", S.log_ndtr, [T(-100.0, -1e3, -1e6, -1e10, -1e15)], rtol=2e-6)
g.case("log_ndtr/far-f64", "log_ndtr", S.log_ndtr, [T(-100.0, -1e3, -1e6, -1e10, -1e100, dtype=f64)], rtol=1e-13)
g.case("log_ndtr/sweep", "log_ndtr", S.log_ndtr, [torch.linspace(-60, 8, 137)], rtol=2e-6)
g.case("log_ndtr/sweep-f64", "log_ndtr", S.log_ndtr, [torch.linspace(-60, 8, 137, dtype=f64)], rtol=1e-13, atol=1e-300)
g.case("log_ndtr/int", "log_ndtr", S.log_ndtr, [INTS])
# torch's float32 gradient exp(-x²/2 - log_ndtr(x))/sqrt(2pi) cancels in
# the exponent: at -40 it is 40.0257, the float64 one (and tref's) 40.0250.
grad_case("log_ndtr", "log_ndtr", S.log_ndtr, [T(-40.0, -20.0, -13.0, -12.0, -11.0, -5.0, -1.5, -1.0, -0.5, 0.0, 3.0)], rtol=3e-5)
grad_case("log_ndtr/float64", "log_ndtr", S.log_ndtr, [T(-300.0, -40.0, -37.0, -35.0, -20.0, -1.5, 0.0, 2.0, dtype=f64)], atol=1e-12, rtol=1e-11)
px = T(0.0, 1.0, 0.5, -0.1, 1.1, nan, 0.975, 0.025, 0.13, 0.14, 0.86, 0.87, 1e-10, 1e-30, 1e-40, 1 - 2 ** -24, 0.9999, inf, -inf)
g.case("ndtri/special", "ndtri", S.ndtri, [px], rtol=2e-6)
px64 = torch.cat([px.double(), torch.tensor([1e-300, 1e-320, 1 - 2 ** -53, 1e-14, 1e-13], dtype=f64)])
g.case("ndtri/float64", "ndtri", S.ndtri, [px64], rtol=1e-13)
g.case("ndtri/sweep", "ndtri", S.ndtri, [torch.linspace(0, 1, 101)], rtol=2e-6)
g.case("ndtri/sweep-f64", "ndtri", S.ndtri, [torch.linspace(0, 1, 101, dtype=f64)], rtol=1e-13)
g.case("ndtri/int", "ndtri", S.ndtri, [T(0, 1, 2, -1, dtype=torch.int64)])
g.case("ndtri/roundtrip", "ndtri", S.ndtri, [S.ndtr(torch.linspace(-8, 8, 33, dtype=f64))], rtol=1e-12)
grad_case("ndtri", "ndtri", S.ndtri, [T(0.5, 0.3, 0.9, 0.13, 0.87, 1e-3, 0.999, 1e-10, 1e-20)], rtol=1e-5)
grad_case("ndtri/float64", "ndtri", S.ndtri, [T(0.5, 0.3, 0.9, 0.13, 0.87, 1e-3, 0.999, 1e-10, 1e-20, 1e-100, dtype=f64)], atol=1e-10, rtol=1e-10)

# i0, i0e, i1, i1e: Cephes' series on [0, 8] and beyond, in float32 and
# float64 (torch's float32 i1 tables are shorter)
bx = T(0.0, -0.0, 1e-8, 0.25, -1.0, 3.5, -7.9, 8.0, -8.0, 8.1, -12.0, 20.0, -50.0, 85.0, nan, inf, -inf)
bx64 = torch.cat([bx.double(), torch.tensor([100.0, -300.0, 700.0, 1e4], dtype=f64)])
bessel = (("i0", torch.i0), ("i0e", S.i0e), ("i1", S.i1), ("i1e", S.i1e))
for name, fn in bessel:
    g.case("%s/special" % name, name, fn, [bx], rtol=2e-6)
    g.case("%s/float64" % name, name, fn, [bx64], rtol=1e-13)
    g.case("%s/sweep" % name, name, fn, [torch.linspace(-30, 30, 121)], rtol=2e-6)
    g.case("%s/sweep-f64" % name, name, fn, [torch.linspace(-30, 30, 121, dtype=f64)], rtol=1e-13)
    g.case("%s/int" % name, name, fn, [INTS], rtol=2e-6)
    g.case("%s/input-keyword" % name, name, lambda input, fn=fn: fn(input), [], {"input": rn(3)}, rtol=2e-6)
    gx = T(0.0, 1e-3, -0.5, 1.0, -3.0, 7.5, -8.0, 8.0, 8.5, -9.0, 15.0, -25.0)
    grad_case(name, name, fn, [gx], rtol=2e-5)
    grad_case("%s/float64" % name, name, fn, [gx.double()], atol=1e-10, rtol=1e-10)
    g.error("%s/arity" % name, name, [rn(2), rn(2)], "")

# torch.special's modified_bessel_i0 and _i1: i0 and i1 under those names
for name, fn in (("modified_bessel_i0", S.modified_bessel_i0), ("modified_bessel_i1", S.modified_bessel_i1)):
    g.case("%s/special" % name, name, fn, [bx], rtol=4e-6)
    g.case("%s/float64" % name, name, fn, [bx64], rtol=1e-13)
    g.case("%s/sweep" % name, name, fn, [torch.linspace(-30, 30, 121)], rtol=4e-6)

# aminmax
ax = T(1.0, nan, 3.0, 4.0, 5.0, -1.0).reshape(2, 3)
g.case("aminmax/all", "aminmax", lambda x: list(torch.aminmax(x)), [rn(3, 4)])
g.case("aminmax/nan", "aminmax", lambda x: list(torch.aminmax(x)), [ax])
g.case("aminmax/dim", "aminmax", lambda x, dim: list(torch.aminmax(x, dim=dim)), [ax], {"dim": 1})
g.case("aminmax/dim-keepdim", "aminmax", lambda x, dim, keepdim: list(torch.aminmax(x, dim=dim, keepdim=keepdim)), [ax], {"dim": 0, "keepdim": True})
g.case("aminmax/keepdim", "aminmax", lambda x, keepdim: list(torch.aminmax(x, keepdim=keepdim)), [rn(2, 3)], {"keepdim": True})
g.case("aminmax/neg-dim", "aminmax", lambda x, dim: list(torch.aminmax(x, dim=dim)), [rn(2, 3, 4)], {"dim": -2})
g.case("aminmax/int", "aminmax", lambda x, dim: list(torch.aminmax(x, dim=dim)), [T(1, 2, 3, 0, dtype=torch.int64).reshape(2, 2)], {"dim": 1})
g.case("aminmax/bool", "aminmax", lambda x: list(torch.aminmax(x)), [T(True, False, dtype=torch.bool)])
g.case("aminmax/0d", "aminmax", lambda x, dim: list(torch.aminmax(x, dim=dim)), [torch.tensor(3.0), 0])
g.case("aminmax/float64", "aminmax", lambda x, dim: list(torch.aminmax(x, dim=dim)), [rn(3, 4, dtype=f64), 0])
g.error("aminmax/empty", "aminmax", [torch.zeros(0)], "aminmax: min of an empty tensor")
g.error("aminmax/empty-dim", "aminmax", [torch.zeros(0, 3), 0], "aminmax: min over dimension 0 of size 0")
g.error("aminmax/dim-list", "aminmax", [rn(2, 3), [0, 1]], "aminmax: argument \"dim\" must be an int or none")

# nanmedian: the lower median of the values that are not NaN; ties in a
# row are left out of the cases with dim (torch's index is nth_element's)
mx = T(1.0, nan, 3.0, 2.0, nan, nan, nan, 7.0, 4.0, 5.0, -1.0, nan, 2.0, 1.0, 4.0, 3.0, nan, nan, nan, nan).reshape(5, 4)
g.case("nanmedian/all", "nanmedian", torch.nanmedian, [mx])
g.case("nanmedian/all-nan", "nanmedian", torch.nanmedian, [T(nan, nan, nan)])
g.case("nanmedian/no-nan", "nanmedian", torch.nanmedian, [rn(4, 5)])
g.case("nanmedian/int", "nanmedian", torch.nanmedian, [T(5, 1, 3, 2, dtype=torch.int64)])
g.case("nanmedian/dim", "nanmedian", lambda x, dim: list(torch.nanmedian(x, dim)), [mx[:, :3], 1])
g.case("nanmedian/dim0-keepdim", "nanmedian", lambda x, dim, keepdim: list(torch.nanmedian(x, dim, keepdim)), [mx[:3]], {"dim": 0, "keepdim": True})
g.case("nanmedian/dim-int", "nanmedian", lambda x, dim: list(torch.nanmedian(x, dim)), [T(5, 1, 3, 2, 9, 0, dtype=torch.int64).reshape(2, 3), -1])
g.case("nanmedian/float64", "nanmedian", lambda x, dim: list(torch.nanmedian(x, dim)), [mx[:, :3].double(), 1])
g.case("nanmedian/0d", "nanmedian", lambda x, dim: list(torch.nanmedian(x, dim)), [torch.tensor(nan), 0])
g.case("nanmedian/empty", "nanmedian", torch.nanmedian, [torch.zeros(0)])
grad_case("nanmedian/all", "nanmedian", torch.nanmedian, [mx[:4]])
grad_case("nanmedian/ties", "nanmedian", torch.nanmedian, [T(1.0, nan, 2.0, 2.0, 3.0, nan)])
grad_case("nanmedian/all-nan", "nanmedian", torch.nanmedian, [T(nan, nan)])
grad_case("nanmedian/dim", "nanmedian.values", lambda x, dim: torch.nanmedian(x, dim).values, [mx[:, :3]], {"dim": 1})
grad_case("median/ties", "median", torch.median, [T(1.0, 2.0, 2.0, 3.0, 2.0, -1.0)])
grad_case("median/nan", "median", torch.median, [T(1.0, nan, 2.0, nan)])
g.error("nanmedian/empty-int", "nanmedian", [torch.zeros(0, dtype=torch.int64)], "nanmedian: the int64 input of shape [0] is empty")
g.error("nanmedian/empty-dim", "nanmedian", [torch.zeros(0, 3), 0], "nanmedian: dimension 0 of the input of shape [0, 3] is empty")
g.error("nanmedian/dim-range", "nanmedian", [rn(2, 3), 2], "nanmedian: dim 2 is out of range")

# msort
g.case("msort/nan", "msort", torch.msort, [T(3.0, nan, 1.0, 2.0, nan, 0.0).reshape(3, 2)])
g.case("msort/1d", "msort", torch.msort, [rn(6)])
g.case("msort/3d", "msort", torch.msort, [rn(4, 2, 3)])
g.case("msort/int", "msort", torch.msort, [T(3, 1, 2, dtype=torch.int64)])
g.case("msort/bool", "msort", torch.msort, [T(True, False, True, dtype=torch.bool)])
g.case("msort/0d", "msort", torch.msort, [torch.tensor(2.5)])
grad_case("msort", "msort", torch.msort, [rn(4, 3)])

# renorm
rx = T(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.1, 0.1, 0.1).reshape(3, 3)
for p in (2.0, 1.0, inf, 0.5, 3.0):
    g.case("renorm/p%g-dim0" % p, "renorm", torch.renorm, [rx, p, 0, 5.0])
    g.case("renorm/p%g-dim1" % p, "renorm", torch.renorm, [rx, p, 1, 5.0])
g.case("renorm/3d", "renorm", torch.renorm, [rn(2, 3, 4) * 3, 2.0, 1, 2.0])
g.case("renorm/neg-dim", "renorm", torch.renorm, [rn(2, 3, 4) * 3, 2.0, -1, 1.5])
g.case("renorm/float64", "renorm", torch.renorm, [rn(4, 3, dtype=f64) * 3, 2.0, 0, 2.0], rtol=1e-12)
g.case("renorm/zero-maxnorm", "renorm", torch.renorm, [rx, 2.0, 0, 0.0])
g.case("renorm/special", "renorm", torch.renorm, [T(nan, 1.0, inf, 1.0, 0.0, 0.0).reshape(3, 2), 2.0, 0, 1.0])
g.case("renorm/keywords", "renorm", lambda input, p, dim, maxnorm: torch.renorm(input, p, dim, maxnorm), [], {"input": rx, "p": 2.0, "dim": 1, "maxnorm": 3.0})
g.case("renorm/empty", "renorm", torch.renorm, [torch.zeros(0, 3), 2.0, 1, 1.0])
grad_case("renorm/p2", "renorm", torch.renorm, [rx, 2.0, 0, 5.0])
grad_case("renorm/p1", "renorm", torch.renorm, [rx, 1.0, 1, 5.0])
grad_case("renorm/pinf", "renorm", torch.renorm, [rx, inf, 0, 1.0])
# a slice whose norm is NaN or 0 keeps its gradient
grad_case("renorm/nan-zero", "renorm", torch.renorm, [T(nan, 1.0, 0.0, 0.0, 3.0, 4.0).reshape(3, 2), 2.0, 0, 1.0])
grad_case("renorm/3d", "renorm", torch.renorm, [rn(2, 3, 4) * 3, 3.0, 1, 2.0], rtol=1e-5)
g.error("renorm/p0", "renorm", [rx, 0.0, 0, 1.0], "renorm: p must be positive, got 0")
g.error("renorm/maxnorm", "renorm", [rx, 2.0, 0, -5.0], "renorm: maxnorm must be >= 0, got -5")
g.error("renorm/1d", "renorm", [rn(3), 2.0, 0, 1.0], "renorm: the input needs at least 2 dimensions, got shape [3]")
g.error("renorm/int", "renorm", [T(1, 2, 3, 4, dtype=torch.int64).reshape(2, 2), 2.0, 0, 1.0], "renorm: the input must be floating point, got int64")
g.error("renorm/dim", "renorm", [rx, 2.0, 2, 1.0], "renorm: dim 2 of a tensor of shape [3, 3] is out of range")
g.write()
