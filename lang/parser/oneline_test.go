package parser

import "testing"

func TestOneLine(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"fn double(a) {\n    return a * 2\n}\n", "fn double(a) { return a * 2 }"},
		{"let y = [1,   # the first\n  2]\n", "let y = [1, 2]"},
		{"for i in range(3) {\n\tprint(\"a  # b\", i)\r\n}", "for i in range(3) { print(\"a  # b\", i) }"},
		{"x.sum(dim=1)", "x.sum(dim=1)"},
		{"print(a)\n;[a, b] = v\n", "print(a) ;[a, b] = v"},
	} {
		got, ok := OneLine(c.src)
		if !ok || got != c.want {
			t.Errorf("OneLine(%q) = %q, %v; want %q", c.src, got, ok, c.want)
		}
	}
	// An input whose line break the grammar reads, and one that does not
	// parse.
	for _, src := range []string{"let y = 1\nx\n", "fn f( {\n}"} {
		if got, ok := OneLine(src); ok {
			t.Errorf("OneLine(%q) = %q, true; want false", src, got)
		}
	}
}
