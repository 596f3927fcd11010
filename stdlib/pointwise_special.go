package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// More pointwise functions and reductions of torch and torch.special that
// users porting code meet (fmax, ldexp, frexp, xlog1py, entr, aminmax,
// nanmedian, renorm, ...), composed of tref's ops with torch 1.13's
// formulas and dtype rules, so that their gradients come from the ops.
// As in pointwise_port.go, a branch of a where that could be NaN or
// infinite where the other is taken reads a harmless input there.
func init() {
	register("fmax", "fmax(input, other): the larger of input and other elementwise, ignoring NaN (NaN only where both are; a tie gives input); broadcasting, either may be a number, dtypes promote; the gradient goes to the chosen side, as torch.fmax", fextremeBuiltin(ops.Ge))
	register("fmin", "fmin(input, other): the smaller of input and other elementwise, ignoring NaN (NaN only where both are; a tie gives input); broadcasting, either may be a number, dtypes promote; the gradient goes to the chosen side, as torch.fmin", fextremeBuiltin(ops.Le))
	register("ldexp", "ldexp(input, other): input * 2 ** other, the power in other's floating dtype (float32 for integers and bools) before promoting with input, as torch.ldexp", ldexpBuiltin)
	register("frexp", "frexp(input): {mantissa, exponent} with input = mantissa * 2 ** exponent, |mantissa| in [0.5, 1) and exponent int32 (floating point; 0, the infinities and NaN are their own mantissa with exponent 0; subnormals included), as torch.frexp", frexpBuiltin)
	register("signbit", "signbit(input): true where input's sign bit is set: below 0, -0.0 and NaNs with the sign set (false for bools), as torch.signbit", unaryChain(signbit))
	register("logaddexp2", "logaddexp2(input, other): log2(2 ** input + 2 ** other) as max + log1p(2 ** -|input - other|) / ln 2 (equal infinities give themselves; broadcasting, dtypes promote and must end floating point), as torch.logaddexp2", logaddexp2Builtin)
	register("xlog1py", "xlog1py(input, other): input * log1p(other), 0 where input == 0 unless other is NaN, NaN where other is NaN (either may be a number; broadcasting; integers give float32), as torch.special.xlog1py, with torch's gradients but at input == 0: there the gradient with respect to input is 0 at other = +inf (torch: inf), and with respect to other 0 at other = -1 (torch: NaN)", xlogyBuiltin(ops.Log1p, -1))
	register("entr", "entr(input): -input * ln(input) above 0, 0 at 0, -inf below 0, NaN for NaN (integers give float32), as torch.special.entr; the gradient -(1 + ln(input)) above 0 and 0 elsewhere (torch: inf at 0, NaN below 0 and at NaN)", unaryChain(entr))
	register("expit", "expit(input): sigmoid(input), 1 / (1 + exp(-input)) (integers give float32), as torch.special.expit", unaryBuiltin(ops.Sigmoid))
	register("aminmax", "aminmax(input, dim=none, keepdim=false): {min, max}, amin and amax over the int dim or every dimension (NaN propagates; r[0], r[1] too), as torch.aminmax; differentiable as amin and amax (ties share the gradient), where torch 1.13 has no gradient", aminmaxBuiltin)
	register("nanmedian", "nanmedian(input, dim=none, keepdim=false): the lower of the two middle values that are not NaN (NaN only where all are); with an int dim, {values, indices} over dim (r[0], r[1] too), the index that of the ((k-1)/2)-th of the k values in stable sorted order, or of the first NaN where all are NaN (torch's is arbitrary there); without dim the gradient is shared evenly among the elements equal to the result, as torch.nanmedian", medianBuiltin(true))
	register("msort", "msort(input): input sorted along dimension 0 (values only; stable, NaN last; a 0-d input is itself), as torch.msort", unaryChain(msort))
	register("renorm", "renorm(input, p, dim, maxnorm): input with each slice along dim (input[i] for dim 0) whose p-norm over the other dimensions exceeds maxnorm scaled by maxnorm / (norm + 1e-7), the others unchanged (floating point, 2 or more dimensions, p > 0, maxnorm >= 0); differentiable through the norm as torch's renorm_backward, the gradient passing unchanged through the other slices", renormBuiltin)
}

// binaryArgs unpacks the input and other of a pointwise builtin of two
// tensors, checks that they broadcast and gives their promoted dtype.
func binaryArgs(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (x, y *refs.Ref, dt tensor.DType, err error) {
	if err = eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "other", &y); err != nil {
		return nil, nil, 0, err
	}
	if _, err = ops.BroadcastShapes(x.Shape(), y.Shape()); err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %v", b.Name, err)
	}
	return x, y, tensor.ResultType(x.Meta(), y.Meta()), nil
}

// fextremeBuiltin is fmax (cmp Ge) or fmin (Le): input where it compares
// so with other or other is NaN, else other; torch's gradient masks are
// the same.
func fextremeBuiltin(cmp ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		x, y, dt, err := binaryArgs(th, b, args, kwargs)
		if err != nil {
			return nil, err
		}
		c := newChain(th)
		x, y = c.Cast(x, dt), c.Cast(y, dt)
		keep := c.Op(cmp, nil, x, y)
		if dt.IsFloat() {
			keep = c.Op(ops.BitwiseOr, nil, keep, c.Op(ops.Isnan, nil, y))
		}
		return named(b.Name)(c.Result(c.Op(ops.Where, nil, keep, x, y)))
	}
}

func ldexpBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	x, y, _, err := binaryArgs(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	// torch's mul(input, pow(2.0, other)): the power is float32 for an
	// integer other, and the product promotes.
	c := newChain(th)
	return named(b.Name)(c.Result(c.Op(ops.Mul, nil, x, exp2(c, y))))
}

func frexpBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
		return nil, err
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	}
	c := newChain(th)
	dt := x.DType()
	one := c.scalar(1, dt)
	// 0, the infinities and NaN are their own mantissa with exponent 0;
	// the steps below read 1 in their place.
	special := c.Op(ops.BitwiseOr, nil, c.Op(ops.Eq, nil, x, c.scalar(0, dt)), c.Op(ops.LogicalNot, nil, isfinite(c, x)))
	xs := c.Op(ops.Where, nil, special, one, x)
	// The exponent from log2, which may be one off near a power of two
	// (corrected below), and x·2^-e in two factors, each finite for
	// subnormal and for the largest x, so that the product is exact.
	e := c.Op(ops.Add, nil, c.Op(ops.Floor, nil, c.Op(ops.Log2, nil, c.Op(ops.Abs, nil, xs))), one)
	h := c.Op(ops.Floor, nil, c.Op(ops.Mul, nil, e, c.scalar(0.5, dt)))
	m := c.Op(ops.Mul, nil, c.Op(ops.Mul, nil, xs, exp2(c, c.Op(ops.Neg, nil, h))), exp2(c, c.Op(ops.Sub, nil, h, e)))
	am := c.Op(ops.Abs, nil, m)
	up, down := c.Op(ops.Ge, nil, am, one), c.Op(ops.Lt, nil, am, c.scalar(0.5, dt))
	m = c.Op(ops.Where, nil, up, c.Op(ops.Mul, nil, m, c.scalar(0.5, dt)), c.Op(ops.Where, nil, down, c.Op(ops.Mul, nil, m, c.scalar(2, dt)), m))
	e = c.Op(ops.Sub, nil, c.Op(ops.Add, nil, e, c.Cast(up, dt)), c.Cast(down, dt))
	mant := c.Op(ops.Where, nil, special, x, m)
	exp := c.Cast(c.Op(ops.Where, nil, special, c.scalar(0, dt), e), tensor.Int32)
	return named(b.Name)(c.Record([]string{"mantissa", "exponent"}, mant, exp))
}

func signbit(c *chain, x *refs.Ref) *refs.Ref {
	if c.Err() == nil && !x.DType().IsFloat() {
		return c.Op(ops.Lt, nil, x, c.Constant(ops.IntScalar(0)))
	}
	// copysign reads the sign bit, of -0.0 and NaN too.
	return c.Op(ops.Lt, nil, c.Op(ops.Copysign, nil, c.scalar(1, x.DType()), x), c.scalar(0, x.DType()))
}

func logaddexp2Builtin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	x, y, dt, err := binaryArgs(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	if !dt.IsFloat() {
		return nil, fmt.Errorf("%s: the inputs must be floating point, got %s and %s", b.Name, x.DType(), y.DType())
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.logAddExp(c.Cast(x, dt), c.Cast(y, dt), true)))
}

func entr(c *chain, x *refs.Ref) *refs.Ref {
	x = c.floatOrF32(x)
	if c.Err() != nil {
		return nil
	}
	dt := x.DType()
	pos := c.Op(ops.Gt, nil, x, c.scalar(0, dt))
	xs := c.Op(ops.Where, nil, pos, x, c.scalar(1, dt))
	v := c.Op(ops.Mul, nil, c.Op(ops.Neg, nil, xs), c.Op(ops.Log, nil, xs))
	// -inf below 0, 0 at 0, and NaN for NaN
	rest := c.Op(ops.Where, nil, c.Op(ops.Eq, nil, x, c.scalar(0, dt)), c.scalar(0, dt), c.scalar(math.NaN(), dt))
	rest = c.Op(ops.Where, nil, c.Op(ops.Lt, nil, x, c.scalar(0, dt)), c.scalar(math.Inf(-1), dt), rest)
	return c.Op(ops.Where, nil, pos, v, rest)
}

func aminmaxBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	dim := eval.None
	keepdim := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim, "keepdim?", &keepdim); err != nil {
		return nil, err
	}
	dims, err := dimsArg(th, b.Name, dim, false)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	attrs := ops.ReduceAttrs{Dims: dims, Keepdim: keepdim}
	return named(b.Name)(c.Record([]string{"min", "max"}, c.Op(ops.Min, attrs, x), c.Op(ops.Max, attrs, x)))
}

func msort(c *chain, x *refs.Ref) *refs.Ref {
	if c.Err() != nil || len(x.Shape()) == 0 {
		return x
	}
	return c.Op(ops.Gather, ops.DimAttrs{Dim: 0}, x, c.Op(ops.Argsort, ops.SortAttrs{Dim: 0}, x))
}

func renormBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var p, maxnorm float64
	var dim int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "p", &p, "dim", &dim, "maxnorm", &maxnorm); err != nil {
		return nil, err
	}
	s := x.Shape()
	switch {
	case !x.DType().IsFloat():
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	case len(s) < 2:
		return nil, fmt.Errorf("%s: the input needs at least 2 dimensions, got shape %v", b.Name, s)
	case !(p > 0):
		return nil, fmt.Errorf("%s: p must be positive, got %v (torch: non-positive-norm not supported)", b.Name, p)
	case !(maxnorm >= 0):
		return nil, fmt.Errorf("%s: maxnorm must be >= 0, got %v", b.Name, maxnorm)
	}
	d, err := dimOf(b.Name, dim, s)
	if err != nil {
		return nil, err
	}
	others := make([]int, 0, len(s)-1)
	for i := range s {
		if i != d {
			others = append(others, i)
		}
	}
	// torch's factor, in input's dtype: maxnorm / (norm + 1e-7) where the
	// norm exceeds maxnorm (not where it is NaN), else 1. The norm that
	// is differentiated reads ones in the other slices, so that a NaN
	// there reaches no gradient (torch passes the gradient through them).
	c := newChain(th)
	dt := x.DType()
	attrs := ops.VectorNormAttrs{P: p, Dims: others, Keepdim: true}
	lim := c.scalar(maxnorm, dt)
	big := c.detached(func() *refs.Ref { return c.Op(ops.Gt, nil, c.Op(ops.Norm, attrs, x), lim) })
	n := c.Op(ops.Norm, attrs, c.Op(ops.Where, nil, big, x, c.scalar(1, dt)))
	scale := c.Op(ops.Div, nil, lim, c.Op(ops.Add, nil, n, c.scalar(1e-7, dt)))
	factor := c.Op(ops.Where, nil, big, scale, c.scalar(1, dt))
	return named(b.Name)(c.Result(c.Op(ops.Mul, nil, x, factor)))
}
