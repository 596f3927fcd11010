package eval

import (
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/refs"
)

// A parameter spelled "x|input" takes either keyword; messages use x.
func TestUnpackArgsAliases(t *testing.T) {
	th := NewThread(refs.New(nil, refs.Options{}))
	unpack := func(kwargs ...Kwarg) (int, int, error) {
		a, b := 0, 7
		err := UnpackArgs(th, "f", nil, kwargs, "x|input", &a, "b|other|second?", &b)
		return a, b, err
	}
	if a, b, err := unpack(Kwarg{Name: "input", Value: Int(3)}, Kwarg{Name: "second", Value: Int(4)}); err != nil || a != 3 || b != 4 {
		t.Fatalf("aliases: %d %d %v", a, b, err)
	}
	if a, b, err := unpack(Kwarg{Name: "x", Value: Int(5)}); err != nil || a != 5 || b != 7 {
		t.Fatalf("first names: %d %d %v", a, b, err)
	}
	for _, c := range []struct {
		kwargs []Kwarg
		want   string
	}{
		{[]Kwarg{{Name: "b", Value: Int(1)}}, `f: missing argument "x"`},
		{[]Kwarg{{Name: "inp", Value: Int(1)}}, `unexpected keyword argument "inp" (parameters: x, b)`},
		{[]Kwarg{{Name: "x", Value: Int(1)}, {Name: "input", Value: Int(2)}}, `got multiple values for argument "input"`},
		{[]Kwarg{{Name: "input", Value: String("s")}}, `f: argument "input" must be an int`},
	} {
		if _, _, err := unpack(c.kwargs...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.kwargs, err, c.want)
		}
	}
}

// Params reads a builtin's parameter list from its UnpackArgs call without
// running it, and reports false for one that parses its arguments itself.
func TestParams(t *testing.T) {
	th := NewThread(refs.New(nil, refs.Options{}))
	ran := false
	b := &Builtin{Name: "f", Fn: func(th *Thread, _ *Builtin, args []Value, kw []Kwarg) (Value, error) {
		a, c := 0, 7
		if err := UnpackArgs(th, "f", args, kw, "x|input", &a, "b|other|second?", &c); err != nil {
			return nil, err
		}
		ran = true
		return None, nil
	}}
	ps, ok := Params(th, b)
	if !ok || ran || len(ps) != 2 ||
		strings.Join(ps[0].Names, "|") != "x|input" || ps[0].Optional ||
		strings.Join(ps[1].Names, "|") != "b|other|second" || !ps[1].Optional {
		t.Fatalf("Params = %+v, %v (ran %v)", ps, ok, ran)
	}
	// The thread unpacks normally afterwards.
	if _, err := b.Fn(th, b, []Value{Int(1)}, nil); err != nil || !ran {
		t.Fatalf("after Params: %v, ran %v", err, ran)
	}
	variadic := &Builtin{Name: "g", Fn: func(*Thread, *Builtin, []Value, []Kwarg) (Value, error) { return None, nil }}
	if ps, ok := Params(th, variadic); ok {
		t.Errorf("a builtin without UnpackArgs: Params = %+v, true", ps)
	}
}
