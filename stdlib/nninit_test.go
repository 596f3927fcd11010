package stdlib

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/rng"
	"github.com/tref-lang/tref/runtime/tensor"
)

// zerosValue is an owned zero tensor of shape s and dtype dt.
func (e *propEnv) zerosValue(s tensor.Shape, dt tensor.DType) eval.Value {
	return e.tensor(tensor.NewDense(tensor.Meta{Shape: s, DType: dt}))
}

// callRead calls a builtin that must succeed and returns its result.
func (e *propEnv) callRead(name string, args []eval.Value, kwargs ...eval.Kwarg) *tensor.Dense {
	e.t.Helper()
	v, err := e.call(name, args, kwargs...)
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return e.read(v)
}

// A call refused for its arguments draws nothing: the stream goes on as
// if it had not been made.
func TestNNInitFailedCallsKeepTheStream(t *testing.T) {
	e := newPropEnv(t)
	defer e.close()
	w := e.zerosValue(tensor.Shape{4, 3}, tensor.Float32)
	v1 := e.zerosValue(tensor.Shape{5}, tensor.Float32)
	wi := e.zerosValue(tensor.Shape{4, 3}, tensor.Int64)
	defer eval.Release(e.rt, w)
	defer eval.Release(e.rt, v1)
	defer eval.Release(e.rt, wi)
	kw := func(name string, v eval.Value) eval.Kwarg { return eval.Kwarg{Name: name, Value: v} }
	bad := []struct {
		name   string
		args   []eval.Value
		kwargs []eval.Kwarg
		want   string
	}{
		{"uniform_", []eval.Value{w, eval.Float64(1), eval.Float64(0)}, nil, "a <= b"},
		{"uniform_", []eval.Value{wi}, nil, "floating point"},
		{"normal_", []eval.Value{w}, []eval.Kwarg{kw("std", eval.Float64(math.NaN()))}, "std must be >= 0"},
		{"trunc_normal_", []eval.Value{w}, []eval.Kwarg{kw("std", eval.Float64(math.Inf(1)))}, "positive and finite"},
		{"trunc_normal_", []eval.Value{w}, []eval.Kwarg{kw("a", eval.Float64(math.NaN()))}, "must be numbers"},
		{"xavier_uniform_", []eval.Value{v1}, nil, "fewer than 2 dimensions"},
		{"xavier_normal_", []eval.Value{w}, []eval.Kwarg{kw("gain", eval.Float64(math.NaN()))}, "gain must be"},
		{"kaiming_uniform_", []eval.Value{w}, []eval.Kwarg{kw("mode", eval.String("fan_avg"))}, "Mode fan_avg not supported"},
		{"kaiming_normal_", []eval.Value{w}, []eval.Kwarg{kw("a", eval.String("x"))}, "negative_slope x not a valid number"},
		{"orthogonal_", []eval.Value{wi}, nil, "floating point"},
		{"sparse_", []eval.Value{w, eval.Float64(-0.5)}, nil, "sparsity must be in [0, 1]"},
		{"sparse_", []eval.Value{w, eval.Float64(0.5)}, []eval.Kwarg{kw("std", eval.Float64(-1))}, "std must be >= 0"},
	}
	e.th.RNG = rng.New(42)
	for _, c := range bad {
		v, err := e.call(c.name, c.args, c.kwargs...)
		if err == nil {
			eval.Release(e.rt, v)
			t.Errorf("%s: no error, want one containing %q", c.name, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.name+": ") {
			t.Errorf("%s: error %q, want one naming it and containing %q", c.name, err, c.want)
		}
	}
	got := e.callRead("uniform_", []eval.Value{w})
	e.th.RNG = rng.New(42)
	want := e.callRead("rand", []eval.Value{eval.Int(4), eval.Int(3)})
	if !slices.Equal(got.F32(), want.F32()) {
		t.Errorf("after the refused calls uniform_ gave %v, want the fresh stream's %v", got.F32(), want.F32())
	}
}

// The half types are drawn as float32 and rounded: the values keep the
// dtype and the bounds.
func TestNNInitHalfTypes(t *testing.T) {
	e := newPropEnv(t)
	defer e.close()
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		w := e.zerosValue(tensor.Shape{64, 32}, dt)
		u := e.callRead("kaiming_uniform_", []eval.Value{w})
		bound := math.Sqrt(2) * math.Sqrt(3.0/32)
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range u.Numel() {
			lo, hi = min(lo, u.At(i)), max(hi, u.At(i))
		}
		if u.DType != dt || lo < -bound*1.01 || hi > bound*1.01 || hi < 0.9*bound || lo > -0.9*bound {
			t.Errorf("%s: kaiming_uniform_ gave %v values in [%v, %v], want %s values filling [-%v, %v]", dt, u.Numel(), lo, hi, dt, bound, bound)
		}
		o := e.callRead("orthogonal_", []eval.Value{w})
		if o.DType != dt {
			t.Errorf("%s: orthogonal_ gave %s", dt, o.DType)
		}
		// the columns of the tall matrix are orthonormal, to the dtype's precision
		for a := range 32 {
			for b := range 32 {
				s := 0.0
				for r := range 64 {
					s += o.At(r*32+a) * o.At(r*32+b)
				}
				want := 0.0
				if a == b {
					want = 1
				}
				if math.Abs(s-want) > 0.05 {
					t.Fatalf("%s: orthogonal_ columns %d and %d have the product %v, want %v", dt, a, b, s, want)
				}
			}
		}
		eval.Release(e.rt, w)
	}
}

// trunc_normal_ in a tail: the inverse-CDF method still spreads the
// values over [a, b] (clamping only against rounding), densest at a.
func TestTruncNormalTail(t *testing.T) {
	e := newPropEnv(t)
	defer e.close()
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		w := e.zerosValue(tensor.Shape{20000}, dt)
		kw := []eval.Kwarg{{Name: "a", Value: eval.Float64(3)}, {Name: "b", Value: eval.Float64(4)}}
		d := e.callRead("trunc_normal_", []eval.Value{w}, kw...)
		eval.Release(e.rt, w)
		atEnds, below := 0, 0
		sum := 0.0
		for i := range d.Numel() {
			v := d.At(i)
			if v < 3 || v > 4 {
				t.Fatalf("%s: value %v outside [3, 4]", dt, v)
			}
			if v == 3 || v == 4 {
				atEnds++
			}
			if v < 3.5 {
				below++
			}
			sum += v
		}
		// the standard normal on [3, 4]: mean 3.2605, P(v < 3.5) = 0.8476
		mean := sum / float64(d.Numel())
		frac := float64(below) / float64(d.Numel())
		if atEnds > 20 || math.Abs(mean-3.2605) > 0.01 || math.Abs(frac-0.8476) > 0.02 {
			t.Errorf("%s: %d values clamped to the ends, mean %v (want 3.2605), P(v < 3.5) %v (want 0.8476)", dt, atEnds, mean, frac)
		}
	}
}

// The parameters take torch.nn.init's keyword names.
func TestNNInitKeywords(t *testing.T) {
	e := newPropEnv(t)
	defer e.close()
	want := map[string]string{
		"calculate_gain":   "nonlinearity param",
		"uniform_":         "tensor a b",
		"normal_":          "tensor mean std",
		"trunc_normal_":    "tensor mean std a b",
		"constant_":        "tensor val",
		"ones_":            "tensor",
		"zeros_":           "tensor",
		"eye_":             "tensor",
		"dirac_":           "tensor groups",
		"xavier_uniform_":  "tensor gain",
		"xavier_normal_":   "tensor gain",
		"kaiming_uniform_": "tensor a mode nonlinearity",
		"kaiming_normal_":  "tensor a mode nonlinearity",
		"orthogonal_":      "tensor gain",
		"sparse_":          "tensor sparsity std",
		"kaiming_normal":   "tensor a mode nonlinearity",
		"uniform":          "tensor a b",
	}
	for name, w := range want {
		params, ok := eval.Params(e.th, Universe()[name])
		if !ok {
			t.Errorf("%s: no parameter list", name)
			continue
		}
		var names []string
		for _, p := range params {
			names = append(names, strings.Join(p.Names, "|"))
		}
		if got := strings.Join(names, " "); got != w {
			t.Errorf("%s: parameters %q, want %q", name, got, w)
		}
	}
}
