package stdlib

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch.nn.init's weight initializers. torch fills its tensor argument in
// place; tref's tensors are values, so each initializer returns a new
// tensor of the argument's shape and dtype, filled as torch would fill it
// (only the argument's shape and dtype are read, never its data). The
// random ones draw from the thread's seeded stream exactly as rand and
// randn do (one float32 draw per element, float64 draws for a float64
// tensor; half types are drawn as float32 and rounded), so a seed repeats
// them on every device: after seed(n), uniform_(w) is rand(w.shape) and
// normal_(w) is randn(w.shape). The numbers are not torch's. Arguments
// are checked before anything is drawn, so a failed call leaves the stream
// where it was. Their results are constants to grad (torch fills under
// no_grad).
func init() {
	register("calculate_gain", "calculate_gain(nonlinearity, param=none): the recommended gain of a nonlinearity, as torch.nn.init.calculate_gain: 1 (an int) for \"linear\", \"conv1d\", \"conv2d\", \"conv3d\", \"conv_transpose1d\", \"conv_transpose2d\", \"conv_transpose3d\" and \"sigmoid\"; 5/3 for \"tanh\", sqrt(2) for \"relu\", sqrt(2 / (1 + negative_slope^2)) for \"leaky_relu\" (param is negative_slope, a number, default 0.01), 3/4 for \"selu\" (float64 numbers)", calculateGainBuiltin)
	register("uniform_", "uniform_(tensor, a=0.0, b=1.0): a new tensor of tensor's shape and floating-point dtype holding uniform values in [a, b), as torch.nn.init.uniform_ fills tensor in place (tref's tensors are values: use the result); a <= b, both finite; from the seeded stream of rand", uniformInitBuiltin)
	register("normal_", "normal_(tensor, mean=0.0, std=1.0): a new tensor of tensor's shape and floating-point dtype holding normal values of mean and standard deviation std (>= 0), as torch.nn.init.normal_ fills tensor in place; from the seeded stream of randn", normalInitBuiltin)
	register("trunc_normal_", "trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0): a new tensor of tensor's shape and floating-point dtype holding values of the normal distribution of mean and std (> 0) truncated to [a, b], as torch.nn.init.trunc_normal_: by torch's inverse-CDF method (uniforms between the normal CDF at a and at b, from the seeded stream of rand, through erfinv, computed in float64, then clamped to [a, b]); best when a <= mean <= b", truncNormalInitBuiltin)
	register("constant_", "constant_(tensor, val): a new tensor of tensor's shape and dtype filled with val, as torch.nn.init.constant_ fills tensor in place (a float val for an integer tensor is truncated; a value the dtype cannot hold is an error, as torch's)", constantInitBuiltin)
	register("ones_", "ones_(tensor): a new tensor of tensor's shape and dtype filled with ones, as torch.nn.init.ones_", fillInitBuiltin(1))
	register("zeros_", "zeros_(tensor): a new tensor of tensor's shape and dtype filled with zeros, as torch.nn.init.zeros_", fillInitBuiltin(0))
	register("eye_", "eye_(tensor): the identity matrix in the shape and dtype of the 2-d tensor (ones at [i, i] for i < min(rows, cols)), as torch.nn.init.eye_", eyeInitBuiltin)
	register("dirac_", "dirac_(tensor, groups=1): the Dirac delta in the shape and dtype of the 3-, 4- or 5-d convolution weight tensor [out, in, k...]: zeros but for a one at the centre tap [g*out/groups + d, d, k/2...] for each group g and d < min(out/groups, in), so a convolution with it keeps its input channels; out must be divisible by groups; as torch.nn.init.dirac_", diracInitBuiltin)
	register("xavier_uniform_", "xavier_uniform_(tensor, gain=1.0): a new tensor of tensor's shape and floating-point dtype holding uniform values in [-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out)) (Glorot initialization), as torch.nn.init.xavier_uniform_; fan_in is tensor.shape[1] and fan_out tensor.shape[0], each times the product of the dimensions after the first two (at least 2 dimensions); from the seeded stream of rand", xavierInitBuiltin(false))
	register("xavier_normal_", "xavier_normal_(tensor, gain=1.0): a new tensor of tensor's shape and floating-point dtype holding normal values of mean 0 and std gain * sqrt(2 / (fan_in + fan_out)) (Glorot initialization), as torch.nn.init.xavier_normal_ (fans as xavier_uniform_'s); from the seeded stream of randn", xavierInitBuiltin(true))
	register("kaiming_uniform_", "kaiming_uniform_(tensor, a=0, mode=\"fan_in\", nonlinearity=\"leaky_relu\"): a new tensor of tensor's shape and floating-point dtype holding uniform values in [-bound, bound), bound = gain * sqrt(3 / fan) (He initialization), as torch.nn.init.kaiming_uniform_: fan is fan_in or fan_out by mode (as xavier_uniform_'s), gain is calculate_gain(nonlinearity, a) (a: the negative slope of leaky_relu); a tensor with no elements is returned as it is; from the seeded stream of rand", kaimingInitBuiltin(false))
	register("kaiming_normal_", "kaiming_normal_(tensor, a=0, mode=\"fan_in\", nonlinearity=\"leaky_relu\"): a new tensor of tensor's shape and floating-point dtype holding normal values of mean 0 and std gain / sqrt(fan) (He initialization), as torch.nn.init.kaiming_normal_ (fan and gain as kaiming_uniform_'s); from the seeded stream of randn", kaimingInitBuiltin(true))
	register("orthogonal_", "orthogonal_(tensor, gain=1.0): a (semi-)orthogonal matrix times gain in the shape and floating-point dtype of tensor (at least 2 dimensions, those after the first flattened: rows = shape[0], cols = the rest), as torch.nn.init.orthogonal_: the Q of the QR factorization of a rows x cols standard normal matrix (transposed when rows < cols) with its columns' signs those of R's diagonal, so w @ w.T is gain^2 * I when rows <= cols and w.T @ w otherwise; the normals from the seeded stream of randn", orthogonalInitBuiltin)
	register("sparse_", "sparse_(tensor, sparsity, std=0.01): a new tensor of the 2-d tensor's shape and floating-point dtype holding normal values of mean 0 and std, with ceil(sparsity * rows) of each column's elements (at random rows) set to zero, as torch.nn.init.sparse_; sparsity in [0, 1] (a float32 sparsity counts as the decimal it prints as: 0.4 of 5 rows is 2); from the seeded stream of randn and randperm", sparseInitBuiltin)
	// torch.nn.init's deprecated names without the underscore (normal and
	// eye are tref's torch.normal and torch.eye).
	for _, name := range []string{"uniform", "constant", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"} {
		registerAlias(name, name+"_", "torch.nn.init."+name)
	}
}

// gainLinear are the nonlinearities whose gain is 1 (with "sigmoid").
var gainLinear = []string{"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid"}

// calculateGain is torch.nn.init.calculate_gain; one says whether the
// gain is the int 1.
func calculateGain(th *eval.Thread, fname, nonlinearity string, param eval.Value) (gain float64, one bool, err error) {
	for _, n := range gainLinear {
		if nonlinearity == n {
			return 1, true, nil
		}
	}
	switch nonlinearity {
	case "tanh":
		return 5.0 / 3, false, nil
	case "relu":
		return math.Sqrt(2.0), false, nil
	case "leaky_relu":
		slope := 0.01
		switch p := param.(type) {
		case nil, eval.NoneType:
		case eval.Int, eval.Float32, eval.Float64:
			slope, _ = th.AsFloat(p)
		case eval.Tensor:
			// a number computed by an op (a 0-d tensor); bool is no slope.
			v, ok := th.AsFloat(p)
			if !ok || p.Ref.DType() == tensor.Bool {
				return 0, false, fmt.Errorf("%s: negative_slope %s not a valid number", fname, eval.Describe(p))
			}
			slope = v
		case eval.Bool, eval.String:
			return 0, false, fmt.Errorf("%s: negative_slope %s not a valid number", fname, eval.Format(p))
		default:
			return 0, false, fmt.Errorf("%s: negative_slope %s not a valid number", fname, eval.Describe(p))
		}
		return math.Sqrt(2.0 / (1 + slope*slope)), false, nil
	case "selu":
		return 3.0 / 4, false, nil
	}
	return 0, false, fmt.Errorf("%s: Unsupported nonlinearity %s", fname, nonlinearity)
}

func calculateGainBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var nonlinearity string
	var param eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "nonlinearity", &nonlinearity, "param?", &param); err != nil {
		return nil, err
	}
	g, one, err := calculateGain(th, b.Name, nonlinearity, param)
	if err != nil {
		return nil, err
	}
	if one {
		return eval.Int(1), nil
	}
	return eval.Float64(g), nil
}

// floatTarget refuses a tensor that a random initializer cannot fill.
func floatTarget(fname string, x *refs.Ref) error {
	if !x.DType().IsFloat() {
		return fmt.Errorf("%s: the tensor must be floating point, got %v", fname, x.Meta())
	}
	return nil
}

// initFans is torch's _calculate_fan_in_and_fan_out: shape[1] and
// shape[0], each times the product of the dimensions after the first two
// (in float64, which cannot overflow).
func initFans(fname string, s tensor.Shape) (fanIn, fanOut float64, err error) {
	if len(s) < 2 {
		return 0, 0, fmt.Errorf("%s: Fan in and fan out can not be computed for tensor with fewer than 2 dimensions (got shape %v)", fname, s)
	}
	field := 1.0
	for _, d := range s[2:] {
		field *= float64(d)
	}
	return float64(s[1]) * field, float64(s[0]) * field, nil
}

// drawFloats fills the floating-point d from the thread's stream as rand
// (normal false) or randn do, then maps every value through f.
func drawFloats(th *eval.Thread, d *tensor.Dense, normal bool, f func(float64) float64) {
	src := th.Rand()
	if d.DType == tensor.Float64 {
		v := d.F64()
		if normal {
			src.FillNormal64(v)
		} else {
			src.FillUniform64(v)
		}
		for i, x := range v {
			v[i] = f(x)
		}
		return
	}
	var v []float32
	if d.DType == tensor.Float32 {
		v = d.F32()
	} else {
		v = make([]float32, d.Numel())
	}
	if normal {
		src.FillNormal32(v)
	} else {
		src.FillUniform32(v)
	}
	if d.DType == tensor.Float32 {
		for i, x := range v {
			v[i] = float32(f(float64(x)))
		}
		return
	}
	for i, x := range v {
		d.Set(i, f(float64(x)))
	}
}

// uniformFill is torch's uniform_(lo, hi) on a tensor of shape s and the
// floating-point dtype dt: its checks of the bounds, then lo + (hi - lo)
// * u for the uniforms u of rand, computed in float64.
func uniformFill(th *eval.Thread, fname string, s tensor.Shape, dt tensor.DType, lo, hi float64) (eval.Value, error) {
	top := dt.MaxFinite()
	switch {
	case !(math.Abs(lo) <= top):
		return nil, fmt.Errorf("%s: a=%v is out of bounds for %s", fname, lo, dt)
	case !(math.Abs(hi) <= top):
		return nil, fmt.Errorf("%s: b=%v is out of bounds for %s", fname, hi, dt)
	case lo > hi:
		return nil, fmt.Errorf("%s: expects a <= b (torch's [from, to) range), but found a=%v > b=%v", fname, lo, hi)
	case !(hi-lo <= top):
		return nil, fmt.Errorf("%s: b - a must be at most the largest %s (%v), got a=%v and b=%v", fname, dt, top, lo, hi)
	}
	d, err := newHost(th, fname, s, dt)
	if err != nil {
		return nil, err
	}
	w := hi - lo
	drawFloats(th, d, false, func(u float64) float64 { return lo + w*u })
	return hostResult(th, d), nil
}

// normalFill is torch's normal_(mean, std) on a tensor of shape s and the
// floating-point dtype dt: mean + std * z for the normals z of randn.
func normalFill(th *eval.Thread, fname string, s tensor.Shape, dt tensor.DType, mean, std float64) (eval.Value, error) {
	if !(std >= 0) {
		return nil, fmt.Errorf("%s: std must be >= 0, got %v", fname, std)
	}
	d, err := newHost(th, fname, s, dt)
	if err != nil {
		return nil, err
	}
	drawFloats(th, d, true, func(z float64) float64 { return mean + std*z })
	return hostResult(th, d), nil
}

func uniformInitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	lo, hi := 0.0, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "a?", &lo, "b?", &hi); err != nil {
		return nil, err
	}
	if err := floatTarget(b.Name, x); err != nil {
		return nil, err
	}
	return uniformFill(th, b.Name, x.Shape(), x.DType(), lo, hi)
}

func normalInitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	mean, std := 0.0, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "mean?", &mean, "std?", &std); err != nil {
		return nil, err
	}
	if err := floatTarget(b.Name, x); err != nil {
		return nil, err
	}
	return normalFill(th, b.Name, x.Shape(), x.DType(), mean, std)
}

func truncNormalInitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	mean, std, lo, hi := 0.0, 1.0, -2.0, 2.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "mean?", &mean, "std?", &std, "a?", &lo, "b?", &hi); err != nil {
		return nil, err
	}
	if err := floatTarget(b.Name, x); err != nil {
		return nil, err
	}
	switch {
	case math.IsNaN(mean) || math.IsInf(mean, 0):
		return nil, fmt.Errorf("%s: mean must be finite, got %v", b.Name, mean)
	case !(std > 0) || math.IsInf(std, 0):
		return nil, fmt.Errorf("%s: std must be positive and finite, got %v", b.Name, std)
	case math.IsNaN(lo) || math.IsNaN(hi):
		return nil, fmt.Errorf("%s: a and b must be numbers, got %v and %v", b.Name, lo, hi)
	case lo > hi:
		return nil, fmt.Errorf("%s: expects a <= b, but found a=%v > b=%v", b.Name, lo, hi)
	}
	// torch: uniforms in [2 cdf(a) - 1, 2 cdf(b) - 1], through erfinv, to
	// the normal's quantiles, clamped to [a, b] against rounding.
	cdf := func(v float64) float64 { return (1 + math.Erf((v-mean)/std/math.Sqrt2)) / 2 }
	l, u := 2*cdf(lo)-1, 2*cdf(hi)-1
	d, err := newHost(th, b.Name, x.Shape(), x.DType())
	if err != nil {
		return nil, err
	}
	drawFloats(th, d, false, func(r float64) float64 {
		v := math.Erfinv(l+(u-l)*r)*std*math.Sqrt2 + mean
		return min(max(v, lo), hi)
	})
	return hostResult(th, d), nil
}

// fillValue is the scalar that fills a tensor of dtype dt with the number
// v (an argument value), as torch's fill_: an error where dt cannot hold
// it (out of range, or not finite for an integer dtype; an unsigned one
// takes negative values down to -max, wrapped, as torch's).
func fillValue(th *eval.Thread, fname string, v eval.Value, dt tensor.DType) (ops.Scalar, error) {
	f, ok := th.AsFloat(v)
	if !ok {
		return ops.Scalar{}, fmt.Errorf("%s: argument \"val\" must be a number, not %s", fname, eval.Describe(v))
	}
	overflow := fmt.Errorf("%s: value cannot be converted to type %s without overflow (got %v)", fname, dt, f)
	switch {
	case dt == tensor.Bool:
	case dt.IsFloat():
		if !math.IsInf(f, 0) && math.Abs(f) > dt.MaxFinite() {
			return ops.Scalar{}, overflow
		}
	case dt == tensor.Int64:
		if n, isInt := v.(eval.Int); isInt {
			return ops.IntScalar(int64(n)), nil // exact beyond 2^53
		}
		if !(f >= -(1<<63) && f < 1<<63) {
			return ops.Scalar{}, overflow
		}
	case dt == tensor.Uint64:
		if !(f >= -(1<<63) && f < 1<<64) {
			return ops.Scalar{}, overflow
		}
	default:
		lo, hi := randintRange(dt)
		if dt == tensor.Uint8 || dt == tensor.Uint16 || dt == tensor.Uint32 {
			lo = -hi
		}
		if !(f >= lo && f <= hi) {
			return ops.Scalar{}, overflow
		}
	}
	return ops.FloatScalar(f, dt), nil
}

func constantInitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var val eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "val", &val); err != nil {
		return nil, err
	}
	s, err := fillValue(th, b.Name, val, x.DType())
	if err != nil {
		return nil, err
	}
	return submitFull(th, b.Name, x.Shape(), s)
}

// fillInitBuiltin is ones_ or zeros_.
func fillInitBuiltin(v float64) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x); err != nil {
			return nil, err
		}
		return submitFull(th, b.Name, x.Shape(), ops.FloatScalar(v, x.DType()))
	}
}

func eyeInitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x); err != nil {
		return nil, err
	}
	s := x.Shape()
	if len(s) != 2 {
		return nil, fmt.Errorf("%s: Only tensors with 2 dimensions are supported (got shape %v)", b.Name, s)
	}
	d, err := identity(th, b.Name, s[0], s[1], x.DType())
	if err != nil {
		return nil, err
	}
	return hostResult(th, d), nil
}

func diracInitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	groups := 1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "groups?", &groups); err != nil {
		return nil, err
	}
	s := x.Shape()
	switch {
	case len(s) < 3 || len(s) > 5:
		return nil, fmt.Errorf("%s: Only tensors with 3, 4, or 5 dimensions are supported (got shape %v)", b.Name, s)
	case groups < 1:
		return nil, fmt.Errorf("%s: groups must be positive, got %d", b.Name, groups)
	case s[0]%groups != 0:
		return nil, fmt.Errorf("%s: dim 0 must be divisible by groups (got %d and groups=%d)", b.Name, s[0], groups)
	}
	d, err := newHost(th, b.Name, s, x.DType())
	if err != nil {
		return nil, err
	}
	if s.Numel() == 0 {
		return hostResult(th, d), nil
	}
	perGroup := s[0] / groups
	strides := s.Strides()
	centre := 0
	for k := 2; k < len(s); k++ {
		centre += s[k] / 2 * strides[k]
	}
	for g := range groups {
		for i := range min(perGroup, s[1]) {
			d.Set((g*perGroup+i)*strides[0]+i*strides[1]+centre, 1)
		}
	}
	return hostResult(th, d), nil
}

// xavierInitBuiltin is xavier_uniform_ or (normal) xavier_normal_.
func xavierInitBuiltin(normal bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		gain := 1.0
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "gain?", &gain); err != nil {
			return nil, err
		}
		fanIn, fanOut, err := initFans(b.Name, x.Shape())
		if err != nil {
			return nil, err
		}
		if err := floatTarget(b.Name, x); err != nil {
			return nil, err
		}
		switch {
		case !(gain >= 0) || math.IsInf(gain, 0):
			return nil, fmt.Errorf("%s: gain must be a non-negative finite number, got %v", b.Name, gain)
		case fanIn+fanOut == 0:
			return nil, fmt.Errorf("%s: fan_in + fan_out is 0 for a tensor of shape %v (torch divides by zero)", b.Name, x.Shape())
		}
		std := gain * math.Sqrt(2.0/(fanIn+fanOut))
		if normal {
			return normalFill(th, b.Name, x.Shape(), x.DType(), 0, std)
		}
		bound := math.Sqrt(3.0) * std
		return uniformFill(th, b.Name, x.Shape(), x.DType(), -bound, bound)
	}
}

// kaimingInitBuiltin is kaiming_uniform_ or (normal) kaiming_normal_.
func kaimingInitBuiltin(normal bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var a eval.Value = eval.Int(0)
		mode, nonlinearity := "fan_in", "leaky_relu"
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "a?", &a, "mode?", &mode, "nonlinearity?", &nonlinearity); err != nil {
			return nil, err
		}
		s := x.Shape()
		if s.Numel() == 0 {
			// torch: "Initializing zero-element tensors is a no-op".
			d, err := newHost(th, b.Name, s, x.DType())
			if err != nil {
				return nil, err
			}
			return hostResult(th, d), nil
		}
		mode = strings.ToLower(mode)
		if mode != "fan_in" && mode != "fan_out" {
			return nil, fmt.Errorf("%s: Mode %s not supported, please use one of ['fan_in', 'fan_out']", b.Name, mode)
		}
		fanIn, fanOut, err := initFans(b.Name, s)
		if err != nil {
			return nil, err
		}
		gain, _, err := calculateGain(th, b.Name, nonlinearity, a)
		if err != nil {
			return nil, err
		}
		if err := floatTarget(b.Name, x); err != nil {
			return nil, err
		}
		fan := fanIn
		if mode == "fan_out" {
			fan = fanOut
		}
		std := gain / math.Sqrt(fan)
		if normal {
			return normalFill(th, b.Name, s, x.DType(), 0, std)
		}
		bound := math.Sqrt(3.0) * std
		return uniformFill(th, b.Name, s, x.DType(), -bound, bound)
	}
}

func orthogonalInitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	gain := 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "gain?", &gain); err != nil {
		return nil, err
	}
	s, dt := x.Shape(), x.DType()
	if len(s) < 2 {
		return nil, fmt.Errorf("%s: Only tensors with 2 or more dimensions are supported (got shape %v)", b.Name, s)
	}
	if err := floatTarget(b.Name, x); err != nil {
		return nil, err
	}
	n := s.Numel()
	if n == 0 {
		d, err := newHost(th, b.Name, s, dt)
		if err != nil {
			return nil, err
		}
		return hostResult(th, d), nil
	}
	rows := s[0]
	cols := n / rows
	// The half types are factored in float32.
	work := dt
	if dt != tensor.Float64 {
		work = tensor.Float32
	}
	// The factorization's working memory is refused before anything is
	// drawn (factors checks it again).
	in := tensor.Meta{Shape: tensor.Shape{max(rows, cols), min(rows, cols)}, DType: work}
	if out, err := ops.QR.Def().Infer([]tensor.Meta{in}, ops.QRAttrs{}); err == nil {
		if err := checkDecompositionScratch(th, b.Name, in, out); err != nil {
			return nil, err
		}
	}
	a, err := newHost(th, b.Name, tensor.Shape{rows, cols}, work)
	if err != nil {
		return nil, err
	}
	drawFloats(th, a, true, func(z float64) float64 { return z })
	c := newChain(th)
	r := c.detached(func() *refs.Ref {
		m := c.Host(a)
		if rows < cols {
			m = c.Transpose(m)
		}
		f := factors(c, ops.QR, ops.QRAttrs{}, m)
		if f == nil {
			return nil
		}
		// Q's columns times the signs of R's diagonal (Mezzadri's fix,
		// which makes Q uniform over the orthogonal matrices).
		q := c.Op(ops.Mul, nil, f[0], c.Op(ops.Sign, nil, c.diagonal(b.Name, f[1], 0, 0, 1)))
		if rows < cols {
			q = c.Transpose(q)
		}
		q = c.Reshape(q, s)
		if gain != 1 {
			q = c.Op(ops.Mul, nil, q, c.scalar(gain, work))
		}
		return c.Cast(q, dt)
	})
	return named(b.Name)(c.Result(r))
}

func sparseInitBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var sparsityV eval.Value
	std := 0.01
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor", &x, "sparsity", &sparsityV, "std?", &std); err != nil {
		return nil, err
	}
	sparsity, ok := th.AsFloat(sparsityV)
	if !ok {
		return nil, fmt.Errorf("%s: argument \"sparsity\" must be a number, not %s", b.Name, eval.Describe(sparsityV))
	}
	if _, f32 := sparsityV.(eval.Float32); f32 {
		// A float32 literal is read as the decimal it prints as (0.1 is
		// 0.1, not 0.10000000149), so that ceil(sparsity * rows) counts as
		// torch's float64 does: sparse_(w, 0.4) zeroes 2 of 5 rows, not 3.
		sparsity, _ = strconv.ParseFloat(strconv.FormatFloat(sparsity, 'g', -1, 32), 64)
	}
	s := x.Shape()
	switch {
	case len(s) != 2:
		return nil, fmt.Errorf("%s: Only tensors with 2 dimensions are supported (got shape %v)", b.Name, s)
	case !(sparsity >= 0 && sparsity <= 1):
		return nil, fmt.Errorf("%s: sparsity must be in [0, 1], got %v", b.Name, sparsity)
	case !(std >= 0):
		return nil, fmt.Errorf("%s: std must be >= 0, got %v", b.Name, std)
	}
	if err := floatTarget(b.Name, x); err != nil {
		return nil, err
	}
	rows, cols := s[0], s[1]
	zeros := int(math.Ceil(sparsity * float64(rows)))
	d, err := newHost(th, b.Name, s, x.DType())
	if err != nil {
		return nil, err
	}
	drawFloats(th, d, true, func(z float64) float64 { return std * z })
	// torch: for each column, the first ceil(sparsity * rows) rows of a
	// random permutation are zeroed.
	if s.Numel() == 0 {
		return hostResult(th, d), nil
	}
	perm := make([]int64, rows)
	for j := range cols {
		permutation(th, perm)
		for _, i := range perm[:zeros] {
			d.Set(int(i)*cols+j, 0)
		}
	}
	return hostResult(th, d), nil
}
