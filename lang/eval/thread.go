package eval

import (
	"errors"

	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/rng"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Thread is the state of one running script: the runtime that owns its
// refs and the evaluator's call stack.
type Thread struct {
	RT *refs.Runtime
	// RNG is the script's random stream (rand, randn, randint, dropout);
	// nil until first use, when Rand seeds it with rng.DefaultSeed. The CLI's
	// --seed sets it with rng.New(n).
	RNG *rng.Source
	// site is the position of the call being evaluated, for Submit.
	site refs.Site
	// temps are refs made from numbers for the current builtin call.
	temps []*refs.Ref
}

// Rand returns the thread's random stream, creating it with the default
// seed on first use.
func (th *Thread) Rand() *rng.Source {
	if th.RNG == nil {
		th.RNG = rng.New(rng.DefaultSeed)
	}
	return th.RNG
}

// Site is the script position (and call path) of the current builtin call;
// builtins pass it to refs.Runtime.Submit so errors point at the script.
func (th *Thread) Site() refs.Site { return th.site }

// ToRef returns v as a TensorRef. A Tensor's ref is borrowed; a number
// becomes a temporary ref that the thread releases after the current
// builtin call returns.
func (th *Thread) ToRef(v Value) (*refs.Ref, error) {
	switch v := v.(type) {
	case Tensor:
		return v.Ref, nil
	case Bool, Int, Float32, Float64:
		r := th.RT.FromHost(th.site, ScalarDense(v))
		th.temps = append(th.temps, r)
		return r, nil
	}
	return nil, errors.New("not a tensor")
}

// releaseTemps drops the temporary refs of the finished builtin call.
func (th *Thread) releaseTemps() {
	for _, r := range th.temps {
		th.RT.Release(r)
	}
	th.temps = th.temps[:0]
}

// ScalarDense makes a 0-d host tensor from an unboxed scalar.
func ScalarDense(v Value) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{DType: ScalarDType(v)})
	switch v := v.(type) {
	case Int:
		d.I64()[0] = int64(v)
	case Float32:
		d.F32()[0] = float32(v)
	case Float64:
		d.F64()[0] = float64(v)
	case Bool:
		if v {
			d.Buf[0] = 1
		}
	}
	return d
}

// AsInt reads v as an int: an integral scalar, or a 0-d integer tensor
// (forcing it).
func (th *Thread) AsInt(v Value) (int, bool) {
	if n, ok := toInt(v); ok {
		return n, true
	}
	if t, ok := v.(Tensor); ok && len(t.Ref.Shape()) == 0 && !t.Ref.DType().IsFloat() {
		d, err := th.RT.Read(t.Ref)
		if err != nil {
			return 0, false
		}
		return int(d.At(0)), true
	}
	return 0, false
}

// AsFloat reads v as a float64: any scalar, or a 0-d tensor (forcing it).
func (th *Thread) AsFloat(v Value) (float64, bool) {
	if f, ok := toFloat(v); ok {
		return f, true
	}
	if t, ok := v.(Tensor); ok && len(t.Ref.Shape()) == 0 {
		d, err := th.RT.Read(t.Ref)
		if err != nil {
			return 0, false
		}
		return d.At(0), true
	}
	return 0, false
}

// Submit queues a tensor op at the current call site and returns its
// promise as an owned Tensor value.
func (th *Thread) Submit(op string, attrs any, ins ...*refs.Ref) (Value, error) {
	r, err := th.RT.Submit(th.site, op, attrs, ins...)
	if err != nil {
		return nil, err
	}
	return Tensor{Ref: r}, nil
}

// NewThread makes a thread over rt, for calling builtins outside a script
// (tests, tools).
func NewThread(rt *refs.Runtime) *Thread { return &Thread{RT: rt} }

// SetSite sets the call site that subsequent submits report.
func (th *Thread) SetSite(s refs.Site) { th.site = s }

// CallBuiltin calls b with borrowed arguments and returns its owned
// result, releasing the temporary refs the call made from numbers.
func CallBuiltin(th *Thread, b *Builtin, args []Value, kwargs []Kwarg) (Value, error) {
	v, err := b.Fn(th, b, args, kwargs)
	th.releaseTemps()
	return v, err
}
