package main

import (
	"strings"
	"testing"
)

// A traceback into a function an earlier input defined names and quotes
// that input's line: inputs number their lines on through the session.
func TestREPLPositionsSpanInputs(t *testing.T) {
	r, _, stderr := newTestREPL(t)
	for _, line := range []string{"let a = 1", "fn f() {", "  return a", "}", "del a", "f()"} {
		r.feed(line)
	}
	got := stderr.String()
	for _, want := range []string{
		`<repl>:3:10: "a" has no value here`,
		"\n      return a\n             ^\n",
		"at f (<repl>:3:10)",
		"at <module> (<repl>:6:",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
}

// An input still open (more lines to come) does not take line numbers of
// its own: the lines count once, when the input is complete.
func TestREPLContinuedInputCountsOnce(t *testing.T) {
	r, _, stderr := newTestREPL(t)
	for _, line := range []string{"let x = [1,", "2]", "x[5]"} {
		r.feed(line)
	}
	if got, want := stderr.String(), "<repl>:3:"; !strings.Contains(got, want) {
		t.Errorf("stderr lacks %q:\n%s", want, got)
	}
}
