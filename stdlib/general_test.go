package stdlib

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// hintDevice is a cpu device that records placement hints.
type hintDevice struct {
	cpu.Device
	hints []string
}

func (d *hintDevice) Hint(_ *refs.Runtime, r *refs.Ref, hint string, _ refs.Site) error {
	d.hints = append(d.hints, hint)
	return nil
}

func callGeneral(t *testing.T, th *eval.Thread, name string, args ...eval.Value) (eval.Value, error) {
	t.Helper()
	b := Universe()[name]
	if b == nil {
		t.Fatalf("no builtin %s", name)
	}
	return eval.CallBuiltin(th, b, args, nil)
}

func TestGeneralBuiltins(t *testing.T) {
	dev := &hintDevice{}
	rt := refs.New(dev, refs.Options{})
	th := eval.NewThread(rt)
	var out bytes.Buffer
	th.Stdout = &out
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Float32})
	copy(d.F32(), []float32{1, 2, 3})
	x := eval.Tensor{Ref: rt.FromHost(refs.Site{}, d)}
	rec := eval.NewRecord([]string{"a", "b"}, []eval.Value{eval.Int(1), eval.String("x")})
	list := eval.NewList([]eval.Value{eval.Int(4), eval.Int(3)})

	if _, err := callGeneral(t, th, "print", eval.Float32(0.1), eval.Float32(7), eval.Int(2), eval.Bool(true), eval.None, list, rec, eval.String("s")); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "0.1 7.0 2 true none [4, 3] {a: 1, b: \"x\"} s\n"; got != want {
		t.Errorf("print wrote %q, want %q", got, want)
	}
	checks := []struct {
		name string
		args []eval.Value
		want string
	}{
		{"len", []eval.Value{list}, "2"},
		{"len", []eval.Value{rec}, "2"},
		{"len", []eval.Value{eval.String("héllo")}, "5"},
		{"len", []eval.Value{x}, "3"},
		{"len", []eval.Value{eval.Range{Start: 0, Stop: 10, Step: 3}}, "4"},
		{"type", []eval.Value{x}, "tensor"},
		{"type", []eval.Value{eval.Float64(1)}, "tensor"},
		{"type", []eval.Value{eval.None}, "none"},
		{"str", []eval.Value{list}, "[4, 3]"},
		{"range", []eval.Value{eval.Int(3)}, "range(0, 3)"},
		{"range", []eval.Value{eval.Int(1), eval.Int(9), eval.Int(2)}, "range(1, 9, 2)"},
		{"keys", []eval.Value{rec}, `["a", "b"]`},
		{"values", []eval.Value{rec}, `[1, "x"]`},
		{"item", []eval.Value{eval.Int(5)}, "5"},
		{"hint_keep", []eval.Value{x}, "none"},
		{"hint_offload", []eval.Value{x}, "none"},
	}
	for _, c := range checks {
		v, err := callGeneral(t, th, c.name, c.args...)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := eval.Format(v); got != c.want {
			t.Errorf("%s(...) = %s, want %s", c.name, got, c.want)
		}
		eval.Release(rt, v)
	}
	if strings.Join(dev.hints, ",") != "keep,offload" {
		t.Errorf("hints reached the executor as %v", dev.hints)
	}
	errs := []struct {
		name string
		args []eval.Value
		want string
	}{
		{"len", []eval.Value{eval.Int(1)}, "has no length"},
		{"range", []eval.Value{eval.Int(0), eval.Int(3), eval.Int(0)}, "step must not be zero"},
		{"item", []eval.Value{x}, "one element, got shape [3]"},
		{"keys", []eval.Value{list}, "must be a record"},
		{"assert_error", []eval.Value{eval.Int(1), eval.String("x")}, "must be a function"},
	}
	for _, c := range errs {
		if _, err := callGeneral(t, th, c.name, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	sum := Universe()["sum"]
	s, err := eval.CallBuiltin(th, sum, []eval.Value{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := callGeneral(t, th, "item", s)
	if err != nil || eval.Format(v) != "6.0" {
		t.Errorf("item(sum(x)) = %v, %v", v, err)
	}
	eval.Release(rt, s)
	ms, err := callGeneral(t, th, "memstats")
	if err != nil {
		t.Fatal(err)
	}
	cpuStats, ok := ms.(*eval.Record).Get("cpu")
	if !ok || strings.Join(cpuStats.(*eval.Record).Keys, ",") != "live_refs,live_bytes,peak_bytes,cached_bytes" {
		t.Errorf("memstats() = %s", eval.Format(ms))
	}
	if lr, _ := cpuStats.(*eval.Record).Get("live_refs"); eval.Format(lr) != "1" {
		t.Errorf("memstats live_refs = %s, want 1 (x)", eval.Format(lr))
	}
	eval.Release(rt, ms)
	for _, v := range []eval.Value{x, rec, list} {
		eval.Release(rt, v)
	}
	if rt.LiveRefs() != 0 {
		t.Errorf("%d refs alive", rt.LiveRefs())
	}
}

func TestAssertErrorCallsScriptErrors(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{})
	th := eval.NewThread(rt)
	div := Universe()["range"]
	// A builtin that fails stands in for a function: its error must
	// contain the text, and a passing call is itself an error.
	if _, err := callGeneral(t, th, "assert_error", div, eval.String("missing argument")); err != nil {
		t.Errorf("assert_error on a failing call: %v", err)
	}
	if _, err := callGeneral(t, th, "assert_error", div, eval.String("zzz")); err == nil || !strings.Contains(err.Error(), `does not contain "zzz"`) {
		t.Errorf("assert_error with the wrong text: %v", err)
	}
	clock := Universe()["clock"]
	if _, err := callGeneral(t, th, "assert_error", clock, eval.String("x")); err == nil || !strings.Contains(err.Error(), "returned normally") {
		t.Errorf("assert_error on a passing call: %v", err)
	}
}
