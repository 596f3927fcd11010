package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/stdlib"
)

// newTestREPL is a REPL over a session that writes to buffers.
func newTestREPL(t *testing.T) (*repl, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, universe: stdlib.Universe()}
	s, err := c.newSession(defaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.finish() })
	return &repl{c: c, s: s}, &stdout, &stderr
}

func TestComplete(t *testing.T) {
	r, _, stderr := newTestREPL(t)
	for _, line := range []string{
		"let my_long_variable = 5",
		"let rec = {alpha: 1, beta: {gamma: 2}}",
		"let t = ones([2])",
	} {
		r.feed(line)
	}
	if stderr.Len() > 0 {
		t.Fatalf("setup failed: %s", stderr)
	}
	for _, tc := range []struct {
		line string
		pos  int // -1: end of line
		head string
		want []string
		tail string
	}{
		{"my_long_v", -1, "", []string{"my_long_variable"}, ""},
		{"print(my_l", -1, "print(", []string{"my_long_variable"}, ""},
		{"rec.al", -1, "", []string{"rec.alpha"}, ""},
		{"rec.beta.ga", -1, "", []string{"rec.beta.gamma"}, ""},
		{"1 + t.sh", -1, "1 + ", []string{"t.shape", "t.short"}, ""},
		{"t.resh", -1, "", []string{"t.reshape", "t.reshape_as"}, ""},
		{"math.sq", -1, "", []string{"math.sqrt"}, ""},
		{"x = math.lo", -1, "x = ", []string{"math.log", "math.log10", "math.log1p", "math.log2"}, ""},
		{"whi", -1, "", []string{"while"}, ""},
		{"sigm(x)", 4, "", []string{"sigmoid"}, "(x)"},
		{"nothing_like_this", -1, "", nil, ""},
		{"f(1).sh", -1, "f(1)", nil, ""},
	} {
		pos := tc.pos
		if pos < 0 {
			pos = len(tc.line)
		}
		head, got, tail := r.complete(tc.line, pos)
		if head != tc.head || tail != tc.tail || !slices.Equal(got, tc.want) {
			t.Errorf("complete(%q, %d) = %q, %q, %q; want %q, %q, %q", tc.line, pos, head, got, tail, tc.head, tc.want, tc.tail)
		}
	}
	// Completing evaluates nothing with effects and keeps the session.
	r.feed("my_long_variable")
	if stderr.Len() > 0 {
		t.Fatalf("session broken after completion: %s", stderr)
	}
}

// :help names a builtin, a member of a namespace (math.sqrt, math.pi) or
// a method (str.format).
func TestHelpCommand(t *testing.T) {
	r, stdout, stderr := newTestREPL(t)
	for _, tc := range []struct{ line, want string }{
		{":help sorted", "sorted(iterable, key=none, reverse=false):"},
		{":help math.sqrt", "math.sqrt: square root\n"},
		{":help math.pi", "math.pi = 3.141592653589793\n"},
		{":help str.format", "s.format(*args, **kwargs): s with each replacement field"},
	} {
		stdout.Reset()
		r.command(tc.line)
		if !strings.HasPrefix(stdout.String(), tc.want) {
			t.Errorf("%s wrote %q, want it to start %q", tc.line, stdout.String(), tc.want)
		}
	}
	r.command(":help math.nope")
	if !strings.Contains(stderr.String(), `no builtin named "math.nope"`) {
		t.Errorf(":help math.nope: stderr %q", stderr.String())
	}
}
