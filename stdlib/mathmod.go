package stdlib

import (
	"fmt"
	"math"
	"math/big"

	"github.com/tref-lang/tref/internal/fmath"
	"github.com/tref-lang/tref/lang/eval"
)

// math is Python's math module as a predeclared namespace, for code
// ported from Python (math.sqrt(d_k), math.log(10000.0) / d, math.pi):
// functions of host numbers (a number, or a one-element tensor, read at
// once) computed in float64 and returning float64 numbers, as Python's
// floats are; floor, ceil and trunc return ints. As in Python, a result
// that overflows is "math range error" and an argument outside the
// domain (sqrt(-1), log(0)) "math domain error".

// mathUnary are the one-argument functions: Go's function, the doc, and
// whether an infinite result from a finite argument is a pole (a domain
// error, as log(0)) rather than an overflow.
var mathUnary = map[string]struct {
	f    func(float64) float64
	doc  string
	pole bool
}{
	"sqrt": {math.Sqrt, "square root", false}, "exp": {math.Exp, "e**x", false}, "expm1": {math.Expm1, "e**x - 1", false},
	"log2": {math.Log2, "base-2 logarithm", true}, "log10": {fmath.Log10, "base-10 logarithm", true}, "log1p": {math.Log1p, "log(1 + x)", true},
	"sin": {math.Sin, "sine", false}, "cos": {math.Cos, "cosine", false}, "tan": {math.Tan, "tangent", false},
	"asin": {math.Asin, "arc sine", false}, "acos": {math.Acos, "arc cosine", false}, "atan": {math.Atan, "arc tangent", false},
	"sinh": {math.Sinh, "hyperbolic sine", false}, "cosh": {math.Cosh, "hyperbolic cosine", false}, "tanh": {math.Tanh, "hyperbolic tangent", false},
	"erf": {math.Erf, "error function", false}, "erfc": {math.Erfc, "1 - erf(x)", false}, "fabs": {math.Abs, "absolute value", false},
	"degrees": {func(x float64) float64 { return x * 180 / math.Pi }, "radians to degrees", false},
	"radians": {func(x float64) float64 { return x * math.Pi / 180 }, "degrees to radians", false},
}

// mathBinary are the two-argument functions, with their poles (nil:
// none): pow's 0 ** -1 is a domain error, not an overflow.
var mathBinary = map[string]struct {
	f    func(x, y float64) float64
	doc  string
	pole func(x, y float64) bool
}{
	"pow":   {math.Pow, "x**y", func(x, y float64) bool { return x == 0 && y < 0 }},
	"atan2": {math.Atan2, "atan(y / x) in the right quadrant, called atan2(y, x)", nil},
	"hypot": {math.Hypot, "sqrt(x*x + y*y)", nil}, "fmod": {math.Mod, "x - n*y with the sign of x", nil},
	"copysign": {math.Copysign, "x's magnitude with y's sign", nil},
}

func init() {
	members := map[string]eval.Value{
		"pi": eval.Float64(math.Pi), "e": eval.Float64(math.E), "tau": eval.Float64(2 * math.Pi),
		"inf": eval.Float64(math.Inf(1)), "nan": eval.Float64(math.NaN()),
	}
	add := func(name, doc string, fn eval.BuiltinFunc) {
		members[name] = &eval.Builtin{Name: "math." + name, Doc: doc, Fn: fn}
	}
	for name, u := range mathUnary {
		f, pole := u.f, u.pole
		add(name, u.doc, mathFloat(1, func(xs []float64) (float64, bool) { return f(xs[0]), pole }))
	}
	for name, b := range mathBinary {
		f, pole := b.f, b.pole
		add(name, b.doc, mathFloat(2, func(xs []float64) (float64, bool) {
			return f(xs[0], xs[1]), pole != nil && pole(xs[0], xs[1])
		}))
	}
	add("log", "log(x, base=e): the logarithm of x to base", mathLog)
	add("floor", "the largest int <= x", mathToInt(math.Floor))
	add("ceil", "the smallest int >= x", mathToInt(math.Ceil))
	add("trunc", "x rounded toward zero, an int", mathToInt(math.Trunc))
	add("isnan", "whether x is NaN", mathTest(math.IsNaN))
	add("isinf", "whether x is infinite", mathTest(func(x float64) bool { return math.IsInf(x, 0) }))
	add("isfinite", "whether x is neither infinite nor NaN", mathTest(func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }))
	add("isclose", "isclose(a, b, rel_tol=1e-09, abs_tol=0.0): |a - b| <= max(rel_tol * max(|a|, |b|), abs_tol)", mathIsClose)
	add("gcd", "gcd(a, b): the greatest common divisor of two ints", mathGCD)
	add("factorial", "factorial(n): n! of an int n >= 0", mathFactorial)
	add("comb", "comb(n, k): the number of ways to choose k of n", mathComb)
	register("math", "math: Python's math module, predeclared as if imported: constants and functions of numbers (or one-element tensors, read at once) computed in float64, as Python's floats; math.floor, math.ceil and math.trunc give ints. A result that overflows is \"math range error\", an argument outside the domain \"math domain error\"", mathNamespace)
	table["math"].Members = members
}

func mathNamespace(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	return nil, fmt.Errorf("math is a module, not a function: call its members (math.sqrt(x)), or read its constants (math.pi)")
}

// mathArg reads argument i of a math function as a float64.
func mathArg(th *eval.Thread, fname string, v eval.Value) (float64, error) {
	if f, ok := th.AsFloat(v); ok {
		return f, nil
	}
	if t, ok := v.(eval.Tensor); ok {
		return 0, fmt.Errorf("%s: needs a number, not a tensor of shape %v (use the tensor builtin of the same name)", fname, t.Ref.Shape())
	}
	return 0, fmt.Errorf("%s: needs a number, not %s", fname, eval.Describe(v))
}

// mathArgs reads a math function's n positional arguments.
func mathArgs(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg, n int) ([]float64, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: takes no keyword arguments", b.Name)
	}
	if len(args) != n {
		return nil, fmt.Errorf("%s: takes %d argument(s), got %d", b.Name, n, len(args))
	}
	xs := make([]float64, n)
	for i, a := range args {
		x, err := mathArg(th, b.Name, a)
		if err != nil {
			return nil, err
		}
		xs[i] = x
	}
	return xs, nil
}

// mathResult checks a result as CPython's math module does: NaN from
// arguments that are not NaN is a domain error, infinity from finite
// arguments a range error (an overflow), or a domain error where the
// function has a pole there.
func mathResult(fname string, r float64, pole bool, xs ...float64) (eval.Value, error) {
	nanIn, infIn := false, false
	for _, x := range xs {
		nanIn = nanIn || math.IsNaN(x)
		infIn = infIn || math.IsInf(x, 0)
	}
	switch {
	case math.IsNaN(r) && !nanIn:
		return nil, fmt.Errorf("%s: math domain error", fname)
	case math.IsInf(r, 0) && !nanIn && !infIn && pole:
		return nil, fmt.Errorf("%s: math domain error", fname)
	case math.IsInf(r, 0) && !nanIn && !infIn:
		return nil, fmt.Errorf("%s: math range error", fname)
	}
	return eval.Float64(r), nil
}

// mathFloat is a math function of n numbers: f gives its result and
// whether the arguments are a pole of it (see mathResult).
func mathFloat(n int, f func(xs []float64) (r float64, pole bool)) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		xs, err := mathArgs(th, b, args, kwargs, n)
		if err != nil {
			return nil, err
		}
		r, pole := f(xs)
		return mathResult(b.Name, r, pole, xs...)
	}
}

func mathLog(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(args) == 2 {
		xs, err := mathArgs(th, b, args, kwargs, 2)
		if err != nil {
			return nil, err
		}
		if xs[0] <= 0 || xs[1] <= 0 || xs[1] == 1 {
			return nil, fmt.Errorf("%s: math domain error", b.Name)
		}
		return mathResult(b.Name, fmath.Log(xs[0])/fmath.Log(xs[1]), true, xs...)
	}
	xs, err := mathArgs(th, b, args, kwargs, 1)
	if err != nil {
		return nil, err
	}
	return mathResult(b.Name, fmath.Log(xs[0]), true, xs...)
}

func mathToInt(f func(float64) float64) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		if len(args) == 1 && len(kwargs) == 0 {
			if n, ok := args[0].(eval.Int); ok {
				return n, nil
			}
		}
		xs, err := mathArgs(th, b, args, kwargs, 1)
		if err != nil {
			return nil, err
		}
		r := f(xs[0])
		switch {
		case math.IsNaN(r):
			return nil, fmt.Errorf("%s: cannot convert NaN to an int", b.Name)
		case math.IsInf(r, 0):
			return nil, fmt.Errorf("%s: cannot convert infinity to an int", b.Name)
		case r < -(1<<63) || r >= 1<<63:
			return nil, fmt.Errorf("%s: %v does not fit an int64", b.Name, r)
		}
		return eval.Int(int64(r)), nil
	}
}

func mathTest(f func(float64) bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		xs, err := mathArgs(th, b, args, kwargs, 1)
		if err != nil {
			return nil, err
		}
		return eval.Bool(f(xs[0])), nil
	}
}

func mathIsClose(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var av, bv eval.Value
	rel, abs := 1e-9, 0.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "a", &av, "b", &bv, "rel_tol?", &rel, "abs_tol?", &abs); err != nil {
		return nil, err
	}
	if rel < 0 || abs < 0 {
		return nil, fmt.Errorf("%s: tolerances must be non-negative", b.Name)
	}
	x, err := mathArg(th, b.Name, av)
	if err != nil {
		return nil, err
	}
	y, err := mathArg(th, b.Name, bv)
	if err != nil {
		return nil, err
	}
	if x == y {
		return eval.Bool(true), nil
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return eval.Bool(false), nil
	}
	d := math.Abs(x - y)
	return eval.Bool(d <= rel*math.Max(math.Abs(x), math.Abs(y)) || d <= abs), nil
}

// mathInts reads a math function's int arguments.
func mathInts(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg, n int) ([]int64, error) {
	if len(kwargs) > 0 || len(args) != n {
		return nil, fmt.Errorf("%s: takes %d int argument(s)", b.Name, n)
	}
	out := make([]int64, n)
	for i, a := range args {
		v, ok := th.AsInt(a)
		if !ok {
			return nil, fmt.Errorf("%s: needs ints, not %s", b.Name, eval.Describe(a))
		}
		out[i] = int64(v)
	}
	return out, nil
}

func mathGCD(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	ns, err := mathInts(th, b, args, kwargs, 2)
	if err != nil {
		return nil, err
	}
	x, y := ns[0], ns[1]
	if x == math.MinInt64 || y == math.MinInt64 {
		return nil, fmt.Errorf("%s: the result does not fit an int64", b.Name)
	}
	x, y = max(x, -x), max(y, -y)
	for y != 0 {
		x, y = y, x%y
	}
	return eval.Int(x), nil
}

func mathFactorial(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	ns, err := mathInts(th, b, args, kwargs, 1)
	if err != nil {
		return nil, err
	}
	if ns[0] < 0 {
		return nil, fmt.Errorf("%s: not defined for negative values", b.Name)
	}
	r := int64(1)
	for i := int64(2); i <= ns[0]; i++ {
		if r > math.MaxInt64/i {
			return nil, fmt.Errorf("%s: %d! does not fit an int64", b.Name, ns[0])
		}
		r *= i
	}
	return eval.Int(r), nil
}

func mathComb(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	ns, err := mathInts(th, b, args, kwargs, 2)
	if err != nil {
		return nil, err
	}
	n, k := ns[0], ns[1]
	if n < 0 || k < 0 {
		return nil, fmt.Errorf("%s: n and k must be non-negative", b.Name)
	}
	if k > n {
		return eval.Int(0), nil
	}
	// C(n, i) = C(n, i-1) * (n - i + 1) / i exactly; it grows with i up
	// to k <= n/2, so the loop stops within a few dozen steps of leaving
	// int64.
	k = min(k, n-k)
	r, limit := big.NewInt(1), big.NewInt(math.MaxInt64)
	for i := int64(1); i <= k; i++ {
		r.Mul(r, big.NewInt(n-i+1))
		r.Quo(r, big.NewInt(i))
		if r.Cmp(limit) > 0 {
			return nil, fmt.Errorf("%s: comb(%d, %d) does not fit an int64", b.Name, n, k)
		}
	}
	return eval.Int(r.Int64()), nil
}
