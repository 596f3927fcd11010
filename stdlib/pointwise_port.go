package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Pointwise functions, NaN-aware reductions and instance_norm of torch
// and torch.nn.functional that users porting code meet, composed of
// tref's ops with torch 1.13's formulas and dtype rules. Where a branch of
// a where could be NaN or infinite at the points the other branch is
// taken, its input is replaced first (the double where), so that no NaN
// leaks into a gradient.
func init() {
	register("softsign", "softsign(input): input / (1 + |input|) (integers give float32), as F.softsign", unaryChain(softsign))
	register("tanhshrink", "tanhshrink(input): input - tanh(input) (integers give float32), as F.tanhshrink", unaryChain(tanhshrink))
	register("hardshrink", "hardshrink(input, lambd=0.5): 0 where -lambd <= input <= lambd, else input (floating point; NaN stays NaN), as F.hardshrink", hardshrinkBuiltin)
	register("softshrink", "softshrink(input, lambd=0.5): input - lambd above lambd, input + lambd below -lambd, else 0 (floating point, lambd >= 0), as F.softshrink; NaN gives 0 with gradient 0 (torch passes the gradient there)", softshrinkBuiltin)
	register("threshold", "threshold(input, threshold, value): value where input <= threshold, else input (integer inputs truncate threshold and value to integers, as torch), as F.threshold", thresholdBuiltin)
	register("celu", "celu(input, alpha=1.0): input where input > 0, else alpha * (exp(input / alpha) - 1) (floating point, alpha != 0), as F.celu", celuBuiltin)
	register("prelu", "prelu(input, weight): input where input > 0, else weight * input; weight (of input's dtype, 0-d or 1-d) has 1 element or one per channel, the channels along dimension 1; gradients to input and weight as torch, as F.prelu", preluBuiltin)
	register("heaviside", "heaviside(input, values): 0 where input < 0, values where input == 0, 1 where input > 0 (NaN gives 0; input and values broadcast and must have one dtype, as torch requires), as torch.heaviside", heavisideBuiltin)
	register("deg2rad", "deg2rad(input): input * pi / 180 (integers and bools give float32), as torch.deg2rad", unaryChain(scaleBy("deg2rad", math.Pi/180)))
	register("rad2deg", "rad2deg(input): input * 180 / pi (integers and bools give float32), as torch.rad2deg", unaryChain(scaleBy("rad2deg", 180/math.Pi)))
	register("xlogy", "xlogy(input, other): input * log(other), 0 where input == 0 unless other is NaN, NaN where other is NaN (either may be a number; broadcasting; integers give float32), as torch.xlogy, with torch's gradients but at input == 0: there the gradient with respect to input is 0 at other = +inf (torch: inf), and with respect to other 0 at other = 0 (torch: NaN)", xlogyBuiltin(ops.Log, 0))
	register("sinc", "sinc(input): sin(pi·input) / (pi·input), 1 at 0 (integers give float32), as torch.sinc; near 0 value and gradient come from the series, so the gradient is exactly 0 at 0 and finite everywhere", unaryChain(sinc))
	register("float_power", "float_power(input, exponent): input ** exponent computed in float64 (either may be a number; the result is float64), as torch.float_power", floatPowerBuiltin)
	register("logspace", "logspace(start, end, steps, base=10.0, dtype=\"float32\"): base ** linspace(start, end, steps), the exponents counted from both ends as linspace, as torch.logspace", builtinLogspace)
	register("isin", "isin(elements, test_elements, invert=false, assume_unique=false): true where an element of elements equals some element of test_elements (either may be a number; dtypes promote; NaN is in nothing), negated with invert, as torch.isin (assume_unique, a hint to torch, changes nothing); it sorts test_elements and binary-searches them, so memory is O(numel(elements) + numel(test_elements)), never their product", isinBuiltin)
	register("isposinf", "isposinf(input): true where input is +inf (nowhere for integers and bools), as torch.isposinf", unaryChain(isInfSign(1)))
	register("isneginf", "isneginf(input): true where input is -inf (nowhere for integers and bools), as torch.isneginf", unaryChain(isInfSign(-1)))
	register("nansum", "nansum(input, dim=none, keepdim=false, dtype=none): sum over dim (an int or a list; every dimension when none or []) with NaN counted as 0 (integers and bools give int64; dtype= converts input first, and must be floating for a floating input), its gradient 0 at NaN, as torch.nansum", nanReduceBuiltin(false))
	register("nanmean", "nanmean(input, dim=none, keepdim=false, dtype=none): mean over dim of the elements that are not NaN (NaN where all are; floating point), its gradient 0 at NaN, as torch.nanmean (a slice of NaN alone gets gradient 0, torch's NaN)", nanReduceBuiltin(true))
	register("instance_norm", "instance_norm(input, running_mean=none, running_var=none, weight=none, bias=none, use_input_stats=true, momentum=0.1, eps=1e-5): normalise [N, C, ...] per sample and channel over the positions (group_norm with C groups), then scale and shift per channel, as F.instance_norm. "+
		"With use_input_stats=false it normalises with running_mean and running_var (batch_norm in evaluation). With running statistics and use_input_stats, since tensors are immutable, it returns {output, running_mean, running_var} with the statistics torch updates in place "+
		"((1 - momentum) * running + momentum * the mean over the samples of their statistics, the variance unbiased)", builtinInstanceNorm)
}

// notBool fails the chain when x is bool (torch's abs and sub refuse it).
func (c *chain) notBool(fname string, x *refs.Ref) bool {
	if c.Err() == nil && x.DType() == tensor.Bool {
		c.Fail(fmt.Errorf("%s: bool tensors are not supported, as in torch; use astype first", fname))
	}
	return c.Err() == nil
}

func softsign(c *chain, x *refs.Ref) *refs.Ref {
	if !c.notBool("softsign", x) {
		return nil
	}
	// torch's input / (input.abs() + 1): integers stay integers until the
	// division.
	one := c.scalar(1, x.DType())
	return c.Op(ops.Div, nil, x, c.Op(ops.Add, nil, c.Op(ops.Abs, nil, x), one))
}

func tanhshrink(c *chain, x *refs.Ref) *refs.Ref {
	if !c.notBool("tanhshrink", x) {
		return nil
	}
	return c.Op(ops.Sub, nil, x, c.Op(ops.Tanh, nil, x))
}

// shrinkArgs unpacks input and lambd of hardshrink and softshrink.
func shrinkArgs(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (*refs.Ref, float64, error) {
	var x *refs.Ref
	lambd := 0.5
	err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "lambd?", &lambd)
	return x, lambd, err
}

func hardshrinkBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	x, l, err := shrinkArgs(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) {
		return c.Result(nil)
	}
	dt := x.DType()
	inside := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Ge, nil, x, c.scalar(-l, dt)), c.Op(ops.Le, nil, x, c.scalar(l, dt)))
	return c.Result(c.Op(ops.Where, nil, inside, c.scalar(0, dt), x))
}

func softshrinkBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	x, l, err := shrinkArgs(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	if l < 0 {
		return nil, fmt.Errorf("%s: lambd must be greater or equal to 0, got %v", b.Name, l)
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) {
		return c.Result(nil)
	}
	dt := x.DType()
	lo, hi := c.scalar(-l, dt), c.scalar(l, dt)
	below := c.Op(ops.Where, nil, c.Op(ops.Lt, nil, x, lo), c.Op(ops.Add, nil, x, hi), c.scalar(0, dt))
	return c.Result(c.Op(ops.Where, nil, c.Op(ops.Gt, nil, x, hi), c.Op(ops.Sub, nil, x, hi), below))
}

func thresholdBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var limit, value float64
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "threshold", &limit, "value", &value); err != nil {
		return nil, err
	}
	c := newChain(th)
	if !c.notBool(b.Name, x) {
		return c.Result(nil)
	}
	// Both numbers take input's dtype (an integer input truncates them,
	// as torch's kernel does).
	dt := x.DType()
	return c.Result(c.Op(ops.Where, nil, c.Op(ops.Le, nil, x, c.scalar(limit, dt)), c.scalar(value, dt), x))
}

func celuBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	alpha := 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "alpha?", &alpha); err != nil {
		return nil, err
	}
	if alpha == 0 {
		return nil, fmt.Errorf("%s: alpha cannot be 0", b.Name)
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) {
		return c.Result(nil)
	}
	// torch's elu kernel with input scale 1/alpha: (exp(x · (1/alpha)) - 1)
	// · alpha for x <= 0, from an input that is 0 where x > 0 (exp could
	// overflow there).
	dt := x.DType()
	pos := c.Op(ops.Gt, nil, x, c.scalar(0, dt))
	xs := c.Op(ops.Where, nil, pos, c.scalar(0, dt), x)
	e := c.Op(ops.Exp, nil, c.Op(ops.Mul, nil, xs, c.scalar(1/alpha, dt)))
	neg := c.Op(ops.Mul, nil, c.Op(ops.Sub, nil, e, c.scalar(1, dt)), c.scalar(alpha, dt))
	return c.Result(c.Op(ops.Where, nil, pos, x, neg))
}

func preluBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, w *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "weight", &w); err != nil {
		return nil, err
	}
	xs, ws := x.Shape(), w.Shape()
	switch {
	case !x.DType().IsFloat():
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	case w.DType() != x.DType():
		return nil, fmt.Errorf("%s: the weight (%s) must have the input's dtype %s", b.Name, w.DType(), x.DType())
	case len(ws) > 1:
		return nil, fmt.Errorf("%s: expected the weight to be 0-d or 1-d, got shape %v", b.Name, ws)
	}
	wshape := tensor.Shape{} // one weight broadcasts everywhere
	if n := ws.Numel(); n != 1 {
		if len(xs) == 0 {
			return nil, fmt.Errorf("%s: a 0-d input takes a weight of one element, got shape %v", b.Name, ws)
		}
		channels := 1
		if len(xs) > 1 {
			channels = xs[1]
		}
		if n != channels {
			return nil, fmt.Errorf("%s: the weight has %d elements but the input %v has %d channels (dimension 1); it needs 1 or %d", b.Name, n, xs, channels, channels)
		}
		wshape = make(tensor.Shape, len(xs)-1)
		for i := range wshape {
			wshape[i] = 1
		}
		wshape[0] = channels
	}
	c := newChain(th)
	dt := x.DType()
	pos := c.Op(ops.Gt, nil, x, c.scalar(0, dt))
	xs0 := c.Op(ops.Where, nil, pos, c.scalar(0, dt), x)
	neg := c.Op(ops.Mul, nil, c.Reshape(w, wshape), xs0)
	return c.Result(c.Op(ops.Where, nil, pos, x, neg))
}

func heavisideBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, v *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "values", &v); err != nil {
		return nil, err
	}
	if x.DType() != v.DType() {
		return nil, fmt.Errorf("%s: input (%s) and values (%s) must have one dtype, as torch requires", b.Name, x.DType(), v.DType())
	}
	c := newChain(th)
	dt := x.DType()
	step := c.Cast(c.Op(ops.Gt, nil, x, c.scalar(0, dt)), dt)
	return c.Result(c.Op(ops.Where, nil, c.Op(ops.Eq, nil, x, c.scalar(0, dt)), v, step))
}

// scaleBy multiplies by k in the input's floating dtype (float32 for
// integers and bools), k rounded to that dtype first as torch's kernel.
func scaleBy(fname string, k float64) func(c *chain, x *refs.Ref) *refs.Ref {
	return func(c *chain, x *refs.Ref) *refs.Ref {
		x = c.floatOrF32(x)
		if c.Err() != nil {
			return nil
		}
		return c.Op(ops.Mul, nil, x, c.scalar(k, x.DType()))
	}
}

// xlogyBuiltin is xlogy (log, whose domain ends at pole 0) or xlog1py
// (log1p, pole -1).
func xlogyBuiltin(log ops.Op, pole float64) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		x, y, dt, err := binaryArgs(th, b, args, kwargs)
		if err != nil {
			return nil, err
		}
		if !dt.IsFloat() {
			dt = tensor.Float32
		}
		c := newChain(th)
		x, y = c.Cast(x, dt), c.Cast(y, dt)
		// torch's values: 0 where x == 0 unless y is NaN, else x·log(y).
		// Where also y <= pole, log reads pole + 1 instead of y (so neither
		// log(0) nor the NaN of a negative reaches a gradient) and the
		// result is 0: torch's gradient with respect to x is 0 there,
		// log(y) elsewhere.
		xZero := c.Op(ops.Eq, nil, x, c.scalar(0, dt))
		guard := c.Op(ops.BitwiseAnd, nil, xZero, c.Op(ops.Le, nil, y, c.scalar(pole, dt)))
		ys := c.Op(ops.Where, nil, guard, c.scalar(pole+1, dt), y)
		prod := c.Op(ops.Mul, nil, x, c.Op(log, nil, ys))
		// 0·inf is NaN, where torch's value is 0.
		zero := c.Op(ops.BitwiseOr, nil, guard, c.Op(ops.BitwiseAnd, nil, xZero, c.Op(ops.Isinf, nil, y)))
		return c.Result(c.Op(ops.Where, nil, zero, c.scalar(0, dt), prod))
	}
}

// sincSeries is the |pi·x| below which sinc is its series 1 - p²/6 + p⁴/120
// (p = pi·x; per dtype, so that the series' error is below the dtype's
// rounding): there sin(p)/p would differentiate with cancellation.
func sincSeries(dt tensor.DType) float64 {
	if dt == tensor.Float64 {
		return 1e-3
	}
	return 0.1
}

func sinc(c *chain, x *refs.Ref) *refs.Ref {
	x = c.floatOrF32(x)
	if c.Err() != nil {
		return nil
	}
	dt := x.DType()
	pi := c.scalar(math.Pi, dt)
	p := c.Op(ops.Mul, nil, x, pi)
	small := c.Op(ops.Lt, nil, c.Op(ops.Abs, nil, p), c.scalar(sincSeries(dt), dt))
	// Each branch reads a harmless input where the other is taken.
	pBig := c.Op(ops.Where, nil, small, c.scalar(1, dt), p)
	big := c.Op(ops.Div, nil, c.Op(ops.Sin, nil, pBig), pBig)
	pSmall := c.Op(ops.Where, nil, small, p, c.scalar(0, dt))
	q := c.Op(ops.Mul, nil, pSmall, pSmall)
	// 1 + q·(q/120 - 1/6)
	series := c.Op(ops.Add, nil, c.scalar(1, dt),
		c.Op(ops.Mul, nil, q, c.Op(ops.Sub, nil, c.Op(ops.Div, nil, q, c.scalar(120, dt)), c.scalar(1.0/6, dt))))
	return c.Op(ops.Where, nil, small, series, big)
}

func floatPowerBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, e *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "exponent", &e); err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.Op(ops.Pow, nil, c.Cast(x, tensor.Float64), c.Cast(e, tensor.Float64))))
}

func builtinLogspace(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var start, end float64
	var steps int
	base := 10.0
	var dtv eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "start", &start, "end", &end, "steps", &steps, "base?", &base, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, err := dtypeOr(b.Name, dtv, tensor.Float32)
	if err != nil {
		return nil, err
	}
	if steps < 0 {
		return nil, fmt.Errorf("%s: steps must be non-negative, got %d", b.Name, steps)
	}
	if dt == tensor.Bool {
		return nil, fmt.Errorf("%s: dtype bool is not supported", b.Name)
	}
	d, err := newHost(th, b.Name, tensor.Shape{steps}, dt)
	if err != nil {
		return nil, err
	}
	if steps == 1 {
		d.Set(0, math.Pow(base, start))
		return hostResult(th, d), nil
	}
	// torch's kernel: the exponents count up from start in the first half
	// and down from end in the second (as linspace), in float64 from start
	// and end in the result's dtype (integer ones truncated) with a step of
	// their difference, taken in that dtype, over steps-1. Floating results
	// raise the float64 base, integer ones the base rounded to float32 (in
	// float64 both), and the powers are truncated to integer dtypes.
	half := steps / 2
	var s, e, step, bs float64
	if dt.IsInt() {
		si, ei := int64(start), int64(end)
		s, e, step, bs = float64(si), float64(ei), float64(ei-si), float64(float32(base))
	} else {
		s, e, bs = ops.FloatScalar(start, dt).Float(), ops.FloatScalar(end, dt).Float(), base
		step = ops.FloatScalar(e-s, dt).Float()
	}
	step /= float64(steps - 1)
	for i := range steps {
		ex := e - step*float64(steps-i-1)
		if i < half {
			ex = s + step*float64(i)
		}
		d.Set(i, math.Pow(bs, ex))
	}
	return hostResult(th, d), nil
}

func isinBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	assumeUnique, invert := false, false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "elements", &x, "test_elements", &t, "invert?", &invert, "assume_unique?", &assumeUnique); err != nil {
		return nil, err
	}
	if x.DType() == tensor.Bool || t.DType() == tensor.Bool {
		return nil, fmt.Errorf("%s: bool tensors are not supported, as in torch (got %s and %s)", b.Name, x.DType(), t.DType())
	}
	c := newChain(th)
	m := t.Shape().Numel()
	var found *refs.Ref
	if m == 0 {
		// false everywhere, NaN included (x != x alone is true there)
		found = c.Op(ops.BitwiseAnd, nil, c.Op(ops.Ne, nil, x, x), c.Op(ops.Eq, nil, x, x))
	} else {
		dt := ops.PromoteAll([]tensor.Meta{x.Meta(), t.Meta()})
		xv := c.Cast(x, dt)
		// The sorted test elements, the place of each element among them,
		// and whether the element there equals it.
		flat := c.Reshape(c.Cast(t, dt), tensor.Shape{m})
		sorted := c.Op(ops.Gather, ops.DimAttrs{Dim: 0}, flat, c.Op(ops.Argsort, ops.SortAttrs{Dim: 0}, flat))
		if t.DType().IsFloat() {
			// NaN, sorted last, equals nothing and would send the search
			// past the values before it: the NaNs become the last other
			// value (NaN still when all are NaN, which finds nothing).
			isnan := c.Op(ops.Isnan, nil, sorted)
			k := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{0}, Keepdim: true}, c.Op(ops.LogicalNot, nil, isnan))
			k = c.Op(ops.Clamp, ops.ClampAttrs{Min: 0, HasMin: true}, c.Op(ops.Sub, nil, k, c.Constant(ops.IntScalar(1))))
			last := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, sorted, k)
			sorted = c.Op(ops.Where, nil, isnan, last, sorted)
		}
		at := c.Op(ops.Searchsorted, ops.SearchsortedAttrs{}, sorted, xv)
		at = c.Op(ops.Clamp, ops.ClampAttrs{Max: float64(m - 1), HasMax: true}, at)
		if c.Err() != nil {
			return named(b.Name)(c.Result(nil))
		}
		n := at.Shape().Numel()
		hit := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, sorted, c.Reshape(at, tensor.Shape{n}))
		found = c.Op(ops.Eq, nil, c.Reshape(hit, x.Shape()), xv)
	}
	if invert {
		found = c.Op(ops.LogicalNot, nil, found)
	}
	return named(b.Name)(c.Result(found))
}

// isInfSign is isposinf (sign 1) or isneginf (sign -1).
func isInfSign(sign float64) func(c *chain, x *refs.Ref) *refs.Ref {
	return func(c *chain, x *refs.Ref) *refs.Ref {
		if c.Err() == nil && !x.DType().IsFloat() {
			return c.Op(ops.Ne, nil, x, x) // false everywhere
		}
		return c.Op(ops.Eq, nil, x, c.scalar(math.Inf(int(sign)), x.DType()))
	}
}

// nanReduceBuiltin is nansum, or nanmean (mean).
func nanReduceBuiltin(mean bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		dim := eval.None
		keepdim := false
		var dtv eval.Value
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim, "keepdim?", &keepdim, "dtype?", &dtv); err != nil {
			return nil, err
		}
		dims, err := dimsArg(th, b.Name, dim, true)
		if err != nil {
			return nil, err
		}
		dt, set, err := optDType(b.Name, dtv)
		if err != nil {
			return nil, err
		}
		if mean && !x.DType().IsFloat() {
			return nil, fmt.Errorf("%s: expected a floating-point input, got %s", b.Name, x.DType())
		}
		if set && !dt.IsFloat() && (mean || x.DType().IsFloat()) {
			return nil, fmt.Errorf("%s: dtype must be floating point, got %s", b.Name, dt)
		}
		c := newChain(th)
		if set {
			x = c.Cast(x, dt)
		}
		attrs := ops.ReduceAttrs{Dims: dims, Keepdim: keepdim}
		if c.Err() != nil || !x.DType().IsFloat() {
			// sum's result (int64 for integers), in dtype when given
			sum := c.Op(ops.Sum, attrs, x)
			if set {
				sum = c.Cast(sum, dt)
			}
			return named(b.Name)(c.Result(sum))
		}
		isnan := c.Op(ops.Isnan, nil, x)
		sum := c.Op(ops.Sum, attrs, c.Op(ops.Where, nil, isnan, c.scalar(0, x.DType()), x))
		if !mean {
			return named(b.Name)(c.Result(sum))
		}
		count := c.Op(ops.Sum, attrs, c.Op(ops.LogicalNot, nil, isnan))
		return named(b.Name)(c.Result(c.Op(ops.Div, nil, sum, c.Cast(count, x.DType()))))
	}
}

func builtinInstanceNorm(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var rmv, rvv, wv, bv eval.Value = eval.None, eval.None, eval.None, eval.None
	useInput := true
	momentum, eps := 0.1, 1e-5
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "running_mean?", &rmv, "running_var?", &rvv,
		"weight?", &wv, "bias?", &bv, "use_input_stats?", &useInput, "momentum?", &momentum, "eps?", &eps); err != nil {
		return nil, err
	}
	xs := x.Shape()
	if len(xs) < 2 {
		return nil, fmt.Errorf("%s: expected an input of shape [N, C, ...], got %v", b.Name, xs)
	}
	channels := xs[1]
	named4 := []string{"running_mean", "running_var", "weight", "bias"}
	var given [4]*refs.Ref
	for i, v := range []eval.Value{rmv, rvv, wv, bv} {
		r, err := optionalTensor(th, b.Name, named4[i], v)
		if err != nil {
			return nil, err
		}
		if r != nil && !r.Shape().Equal(tensor.Shape{channels}) {
			return nil, fmt.Errorf("%s: input %v has %d channels, but %s has shape %v", b.Name, xs, channels, named4[i], r.Shape())
		}
		given[i] = r
	}
	rm, rv := given[0], given[1]
	if (rm == nil) != (rv == nil) {
		return nil, fmt.Errorf("%s: running_mean and running_var must both be tensors or both none", b.Name)
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	}
	if !useInput {
		if rm == nil {
			return nil, fmt.Errorf("%s: running_mean and running_var must be tensors when use_input_stats is false", b.Name)
		}
		// batch_norm in evaluation: the running statistics per channel.
		return named(b.Name)(builtinBatchNorm(th, nil, []eval.Value{eval.Tensor{Ref: x}, rmv, rvv, wv, bv},
			[]eval.Kwarg{{Name: "eps", Value: eval.Float64(eps)}}))
	}
	positions := 1
	for _, n := range xs[2:] {
		positions *= n
	}
	if positions == 1 {
		return nil, fmt.Errorf("%s: expected more than 1 spatial element when using the input's statistics, got input of shape %v", b.Name, xs)
	}
	// group_norm with one group per channel normalises each instance.
	out, err := builtinGroupNorm(th, nil, []eval.Value{eval.Tensor{Ref: x}, eval.Int(channels), wv, bv},
		[]eval.Kwarg{{Name: "eps", Value: eval.Float64(eps)}})
	if err != nil || rm == nil {
		return named(b.Name)(out, err)
	}
	c := newChain(th)
	c.Keep(out.(eval.Tensor).Ref)
	// The per-instance statistics over the positions, averaged over the
	// samples: what torch's running statistics, repeated per sample and
	// updated by batch_norm, average back to.
	dims := make([]int, 0, len(xs)-2)
	for d := 2; d < len(xs); d++ {
		dims = append(dims, d)
	}
	update := func(running *refs.Ref, stat ops.Op) *refs.Ref {
		if c.Err() != nil {
			return nil
		}
		s := c.Op(ops.Mean, ops.ReduceAttrs{Dims: []int{0}}, c.Op(stat, ops.ReduceAttrs{Dims: dims, Correction: 1}, x))
		rdt := running.DType()
		kept := c.Op(ops.Mul, nil, running, c.scalar(1-momentum, rdt))
		return c.Op(ops.Add, nil, kept, c.Op(ops.Mul, nil, c.Cast(s, rdt), c.scalar(momentum, rdt)))
	}
	var newMean, newVar *refs.Ref
	c.detached(func() *refs.Ref {
		newMean = update(rm, ops.Mean)
		newVar = update(rv, ops.Var)
		return nil
	})
	return named(b.Name)(c.Record([]string{"output", "running_mean", "running_var"}, out.(eval.Tensor).Ref, newMean, newVar))
}
