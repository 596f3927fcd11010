package eval

import (
	"maps"
	"slices"
	"testing"

	"github.com/tref-lang/tref/lang/ast"
)

// The parser makes a MutateExpr of exactly the methods the evaluator
// implements on lists and records.
func TestMutatorsMatchTheParser(t *testing.T) {
	have := map[string]bool{}
	for name := range listMutators {
		have[name] = true
	}
	for name := range recordMutators {
		have[name] = true
	}
	got, want := slices.Sorted(maps.Keys(have)), slices.Sorted(maps.Keys(ast.Mutators))
	if !slices.Equal(got, want) {
		t.Errorf("the evaluator implements %v, the parser rewrites %v", got, want)
	}
}
