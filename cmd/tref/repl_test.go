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

// A list method statement shows nothing, as Python's None; the same
// statement on a tensor (t.sort()) is the call, and shows its result.
func TestREPLMutationStatements(t *testing.T) {
	r, stdout, stderr := newTestREPL(t)
	for _, line := range []string{"let xs = [1]", "xs.append(2)", "xs", "let t = tensor([2.0, 1.0])", "t.sort()"} {
		r.feed(line)
	}
	if stderr.Len() > 0 {
		t.Fatalf("stderr: %s", stderr.String())
	}
	want := "[1, 2]\n{values: tensor([1., 2.]), indices: tensor([1, 0])}\n"
	if got := stdout.String(); got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
}
