package eval_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/stdlib"
)

// TestBuiltinsRejectBadArguments calls every builtin with argument lists
// of the wrong number and kinds — nothing, none, strings, lists, records,
// functions, empty and odd-shaped tensors, extreme numbers — and checks
// that each call either works or fails with a positioned error: never a
// Go panic (an internal error), and no tensor left alive.
func TestBuiltinsRejectBadArguments(t *testing.T) {
	skip := map[string]bool{"load": true, "save": true} // they touch files
	args := []string{
		"", "none", `"x"`, "[]", "[1, 2]", "{a: 1}", "print", "fn(x) => x", "range(3)",
		"0", "-1", "9223372036854775807", "(-9223372036854775807 - 1)", "2.5", "(0.0 / 0.0)", "true",
		"zeros([0])", "ones([2, 0, 3])", "ones([])", "arange(6).reshape([2, 3])", "ones([3]) > 0",
		"ones([2, 3]), ones([3, 2])", "ones([2]), ones([3])", "ones([4]), 0", "ones([4]), -5",
		"ones([2, 2]), [2, 2]", "[ones([2]), ones([3])]", "ones([2]), dim=7", "ones([2]), dtype=\"bogus\"",
		"ones([2, 3]), 1, 2, 3, 4, 5", "x=1", "ones([2]), none, none",
		"[9223372036854775807, 9223372036854775807]", "[-1]", "[[1, 2], [3]]", "ones([1, 1, 4, 4]), ones([1, 1, 3, 3])",
		"ones([2, 3]), ones([2]), ones([2])", "tensor([1, 2]), tensor([0, 1])", "astype(ones([2]), \"int64\"), 0",
	}
	names := make([]string, 0, len(stdlib.Universe()))
	for name := range stdlib.Universe() {
		if !skip[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	s := newSession(t, 8)
	defer s.in.Close()
	calls, failed := 0, 0
	for _, name := range names {
		for _, a := range args {
			src := fmt.Sprintf("%s(%s)", name, a)
			v, err := s.in.EvalREPL(src)
			calls++
			if err != nil {
				failed++
			}
			if v != nil {
				eval.Release(s.rt, v)
			}
			if err != nil {
				if strings.Contains(err.Error(), "internal error") {
					t.Errorf("%s: %v", src, err)
					continue
				}
				var e *eval.Error
				if !asEvalOrStatic(err, &e) {
					t.Errorf("%s: unpositioned error %T: %v", src, err, err)
				}
			}
			if n := s.rt.LiveRefs(); n != 0 {
				t.Fatalf("%s: %d refs alive afterwards", src, n)
			}
		}
	}
	t.Logf("%d calls of %d builtins, %d failed", calls, len(names), failed)
}

// asEvalOrStatic reports whether err is a runtime error (*eval.Error,
// stored in e) or a static error list.
func asEvalOrStatic(err error, e **eval.Error) bool {
	if ee, ok := err.(*eval.Error); ok {
		*e = ee
		return ee.Pos.IsValid()
	}
	return strings.HasPrefix(err.Error(), "<repl>:")
}
