package stdlib

import (
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// More special functions of torch.special: erfcx, zeta, gammainc and
// gammaincc (and torch.igamma, torch.igammac), ops of
// runtime/ops/special.go with cpu kernels ported from torch's CPU code,
// libtorch kernels and torch's gradient rules.

func init() {
	register("erfcx", "erfcx(input): the scaled complementary error function exp(x²)·erfc(x), "+
		"without the overflow and underflow of that product: about 1/(x·√π) for large x, +inf below -26.7 (where 2·exp(x²) overflows); "+
		"torch's Chebyshev fits (the Faddeeva package), float64 within 2 ulp of torch's; integers give float32; "+
		"float32 is computed in float64 (torch's float32 rounds x² first: below 0 they are up to x²·6e-8 relative apart), "+
		"float16 and bfloat16 in float32 (torch 1.13 has no kernel for them); gradient 2x·erfcx(x) - 2/√π; as torch.special.erfcx",
		unaryBuiltin(ops.Erfcx))
	register("zeta", "zeta(input, other): the Hurwitz zeta function ζ(x, q) = Σ_k (k + q)^-x of x = input and q = other, "+
		"broadcasting, either one a number (integers give float32; float16 and bfloat16 are computed in float32, which torch 1.13 has no kernel for); "+
		"inf at x = 1 and at q = 0, -1, -2, ...; NaN for x < 1 and for q < 0 with a non-integer x (Cephes'); "+
		"for an integer x at a non-integer q below -64 the terms at negative k + q are summed as a difference of two zetas "+
		"(torch sums them one by one, -q steps: a hang at q = -1e15 + 0.5), agreeing with torch to 1e-13 of the largest term; "+
		"the gradient along q is -x·ζ(x + 1, q), along x an error (as torch); as torch.special.zeta",
		specialBinaryBuiltin(ops.Zeta, "input|x", "other|q"))
	const gamma = "broadcasting, for floating-point operands (as torch), either one a number (torch takes tensors only); " +
		"float16 and bfloat16 are computed in float32, float32 in float64 (torch computes it in float32, which loses up to 1e-5 absolute, 1e-4 relative, " +
		"where a is past 1e4 and x near it); " +
		"float64 agrees with torch's to a few ulp for small a and x, to about 1e-11 relative where they reach the thousands " +
		"(x^a·exp(-x)/Γ(a) is exp(a·log(x) - x - lgamma(a)), whose large exponent torch's AVX2 code, fusing multiply-adds, " +
		"and its libm round otherwise, and the exponential magnifies that); "
	register("gammainc", "gammainc(input, other): the regularized lower incomplete gamma function P(a, x) = γ(a, x)/Γ(a) of a = input and x = other, "+
		gamma+"NaN for a < 0 or x < 0 and at a = x = 0 and a = x = inf, 1 at a = 0 < x and at x = inf, 0 at x = 0 and at a = inf; "+
		"the gradient along x is exp(-x)·x^(a-1)/Γ(a), along a an error (as torch); as torch.special.gammainc and torch.igamma",
		specialBinaryBuiltin(ops.Gammainc, "input|a", "other|x"))
	register("gammaincc", "gammaincc(input, other): the regularized upper incomplete gamma function Q(a, x) = Γ(a, x)/Γ(a) = 1 - P(a, x) of a = input and x = other, "+
		gamma+"NaN for a < 0 or x < 0 and at a = x = 0 and a = x = inf, 0 at a = 0 < x and at x = inf, 1 at x = 0 and at a = inf; "+
		"the gradient along x is -exp(-x)·x^(a-1)/Γ(a), along a an error (as torch); as torch.special.gammaincc and torch.igammac",
		specialBinaryBuiltin(ops.Gammaincc, "input|a", "other|x"))
	for _, a := range []struct{ name, target, torchName string }{{"igamma", "gammainc", "torch.igamma"}, {"igammac", "gammaincc", "torch.igammac"}} {
		register(a.name, a.name+"(input, other): "+a.target+" under "+a.torchName+"'s name (see "+a.target+")", table[a.target].Fn)
	}
}

// specialBinaryBuiltin is a builtin of a binary special function over its
// two operands, named first and second (a number stands for a 0-d tensor).
func specialBinaryBuiltin(op ops.Op, first, second string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, y *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, first, &x, second, &y); err != nil {
			return nil, err
		}
		return th.Submit(op, nil, x, y)
	}
}
