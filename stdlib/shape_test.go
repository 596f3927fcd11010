package stdlib

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// indexItem is one item of an index case: {"at": i} or a slice.
type indexItem struct {
	At    *int `json:"at"`
	Start *int `json:"start"`
	Stop  *int `json:"stop"`
	Step  int  `json:"step"`
}

type indexCase struct {
	Name  string       `json:"name"`
	X     goldenTensor `json:"x"`
	Items []indexItem  `json:"items"`
	Out   goldenTensor `json:"out"`
	Error string       `json:"error"`
}

// TestIndexGolden replays testdata/index/index.json (written by
// gen_shape.py from NumPy's basic indexing) through the "index" op, which
// the evaluator submits for x[...].
func TestIndexGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "index", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []indexCase `json:"cases"`
	}
	if err := unmarshalNumbers(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 50 {
		t.Fatalf("only %d index cases", len(file.Cases))
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
			th := eval.NewThread(rt)
			x, err := c.X.dense()
			if err != nil {
				t.Fatal(err)
			}
			var a ops.IndexAttrs
			for _, it := range c.Items {
				if it.At != nil {
					a.Items = append(a.Items, ops.IndexItem{Kind: ops.IndexAt, At: *it.At})
					continue
				}
				item := ops.IndexItem{Kind: ops.IndexSlice, Step: it.Step}
				if it.Start != nil {
					item.Start, item.HasStart = *it.Start, true
				}
				if it.Stop != nil {
					item.Stop, item.HasStop = *it.Stop, true
				}
				a.Items = append(a.Items, item)
			}
			xr := rt.FromHost(refs.Site{}, x)
			defer func() {
				rt.Release(xr)
				if n := rt.LiveRefs(); n != 0 {
					t.Errorf("%d refs leaked", n)
				}
			}()
			v, err := th.Submit(ops.Index, a, xr)
			if c.Error != "" {
				if err == nil || !strings.Contains(err.Error(), c.Error) {
					t.Fatalf("error %v, want one containing %q", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer eval.Release(rt, v)
			got, err := rt.Read(v.(eval.Tensor).Ref)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.Out.dense()
			if err != nil {
				t.Fatal(err)
			}
			if msg := compareDense(got, want, 0, 0); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

// call runs a builtin by name and fails the test on error.
func call(t *testing.T, th *eval.Thread, name string, args []eval.Value, kwargs ...eval.Kwarg) eval.Value {
	t.Helper()
	v, err := callErr(th, name, args, kwargs...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func callErr(th *eval.Thread, name string, args []eval.Value, kwargs ...eval.Kwarg) (eval.Value, error) {
	return eval.CallBuiltin(th, Universe()[name], args, kwargs)
}

// read forces a tensor value to a host tensor.
func read(t *testing.T, th *eval.Thread, v eval.Value) *tensor.Dense {
	t.Helper()
	tv, ok := v.(eval.Tensor)
	if !ok {
		t.Fatalf("got %s, want a tensor", eval.Describe(v))
	}
	d, err := th.RT.Read(tv.Ref)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// newTestThread gives a thread on a cpu runtime that checks for leaks when
// the test ends.
func newTestThread(t *testing.T) *eval.Thread {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
	t.Cleanup(func() {
		if err := rt.Flush(); err != nil {
			t.Errorf("flush: %v", err)
		}
		if n := rt.LiveRefs(); n != 0 {
			t.Errorf("%d refs leaked: %v", n, rt.Leaks())
		}
	})
	return eval.NewThread(rt)
}

func ints(vs ...int) *eval.List {
	elems := make([]eval.Value, len(vs))
	for i, v := range vs {
		elems[i] = eval.Int(v)
	}
	return eval.NewList(elems)
}

func TestSplitCatRoundTrip(t *testing.T) {
	th := newTestThread(t)
	x := call(t, th, "randn", []eval.Value{ints(7, 5, 3)})
	defer eval.Release(th.RT, x)
	for dim, how := range []eval.Value{eval.Int(2), ints(1, 1, 3), eval.Int(1)} {
		pieces := call(t, th, "split", []eval.Value{x, how}, eval.Kwarg{Name: "dim", Value: eval.Int(dim)})
		back := call(t, th, "cat", []eval.Value{pieces}, eval.Kwarg{Name: "dim", Value: eval.Int(dim)})
		if msg := compareDense(read(t, th, back), read(t, th, x), 0, 0); msg != "" {
			t.Errorf("cat(split(x, dim=%d)): %s", dim, msg)
		}
		eval.Release(th.RT, pieces)
		eval.Release(th.RT, back)
	}
}

func TestShapeVarargs(t *testing.T) {
	th := newTestThread(t)
	x := call(t, th, "arange", []eval.Value{eval.Int(6)})
	defer eval.Release(th.RT, x)
	r := call(t, th, "reshape", []eval.Value{x, eval.Int(3), eval.Int(-1)})
	defer eval.Release(th.RT, r)
	if s := read(t, th, r).Shape; !s.Equal(tensor.Shape{3, 2}) {
		t.Fatalf("reshape(x, 3, -1) gave %v", s)
	}
	p := call(t, th, "permute", []eval.Value{r, eval.Int(1), eval.Int(0)})
	defer eval.Release(th.RT, p)
	if got := read(t, th, p).I64(); got[1] != 2 || got[3] != 1 {
		t.Fatalf("permute(r, 1, 0) gave %v", got)
	}
	z := call(t, th, "zeros", []eval.Value{eval.Int(2), eval.Int(3), eval.String("int64")})
	defer eval.Release(th.RT, z)
	if d := read(t, th, z); !d.Shape.Equal(tensor.Shape{2, 3}) || d.DType != tensor.Int64 {
		t.Fatalf("zeros(2, 3, \"int64\") gave %v", d.Meta)
	}
	n := call(t, th, "randn", []eval.Value{eval.Int(4), eval.Int(1)}, eval.Kwarg{Name: "dtype", Value: eval.String("float64")})
	defer eval.Release(th.RT, n)
	if d := read(t, th, n); !d.Shape.Equal(tensor.Shape{4, 1}) || d.DType != tensor.Float64 {
		t.Fatalf("randn(4, 1, dtype=\"float64\") gave %v", d.Meta)
	}
	if _, err := callErr(th, "reshape", []eval.Value{x, eval.Int(3), eval.String("a")}); err == nil ||
		!strings.Contains(err.Error(), "argument 3 must be an int") {
		t.Fatalf("reshape with a string dimension: %v", err)
	}
}

func TestCreationErrors(t *testing.T) {
	th := newTestThread(t)
	for _, c := range []struct {
		fn   string
		args []eval.Value
		kw   []eval.Kwarg
		want string
	}{
		{"zeros", []eval.Value{ints(2)}, []eval.Kwarg{{Name: "dtype", Value: eval.String("float8")}}, `unknown dtype "float8"`},
		{"rand", []eval.Value{ints(2)}, []eval.Kwarg{{Name: "dtype", Value: eval.String("int64")}}, "dtype must be a floating-point type"},
		{"randint", []eval.Value{eval.Int(3), eval.Int(3), ints(2)}, nil, "hi (3) must be greater than lo (3)"},
		{"linspace", []eval.Value{eval.Int(0), eval.Int(1), eval.Int(-1)}, nil, "steps must be non-negative"},
		{"eye", []eval.Value{eval.Int(-2)}, nil, "negative dimension"},
		{"full", []eval.Value{ints(2), eval.String("x")}, nil, `"value" must be a number`},
		{"arange", []eval.Value{eval.Int(0), eval.Int(1), eval.Float32(float32(math.NaN()))}, nil, "step must be finite"},
	} {
		_, err := callErr(th, c.fn, c.args, c.kw...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.fn, err, c.want)
		}
	}
	// An absurd allocation fails before allocating, naming the size.
	th.RT.HostPool().Limit = 1 << 20
	_, err := callErr(th, "ones", []eval.Value{ints(1024, 1024)})
	if err == nil || !strings.Contains(err.Error(), "[1024, 1024]") || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("ones beyond the host limit: %v", err)
	}
}

func TestTensorBuiltinDTypes(t *testing.T) {
	th := newTestThread(t)
	cases := []struct {
		data eval.Value
		want tensor.DType
	}{
		{eval.NewList([]eval.Value{eval.Int(1), eval.Float64(2)}), tensor.Float64},
		{eval.NewList([]eval.Value{eval.Bool(true), eval.Bool(false)}), tensor.Bool},
		{eval.NewList([]eval.Value{eval.Int(1), eval.Float32(2)}), tensor.Float32},
		{eval.Float32(2), tensor.Float32},
	}
	for _, c := range cases {
		v := call(t, th, "tensor", []eval.Value{c.data})
		if d := read(t, th, v); d.DType != c.want {
			t.Errorf("tensor(%v) has dtype %v, want %v", c.data, d.DType, c.want)
		}
		eval.Release(th.RT, v)
		eval.Release(th.RT, c.data)
	}
}
