package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/rng"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's random sampling from tensors: bernoulli, normal and
// randint_like. They draw from the thread's seeded stream (creation.go's
// rand and randn), so a seed repeats them on every device, though the
// numbers are not torch's. Arguments are checked before anything is
// drawn, so a failed call leaves the stream where it was. As in torch
// their results are not reparameterised samples: the gradient to mean,
// std or the probabilities is zero.

func init() {
	register("bernoulli", "bernoulli(input, p=none): 1 with the probability in each element of the floating-point input (values in [0, 1]) and 0 otherwise, in input's dtype; with p, each element of input's shape and dtype 1 with probability p; as torch.bernoulli, from the seeded stream of rand", bernoulliBuiltin)
	register("normal", "normal(mean, std=1.0, size=none, dtype=none): normal samples of mean and standard deviation std, as torch.normal: mean and std tensors (broadcast together, in mean's dtype), a tensor and a number (in the tensor's dtype and shape), or two numbers and a size (dtype, default float32); std must not be negative; from the seeded stream of randn", normalBuiltin)
	register("randint_like", "randint_like(input, low=0, high, dtype=none): uniform random integers in [low, high) of input's shape and dtype (or dtype), as torch.randint_like (randint_like(x, high) or randint_like(x, low, high)); from the seeded stream of randint", randintLikeBuiltin)
}

func bernoulliBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var pv eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "p?", &pv); err != nil {
		return nil, err
	}
	dt, s := x.DType(), x.Shape()
	if _, none := pv.(eval.NoneType); !none {
		p, ok := th.AsFloat(pv)
		if !ok {
			return nil, fmt.Errorf("%s: p must be a number or none, not %s", b.Name, eval.Describe(pv))
		}
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("%s: p must be in [0, 1], got %v", b.Name, p)
		}
		out, err := newHost(th, b.Name, s, dt)
		if err != nil {
			return nil, err
		}
		src := th.Rand()
		for i := range out.Numel() {
			if float64(src.Float32()) < p {
				out.Set(i, 1)
			}
		}
		return hostResult(th, out), nil
	}
	check := func(p float64) error {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("the probabilities must be in [0, 1], got %v", p)
		}
		return nil
	}
	return sampleEach(th, b.Name, "probabilities", x, check, func(src *rng.Source, p float64) float64 {
		// float64 probabilities are compared with a float64 uniform,
		// the others with a float32 one (as dropout's mask).
		u := float64(src.Float32())
		if dt == tensor.Float64 {
			u = src.Float64()
		}
		if u < p {
			return 1
		}
		return 0
	})
}

// sampleEach draws one sample for each element of the floating-point
// tensor x, the parameters (what names them in messages), on the host
// from the thread's seeded stream, in x's shape and dtype: check accepts
// every element before anything is drawn.
func sampleEach(th *eval.Thread, fname, what string, x *refs.Ref, check func(v float64) error, draw func(src *rng.Source, v float64) float64) (eval.Value, error) {
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: the %s must be floating point, got %v", fname, what, x.Meta())
	}
	d, err := th.RT.Read(x)
	if err != nil {
		return nil, err
	}
	for i := range d.Numel() {
		if err := check(d.At(i)); err != nil {
			return nil, fmt.Errorf("%s: %v", fname, err)
		}
	}
	out, err := newHost(th, fname, x.Shape(), x.DType())
	if err != nil {
		return nil, err
	}
	src := th.Rand()
	for i := range out.Numel() {
		out.Set(i, draw(src, d.At(i)))
	}
	return hostResult(th, out), nil
}

// normalArg is one of normal's mean and std: a tensor or a number.
type normalArg struct {
	t *refs.Ref
	v float64
}

func readNormalArg(th *eval.Thread, fname, param string, v eval.Value) (normalArg, error) {
	if t, ok := v.(eval.Tensor); ok {
		if !t.Ref.DType().IsFloat() {
			return normalArg{}, fmt.Errorf("%s: %s must be floating point, got %v", fname, param, t.Ref.Meta())
		}
		return normalArg{t: t.Ref}, nil
	}
	f, ok := th.AsFloat(v)
	if !ok {
		return normalArg{}, fmt.Errorf("%s: %s must be a tensor or a number, not %s", fname, param, eval.Describe(v))
	}
	return normalArg{v: f}, nil
}

func normalBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var meanV eval.Value
	var stdV eval.Value = eval.Float64(1)
	var sizeV, dtv eval.Value = eval.None, eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "mean", &meanV, "std?", &stdV, "size?", &sizeV, "dtype?", &dtv); err != nil {
		return nil, err
	}
	mean, err := readNormalArg(th, b.Name, "mean", meanV)
	if err != nil {
		return nil, err
	}
	std, err := readNormalArg(th, b.Name, "std", stdV)
	if err != nil {
		return nil, err
	}
	_, noSize := sizeV.(eval.NoneType)
	_, noDType := dtv.(eval.NoneType)
	var shape tensor.Shape
	var dt tensor.DType
	switch {
	case mean.t == nil && std.t == nil:
		if noSize {
			return nil, fmt.Errorf("%s: give size when mean and std are numbers", b.Name)
		}
		if err := eval.UnpackArgs(th, b.Name, []eval.Value{sizeV}, nil, "size", &shape); err != nil {
			return nil, err
		}
		if dt, err = dtypeOr(b.Name, dtv, tensor.Float32); err != nil {
			return nil, err
		}
		if !dt.IsFloat() {
			return nil, fmt.Errorf("%s: dtype must be a floating-point type, got %s", b.Name, dt)
		}
	case !noSize || !noDType:
		return nil, fmt.Errorf("%s: size and dtype are for a mean and a std that are both numbers (a tensor gives the shape and dtype)", b.Name)
	case mean.t != nil && std.t != nil:
		if shape, err = ops.BroadcastShapes(mean.t.Shape(), std.t.Shape()); err != nil {
			return nil, fmt.Errorf("%s: mean of shape %v and std of shape %v do not broadcast", b.Name, mean.t.Shape(), std.t.Shape())
		}
		dt = mean.t.DType()
	case mean.t != nil:
		shape, dt = mean.t.Shape(), mean.t.DType()
	default:
		shape, dt = std.t.Shape(), std.t.DType()
	}
	if std.t == nil && !(std.v >= 0) {
		return nil, fmt.Errorf("%s: std must not be negative, got %v", b.Name, std.v)
	}
	if std.t != nil && std.t.Shape().Numel() > 0 {
		// on the device: the first element not >= 0 (negative or NaN), or
		// the first element when there is none; only it is read back.
		c := newChain(th)
		flat := c.Reshape(std.t, tensor.Shape{std.t.Shape().Numel()})
		bad := c.Op(ops.LogicalNot, nil, c.Op(ops.Ge, nil, flat, c.scalar(0, flat.DType())))
		first := c.Op(ops.Argmax, ops.ReduceAttrs{Dims: []int{0}, Keepdim: true}, c.Cast(bad, tensor.Uint8))
		v := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, flat, first)
		if c.Err() != nil {
			return named(b.Name)(c.Result(nil))
		}
		d, err := th.RT.Read(v)
		if err != nil {
			return c.Abort(err)
		}
		v0 := d.At(0) // before the release, which recycles d
		c.Release()
		if v := v0; !(v >= 0) {
			return nil, fmt.Errorf("%s: every element of std must be >= 0, got %v", b.Name, v)
		}
	}
	z, err := eval.CallBuiltin(th, table["randn"], []eval.Value{shapeList(shape)}, []eval.Kwarg{{Name: "dtype", Value: eval.String(dt.String())}})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	c.Keep(z.(eval.Tensor).Ref)
	// torch: the standard normals times std, plus mean, with the tape
	// paused (torch's gradients to mean and std are zero).
	return named(b.Name)(c.Result(c.detached(func() *refs.Ref {
		r := z.(eval.Tensor).Ref
		if std.t != nil {
			r = c.Op(ops.Mul, nil, r, c.Cast(std.t, dt))
		} else if std.v != 1 {
			r = c.Op(ops.Mul, nil, r, c.scalar(std.v, dt))
		}
		if mean.t != nil {
			return c.Op(ops.Add, nil, r, c.Cast(mean.t, dt))
		}
		if mean.v != 0 {
			return c.Op(ops.Add, nil, r, c.scalar(mean.v, dt))
		}
		return r
	})))
}

// randintRange is the range of values of dtype dt randint_like may draw
// (torch's check that low and high - 1 fit in the dtype).
func randintRange(dt tensor.DType) (lo, hi float64) {
	switch dt {
	case tensor.Bool:
		return 0, 1
	case tensor.Int8:
		return math.MinInt8, math.MaxInt8
	case tensor.Int16:
		return math.MinInt16, math.MaxInt16
	case tensor.Int32:
		return math.MinInt32, math.MaxInt32
	case tensor.Uint8:
		return 0, math.MaxUint8
	case tensor.Uint16:
		return 0, math.MaxUint16
	case tensor.Uint32:
		return 0, math.MaxUint32
	case tensor.Uint64:
		return 0, math.Inf(1)
	case tensor.Float16:
		return -65504, 65504
	}
	return math.Inf(-1), math.Inf(1)
}

func randintLikeBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var low, high eval.OptInt
	var dtv eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "low?", &low, "high?", &high, "dtype?", &dtv); err != nil {
		return nil, err
	}
	if !high.Set {
		// randint_like(x, high): one bound given by position is high.
		lowByName := false
		for _, kw := range kwargs {
			lowByName = lowByName || kw.Name == "low"
		}
		if !low.Set || lowByName {
			return nil, fmt.Errorf("%s: high is required (randint_like(input, high) or randint_like(input, low, high))", b.Name)
		}
		low, high = eval.OptInt{}, low
	}
	dt, err := dtypeOr(b.Name, dtv, x.DType())
	if err != nil {
		return nil, err
	}
	if low.V >= high.V {
		return nil, fmt.Errorf("%s: low (%d) must be less than high (%d)", b.Name, low.V, high.V)
	}
	if lo, hi := randintRange(dt); float64(low.V) < lo || float64(high.V-1) > hi {
		return nil, fmt.Errorf("%s: the range [%d, %d) does not fit in %s", b.Name, low.V, high.V, dt)
	}
	call := []eval.Value{eval.Int(low.V), eval.Int(high.V), shapeList(x.Shape())}
	return named(b.Name)(eval.CallBuiltin(th, table["randint"], call, []eval.Kwarg{{Name: "dtype", Value: eval.String(dt.String())}}))
}
