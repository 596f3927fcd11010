package eval_test

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestDeeplyNestedValues builds a list nested 300000 levels deep (l = [l]
// in a loop) under a small Go stack limit. Releasing it used to recurse
// once per level and printing or comparing it too: a fatal Go stack
// overflow. Now == of a list with itself is immediate, print, str and ==
// past 1000 levels are errors, and the release walks a work list.
func TestDeeplyNestedValues(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	out, err := run(t, `let l = []
let m = []
for i in range(300000) {
  l = [l]
  m = [m]
}
print(l == l)
assert_error(fn() => l == m, "cannot compare values nested more than 1000 levels deep")
assert_error(fn() => print(l), "cannot print a value nested more than 1000 levels deep")
assert_error(fn() => str(m), "cannot print a value nested more than 1000 levels deep")
print(str([[[1, {a: [2]}]]]))
`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "true\n[[[1, {a: [2]}]]]\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if strings.Contains(out, "...") {
		t.Error("a partial value was printed")
	}
}
