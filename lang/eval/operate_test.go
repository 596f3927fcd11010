package eval

import (
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/refs"
)

// Binary and Truth, called by builtins, follow the script's operators and
// conditions and borrow their operands.
func TestBinaryAndTruth(t *testing.T) {
	th := NewThread(refs.New(nil, refs.Options{}))
	cases := []struct {
		sym  string
		a, b Value
		want Value
	}{
		{"+", Int(1), Int(2), Int(3)},
		{"+", Int(1), Float32(2.5), Float32(3.5)},
		{"/", Int(1), Int(2), Float32(0.5)},
		{"<", String("a"), String("b"), Bool(true)},
		{">", Float64(1), Int(2), Bool(false)},
		{"+", Bool(true), Bool(true), Bool(true)},
	}
	for _, c := range cases {
		got, err := th.Binary(c.sym, c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("%v %s %v = %v, %v; want %v", c.a, c.sym, c.b, got, err, c.want)
		}
	}
	l := NewList([]Value{Int(1)})
	joined, err := th.Binary("+", l, l)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(joined.(*List).Elems); got != 2 || len(l.Elems) != 1 {
		t.Errorf("[1] + [1] has %d elements and left the operand with %d; want 2 and 1", got, len(l.Elems))
	}
	if _, err := th.Binary("+", l, String("s")); err == nil || !strings.Contains(err.Error(), "unsupported operand types for +: list and string") {
		t.Errorf("list + string: err = %v", err)
	}
	if _, err := th.Binary("<<", Int(1), Int(2)); err == nil {
		t.Error("an unknown operator was accepted")
	}
	if _, err := th.Binary("//", Int(1), Int(0)); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("1 // 0: err = %v", err)
	}
	for _, c := range []struct {
		v    Value
		want bool
	}{{Int(0), false}, {Float32(0.5), true}, {Bool(true), true}} {
		if got, err := th.Truth(c.v); err != nil || got != c.want {
			t.Errorf("Truth(%v) = %v, %v; want %v", c.v, got, err, c.want)
		}
	}
	if _, err := th.Truth(String("s")); err == nil {
		t.Error("a string was taken as a condition")
	}
	if l.rc != 1 {
		t.Errorf("the borrowed list's count is %d, want 1", l.rc)
	}
}
