package pos

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Pos
		ok   bool
	}{
		{"model.tr:12:9", Pos{File: "model.tr", Line: 12, Col: 9}, true},
		{"C:/x/m.tr:1:2", Pos{File: "C:/x/m.tr", Line: 1, Col: 2}, true},
		{"<repl>:3:1", Pos{File: "<repl>", Line: 3, Col: 1}, true},
		{"model.tr:12", Pos{}, false},
		{"", Pos{}, false},
		{"m.tr:0:1", Pos{}, false},
		{"m.tr:a:1", Pos{}, false},
	} {
		got, ok := Parse(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.in {
			t.Errorf("Parse(%q).String() = %q", tc.in, got.String())
		}
	}
}

// A position prints as file:line:col; a label (no line) as itself, and
// the zero position as nothing: traces print sites so.
func TestString(t *testing.T) {
	for _, tc := range []struct {
		p    Pos
		want string
	}{
		{Pos{File: "m.tr", Line: 3, Col: 7}, "m.tr:3:7"},
		{Pos{File: "<calibrate>"}, "<calibrate>"},
		{Pos{}, ""},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%#v prints %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestErrorListSortedAndLimited(t *testing.T) {
	l := ErrorList{
		{Pos: Pos{File: "b.tr", Line: 1, Col: 1}, Msg: "b"},
		{Pos: Pos{File: "a.tr", Line: 2, Col: 1}, Msg: "a2"},
		{Pos: Pos{File: "a.tr", Line: 1, Col: 5}, Msg: "a15"},
		{Pos: Pos{File: "a.tr", Line: 1, Col: 3}, Msg: "a13"},
	}
	want := "a.tr:1:3: a13\na.tr:1:5: a15\na.tr:2:1: a2\nb.tr:1:1: b"
	if got := l.Err().Error(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if (ErrorList{}).Err() != nil {
		t.Error("an empty list is not nil")
	}
	if got := (&Error{Msg: "no position"}).Error(); got != "no position" {
		t.Errorf("Error without position prints %q", got)
	}
	var long ErrorList
	for i := range 13 {
		long.Add(Pos{File: "l.tr", Line: 1, Col: i + 1}, "x")
	}
	lines := strings.Split(long.Err().Error(), "\n")
	if len(lines) != MaxPrinted+1 || lines[MaxPrinted] != "and 3 more errors" {
		t.Errorf("13 errors print as:\n%s", long)
	}
	var e *Error
	if !errors.As(error(long), &e) || e != long[0] {
		t.Error("errors.As does not find the list's first error")
	}
}
