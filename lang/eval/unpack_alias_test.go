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
