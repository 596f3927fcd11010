package ast

import "testing"

func TestParsePos(t *testing.T) {
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
		got, ok := ParsePos(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParsePos(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.in {
			t.Errorf("ParsePos(%q).String() = %q", tc.in, got.String())
		}
	}
}
