package stdlib

import (
	"math"
	mrand "math/rand"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Property tests of the elementwise and reduction builtins, called the way
// scripts call them (eval.CallBuiltin on a cpu runtime).

// propEnv is a runtime for one property check; close checks for leaks.
type propEnv struct {
	t  *testing.T
	rt *refs.Runtime
	th *eval.Thread
}

func newPropEnv(t *testing.T) *propEnv {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
	return &propEnv{t: t, rt: rt, th: eval.NewThread(rt)}
}

func (e *propEnv) close() {
	if err := e.rt.Flush(); err != nil {
		e.t.Errorf("flush: %v", err)
	}
	if n := e.rt.LiveRefs(); n != 0 {
		e.t.Errorf("%d refs leaked", n)
	}
}

// tensor makes an owned tensor value from d.
func (e *propEnv) tensor(d *tensor.Dense) eval.Value {
	return eval.Tensor{Ref: e.rt.FromHost(refs.Site{}, d)}
}

// call calls a builtin and returns its owned result, or the error.
func (e *propEnv) call(name string, args []eval.Value, kwargs ...eval.Kwarg) (eval.Value, error) {
	b, ok := Universe()[name]
	if !ok {
		e.t.Fatalf("no builtin %q", name)
	}
	return eval.CallBuiltin(e.th, b, args, kwargs)
}

// read forces a result and releases it, returning a host copy.
func (e *propEnv) read(v eval.Value) *tensor.Dense {
	defer eval.Release(e.rt, v)
	t, ok := v.(eval.Tensor)
	if !ok {
		e.t.Fatalf("result is %s, want a tensor", eval.Describe(v))
	}
	d, err := e.rt.Read(t.Ref)
	if err != nil {
		e.t.Fatalf("reading the result: %v", err)
	}
	return d.Clone()
}

// propShape is a random shape of rank 0-4 with small dims (0 included).
type propShape []int

// Generate implements quick.Generator.
func (propShape) Generate(r *mrand.Rand, _ int) reflect.Value {
	s := make(propShape, r.Intn(5))
	for i := range s {
		s[i] = r.Intn(4) // 0 (empty) to 3
		if r.Intn(8) == 0 {
			s[i] = 0
		} else if s[i] == 0 {
			s[i] = 1
		}
	}
	return reflect.ValueOf(s)
}

// broadcastPair derives from s a second shape that broadcasts with it:
// a suffix of s with some dims set to 1, or all of s with an extra
// leading dim.
func broadcastPair(r *rand.Rand, s propShape) propShape {
	t := append(propShape{}, s[r.IntN(len(s)+1):]...)
	for i := range t {
		if r.IntN(3) == 0 {
			t[i] = 1
		}
	}
	if len(t) == len(s) && r.IntN(3) == 0 {
		t = append(propShape{2}, t...)
	}
	return t
}

func randFilled(r *rand.Rand, dt tensor.DType, s []int) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape(append([]int{}, s...)), DType: dt})
	for i := range d.Numel() {
		switch dt {
		case tensor.Bool:
			d.Set(i, float64(r.IntN(2)))
		case tensor.Int64:
			d.Set(i, float64(r.IntN(21)-10))
		default:
			d.Set(i, math.Round(r.NormFloat64()*100)/8)
		}
	}
	return d
}

// TestBroadcastRulesProperty: the result shape of add follows NumPy's rule
// (right-aligned, each dim equal or 1), the values are those of the
// broadcast operands, and incompatible shapes fail naming both shapes.
func TestBroadcastRulesProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	cfg := &quick.Config{MaxCount: 200, Rand: nil}
	prop := func(s propShape) bool {
		e := newPropEnv(t)
		defer e.close()
		u := broadcastPair(r, s)
		if r.IntN(2) == 0 {
			s, u = u, s
		}
		a, b := randFilled(r, tensor.Float32, s), randFilled(r, tensor.Float32, u)
		av, bv := e.tensor(a), e.tensor(b)
		defer eval.Release(e.rt, av)
		defer eval.Release(e.rt, bv)
		res, err := e.call("add", []eval.Value{av, bv})
		if err != nil {
			t.Errorf("add %v %v: %v", s, u, err)
			return false
		}
		out := e.read(res)
		want := naiveBroadcast(s, u)
		if !out.Shape.Equal(want) {
			t.Errorf("add %v %v: shape %v, want %v", s, u, out.Shape, want)
			return false
		}
		for i := range out.Numel() {
			x := a.At(propIndex(want, s, i))
			y := b.At(propIndex(want, u, i))
			if out.At(i) != float64(float32(x+y)) {
				t.Errorf("add %v %v: element %d = %v, want %v", s, u, i, out.At(i), x+y)
				return false
			}
		}
		return true
	}
	if err := quick.Check(prop, cfg); err != nil {
		t.Error(err)
	}

	mismatch := func(s propShape) bool {
		e := newPropEnv(t)
		defer e.close()
		if len(s) == 0 {
			return true
		}
		s = append(propShape{}, s...)
		last := len(s) - 1
		if s[last] == 1 {
			s[last] = 2
		}
		u := append(propShape{}, s...)
		u[last] = s[last] + 2 // neither equal nor 1
		av, bv := e.tensor(randFilled(r, tensor.Float32, s)), e.tensor(randFilled(r, tensor.Float32, u))
		defer eval.Release(e.rt, av)
		defer eval.Release(e.rt, bv)
		_, err := e.call("mul", []eval.Value{av, bv})
		want := "cannot broadcast shapes " + tensor.Shape(s).String() + " and " + tensor.Shape(u).String()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("mul %v %v: got %v, want %q", s, u, err, want)
			return false
		}
		return true
	}
	if err := quick.Check(mismatch, cfg); err != nil {
		t.Error(err)
	}
}

// naiveBroadcast is NumPy's rule for shapes known to be compatible.
func naiveBroadcast(a, b []int) tensor.Shape {
	n := max(len(a), len(b))
	out := make(tensor.Shape, n)
	for i := range n {
		da, db := 1, 1
		if j := i - (n - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			db = b[j]
		}
		out[i] = da
		if da == 1 {
			out[i] = db
		}
	}
	return out
}

// propIndex maps output flat index i to the flat index of an operand of
// shape s broadcast to out.
func propIndex(out tensor.Shape, s []int, i int) int {
	idx, stride := 0, 1
	for d := len(out) - 1; d >= 0; d-- {
		c := i % out[d]
		i /= out[d]
		if j := d - (len(out) - len(s)); j >= 0 {
			if s[j] != 1 {
				idx += c * stride
			}
			stride *= s[j]
		}
	}
	return idx
}

// TestWherePicksProperty: where(c, a, b) is a where c holds, else b, for
// broadcast shapes and mixed dtypes.
func TestWherePicksProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	prop := func(s propShape) bool {
		e := newPropEnv(t)
		defer e.close()
		cs, bs := broadcastPair(r, s), broadcastPair(r, s)
		c := randFilled(r, tensor.Bool, cs)
		a := randFilled(r, tensor.Int64, s)
		b := randFilled(r, tensor.Float32, bs)
		cv, av, bv := e.tensor(c), e.tensor(a), e.tensor(b)
		defer eval.Release(e.rt, cv)
		defer eval.Release(e.rt, av)
		defer eval.Release(e.rt, bv)
		res, err := e.call("where", []eval.Value{cv, av, bv})
		if err != nil {
			t.Errorf("where %v %v %v: %v", cs, s, bs, err)
			return false
		}
		out := e.read(res)
		if out.DType != tensor.Float32 {
			t.Errorf("where(bool, int64, float32) is %v, want float32", out.DType)
			return false
		}
		for i := range out.Numel() {
			want := b.At(propIndex(out.Shape, bs, i))
			if c.At(propIndex(out.Shape, cs, i)) != 0 {
				want = a.At(propIndex(out.Shape, s, i))
			}
			if out.At(i) != want {
				t.Errorf("where %v %v %v: element %d = %v, want %v", cs, s, bs, i, out.At(i), want)
				return false
			}
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 200}); err != nil {
		t.Error(err)
	}
}
