package resolve_test

import (
	"testing"

	"github.com/tref-lang/tref/lang/resolve"
	"github.com/tref-lang/tref/stdlib"
)

// TestNoAdviceForABuiltin: no torch name the resolver gives advice for
// is a builtin (the advice would be stale: the name resolves, so it
// never shows), and each name it points to is one.
func TestNoAdviceForABuiltin(t *testing.T) {
	u := stdlib.Universe()
	for name, to := range resolve.TorchNames {
		if _, ok := u[name]; ok {
			t.Errorf("%q is a builtin, but the resolver has advice for it (%q)", name, to)
		}
		if to[0] != '!' {
			if _, ok := u[to]; !ok {
				t.Errorf("the resolver points %q to %q, which is not a builtin", name, to)
			}
		}
	}
}
