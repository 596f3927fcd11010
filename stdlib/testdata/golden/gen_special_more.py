"""Goldens of the special functions erfcx, zeta, gammainc and gammaincc
(and their torch names igamma and igammac): /usr/bin/python3 gen_special_more.py

Values over wide ranges in float64 (where tref's port of torch's CPU code
agrees to a few ulp; gammainc's to about 1e-11 relative where a and x are
in the thousands, see the builtins' docs) and float32, every branch of
the algorithms (erfcx's Chebyshev fits, continued fraction and
overflow; the incomplete gamma functions' series, continued fraction and
uniform asymptotic expansion), their edges (poles, zeros, infinities,
NaN, negative arguments), integers, halves, numbers as operands,
broadcasting, keywords, the gradients (replayed by vjp_of_sum; along the
second operand only, as torch), and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(41)
g = Golden("special_more")
S, f64 = torch.special, torch.float64
nan, inf = float("nan"), float("inf")


def T(*vals, dtype=torch.float32):
    return torch.tensor(vals, dtype=dtype)


def uniform(lo, hi, n, dtype=f64):
    return lo + (hi - lo) * torch.rand(n, dtype=dtype)


def pairs(ps, dtype=f64):
    """The two operands of a list of (first, second) pairs."""
    return [T(*[p[0] for p in ps], dtype=dtype), T(*[p[1] for p in ps], dtype=dtype)]


# erfcx: both sides of 0, the fits below 50, the continued fraction above,
# 1/(x√π) past 5e7, 2·exp(x²) below -6.1 and inf below -26.7
wide = torch.cat([torch.linspace(-30, 60, 181, dtype=f64), torch.logspace(-20, 300, 60, dtype=f64),
                  -torch.logspace(-20, 1.4, 20, dtype=f64), uniform(-10, 50, 40)])
edges = T(0.0, -0.0, -26.7, -26.69, -6.1, -6.09, 50.0, 50.0001, 5e7, 5.1e7, inf, -inf, nan, 1e-300, -1e-300, 1e300, 12.0, 0.04, 3.96, 4.04, dtype=f64)
g.case("erfcx/wide-f64", "erfcx", S.erfcx, [wide], rtol=2e-15, atol=0.0)
g.case("erfcx/edges-f64", "erfcx", S.erfcx, [edges], rtol=2e-15, atol=0.0)
# float32: tref computes in float64 and rounds; below 0 torch's float32
# rounds x² first, which exp(x²) magnifies to about x²·6e-8 relative
g.case("erfcx/float32", "erfcx", S.erfcx, [wide.float()], rtol=6e-6, atol=0.0)
g.case("erfcx/edges-f32", "erfcx", S.erfcx, [edges.float()], rtol=2e-6, atol=0.0)
g.case("erfcx/overflow-f32", "erfcx", S.erfcx, [T(-9.3, -9.35, -9.4, -9.45, -10.0)], rtol=6e-6, atol=0.0)
g.case("erfcx/int", "erfcx", S.erfcx, [T(-3, 0, 2, 10, 100, -1, dtype=torch.int64).reshape(2, 3)], rtol=2e-6)
g.case("erfcx/bool", "erfcx", S.erfcx, [T(True, False, dtype=torch.bool)], rtol=2e-6)
# torch 1.13 has no kernel of erfcx for halves: tref computes them in
# float32 and rounds, as torch's float32 rounded
hx = T(-2.0, -0.5, 0.0, 0.75, 3.0, 40.0)
for dt in (torch.float16, torch.bfloat16):
    g.case("erfcx/%s" % str(dt)[6:], "erfcx", lambda x, dt=dt: S.erfcx(x.float()).to(dt), [hx.to(dt)])
g.case("erfcx/input-keyword", "erfcx", lambda input: S.erfcx(input), [], {"input": T(0.5, -1.5)})
g.grad_case("erfcx", "erfcx", S.erfcx, [torch.randn(3, 4) * 3])
g.grad_case("erfcx-f64", "erfcx", S.erfcx, [T(-5.0, -1.0, 0.0, 0.3, 8.0, 60.0, 1e8, dtype=f64)], atol=1e-12, rtol=1e-12)
g.error("erfcx/arity", "erfcx", [torch.ones(2), torch.ones(2)], "")

# zeta(x, q): x in (1, 21] and q over (0.05, 150); integer x at negative q
# (the terms summed one by one, as torch) and far below 0 (tref's
# difference of two zetas, agreeing to 1e-13 of the largest term)
zx, zq = uniform(1, 21, 60), torch.exp(uniform(-3, 5, 60))
g.case("zeta/random-f64", "zeta", S.zeta, [zx, zq], rtol=1e-13, atol=0.0)
nx = T(2, 3, 4, 5, 6, 2, 3, 4, 5, 6, dtype=f64)
g.case("zeta/negative-q-f64", "zeta", S.zeta, [nx, T(-0.5, -1.25, -2.75, -10.1, -30.3, -63.9, -5.5, -0.001, -20.2, -7.7, dtype=f64)], rtol=1e-11, atol=1e-12)
far = T(-64.5, -100.25, -777.875, -1e4 - 0.3, -1e6 - 0.25, dtype=f64)
for s in (2, 3, 4):
    g.case("zeta/far-x%d" % s, "zeta", S.zeta, [T(s, dtype=f64), far], rtol=1e-9, atol=1e-9)
g.case("zeta/edges-f64", "zeta", S.zeta, pairs([
    (1, 2), (0.5, 2), (-1, 2), (2, 0), (2, -0.0), (3, -2), (2.5, -1.5), (2, -1.5), (3, -1.5), (nan, 1), (2, nan), (inf, 2), (2, inf),
    (1.0000001, 1), (100, 1), (100, 0.5), (2, 1e-10), (2, 1e10), (1.5, 1e-300), (60, 2.5), (2, 9.5), (2, 10.0)]), rtol=1e-13, atol=0.0)
g.case("zeta/float32", "zeta", S.zeta, [zx.float(), zq.float()], rtol=2e-6, atol=0.0)
g.case("zeta/int", "zeta", S.zeta, [T(2, 3, 4, 1, 2, dtype=torch.int64), T(1, 2, 3, 1, -2, dtype=torch.int64)], rtol=2e-6)
g.case("zeta/bool", "zeta", S.zeta, [T(True, False, True, dtype=torch.bool), T(1.5, 2.5, 0.5)], rtol=2e-6)
g.case("zeta/number-x", "zeta", S.zeta, [2.0, T(1.0, 2.0, 0.5, 10.0)], rtol=2e-6)
g.case("zeta/number-q", "zeta", S.zeta, [T(2.0, 3.0, 1.5, 0.5), 2.0], rtol=2e-6)
g.case("zeta/int-number-q", "zeta", S.zeta, [T(2, 3, 4, dtype=torch.int64), 1.5], rtol=2e-6)
g.case("zeta/f64-int-number", "zeta", S.zeta, [T(2.0, 3.5, dtype=f64), 3], rtol=1e-13)
g.case("zeta/mixed", "zeta", S.zeta, [T(2.0, 3.0), T(1.5, 0.25, dtype=f64)], rtol=1e-13)
g.case("zeta/bcast", "zeta", S.zeta, [uniform(1.5, 6, 3, dtype=torch.float32).reshape(3, 1), torch.rand(4) * 5 + 0.1], rtol=2e-6)
for dt in (torch.float16, torch.bfloat16):
    g.case("zeta/%s" % str(dt)[6:], "zeta", lambda x, q, dt=dt: S.zeta(x.float(), q.float()).to(dt), [T(2.0, 3.0, 1.5, 4.0).to(dt), T(1.0, 0.5, 2.0, 3.0).to(dt)])
g.case("zeta/keywords", "zeta", lambda input, other: S.zeta(input, other), [], {"input": T(2.0, 3.0), "other": T(1.0, 0.5)}, rtol=2e-6)
qs = torch.rand(3, 4) * 4 + 0.2
g.grad_case("zeta", "zeta", S.zeta, [T(2, 3, 4, 5, dtype=torch.int64), qs], atol=1e-4, rtol=1e-5)
g.grad_case("zeta/number", "zeta", S.zeta, [2.5, qs], atol=1e-4, rtol=1e-5)
g.grad_case("zeta/f64", "zeta", S.zeta, [3, T(0.5, 1.0, 7.5, 100.0, -2.5, dtype=f64)], atol=1e-10, rtol=1e-10)
g.error("zeta/grad-x", "vjp_of_sum", ["zeta", torch.ones(2), T(2.0, 3.0), T(1.0, 2.0)], "not implemented with respect to x (input)")
g.error("zeta/shape", "zeta", [torch.ones(2, 3), torch.ones(4)], "cannot broadcast")
g.error("zeta/arity", "zeta", [torch.ones(2)], "")

# gammainc, gammaincc: a grid across every branch (the series, 1 - the
# other, the continued fraction, the series of DLMF 8.7.3, the uniform
# asymptotic expansion near x = a for a past 20), a ~ x up to 1e5, and
# the edges
ga = T(0.01, 0.5, 1.0, 2.5, 10.0, 25.0, 150.0, 1000.0, dtype=f64)
gx = T(1e-3, 0.3, 0.6, 0.9, 1.0, 1.05, 3.0, 10.0, 24.0, 160.0, 1200.0, dtype=f64)
A, X = torch.meshgrid(ga, gx, indexing="ij")
ra, rx = torch.exp(uniform(-5, 8, 60)), torch.exp(uniform(-6, 8, 60))
near = torch.logspace(1.3, 5, 30, dtype=f64)
near_x = near * (1 + 0.05 * torch.randn(30, dtype=f64))
gedges = pairs([(0, 0), (0, 1), (1, 0), (1, inf), (-1, 1), (2, -1), (inf, 1), (inf, inf), (2, nan), (nan, 1), (nan, 0), (0, nan),
                (1e-300, 1e-300), (0.5, 1e-300), (1e-10, 1e-10), (5, 1e-200), (30, 0.5), (0.5, 30), (1, 1)])
# a past 1e4 with x near a: the uniform asymptotic expansion, whose
# eta = √(2·(σ - log1p(σ))) torch's float32 computes with a cancellation
# (up to 1e-5 absolute, 1e-4 relative off); tref computes float32 in
# float64, so its float32 values are torch's float64 ones rounded
big = [T(1e6, 1e6, 24435.0, 232267.0, dtype=f64), T(1e6 + 1, 1e6 + 3000, 24235.0, 234292.0, dtype=f64)]
for name, fn in (("gammainc", S.gammainc), ("gammaincc", S.gammaincc)):
    g.case("%s/grid-f64" % name, name, fn, [A, X], rtol=1e-10, atol=0.0)
    g.case("%s/random-f64" % name, name, fn, [ra, rx], rtol=1e-10, atol=0.0)
    g.case("%s/near-f64" % name, name, fn, [near, near_x], rtol=1e-10, atol=0.0)
    g.case("%s/edges-f64" % name, name, fn, gedges, rtol=1e-10, atol=0.0)
    g.case("%s/float32" % name, name, fn, [A.float(), X.float()], rtol=1e-5, atol=1e-7)
    g.case("%s/edges-f32" % name, name, fn, [e.float() for e in gedges], rtol=1e-5, atol=1e-7)
    g.case("%s/large-a-f64" % name, name, fn, big, rtol=1e-10, atol=0.0)
    g.case("%s/large-a-f32" % name, name, lambda a, x, fn=fn: fn(a.double(), x.double()).float(), [e.float() for e in big], rtol=1e-6, atol=0.0)
    for dt in (torch.float16, torch.bfloat16):
        g.case("%s/%s" % (name, str(dt)[6:]), name, fn, [T(0.5, 1.0, 2.0, 3.0, 10.0).to(dt), T(0.25, 1.0, 3.0, 2.0, 12.0).to(dt)])
    g.case("%s/number-a" % name, name, lambda a, x, fn=fn: fn(torch.tensor(a), x), [2.5, T(0.5, 2.0, 4.0)], rtol=2e-6)
    g.case("%s/number-x" % name, name, lambda a, x, fn=fn: fn(a, torch.tensor(x)), [T(0.5, 2.0, 4.0), 1.5], rtol=2e-6)
    g.case("%s/int-a" % name, name, fn, [T(1, 2, 3, dtype=torch.int64), T(0.5, 2.0, 4.0)], rtol=2e-6)
    g.case("%s/mixed" % name, name, fn, [T(1.5, 2.5), T(0.5, 3.0, dtype=f64)], rtol=1e-13)
    g.case("%s/bcast" % name, name, fn, [(torch.rand(3, 1) * 4 + 0.1), (torch.rand(4) * 5)], rtol=2e-6)
    g.case("%s/keywords" % name, name, lambda input, other, fn=fn: fn(input, other), [], {"input": T(1.0, 2.0), "other": T(0.5, 3.0)}, rtol=2e-6)
    xs = torch.rand(3, 4) * 4 + 0.1
    # a an int64 tensor or a number: a float tensor would want a
    # gradient, which torch does not implement (the errors below)
    g.grad_case(name, name, fn, [T(1, 2, 3, 4, dtype=torch.int64), xs], atol=1e-5, rtol=1e-4)
    g.grad_case("%s/number-a" % name, name, lambda a, x, fn=fn: fn(torch.tensor(a), x), [2.5, xs], atol=1e-5, rtol=1e-4)
    for a in (0.5, 40.0, 1000.0):
        g.grad_case("%s/f64-a%g" % (name, a), name, lambda a, x, fn=fn: fn(torch.tensor(a, dtype=f64), x),
                  [a, T(0.2, 1.0, 4.0, 38.0, 1010.0, dtype=f64)], atol=1e-12, rtol=1e-9)
    g.error("%s/int" % name, name, [T(1, 2, dtype=torch.int64), T(1, 3, dtype=torch.int64)], "%s takes floating-point tensors, got int64 and int64" % name)
    g.error("%s/shape" % name, name, [torch.ones(2, 3), torch.ones(4)], "cannot broadcast")
# grad_case differentiates every float tensor: along a, as torch, tref fails
g.error("gammainc/grad-a", "vjp_of_sum", ["gammainc", torch.ones(2), T(2.0, 3.0), T(1.0, 2.0)], "not implemented with respect to a (input)")
g.error("gammaincc/grad-a", "vjp_of_sum", ["gammaincc", torch.ones(2), T(2.0, 3.0), T(1.0, 2.0)], "not implemented with respect to a (input)")
# torch's names
g.case("igamma/alias", "igamma", torch.igamma, [T(0.5, 2.0, 30.0), T(1.0, 1.0, 28.0)], rtol=2e-6)
g.case("igammac/alias", "igammac", torch.igammac, [T(0.5, 2.0, 30.0), T(1.0, 1.0, 28.0)], rtol=2e-6)
g.error("igamma/int", "igamma", [T(1, 2, dtype=torch.int64), T(1, 3, dtype=torch.int64)], "gammainc takes floating-point tensors")
g.write()
