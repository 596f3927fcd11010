package parser

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/ast"
)

// deepInputs nest past ast.MaxDepth in every way the grammar allows, far
// enough that a parser without limits exhausted the stack (issue 15);
// each names where the error must be: where the parse stopped, past the
// limit (a chain at its MaxDepth-th operator, a construct read by
// recursion where the productions open reach maxOpen).
var deepInputs = []struct{ name, src, want string }{
	{"lambdas", "let x = " + strings.Repeat("fn() => ", 110000) + "1", "t.tr:1:8033: expression nested too deeply (limit 1000)"},
	{"sum", "let x = 1" + strings.Repeat(" + 1", 800000), "t.tr:1:4007: expression nested too deeply (limit 1000)"},
	{"fields", "let x = a" + strings.Repeat(".b", 300000), "t.tr:1:2008: expression nested too deeply (limit 1000)"},
	{"indexes", "let y = x" + strings.Repeat("[0]", 300000), "t.tr:1:3007: expression nested too deeply (limit 1000)"},
	{"calls", "f" + strings.Repeat("()", 300000), "t.tr:1:2000: expression nested too deeply (limit 1000)"},
	{"parens", "let x = " + strings.Repeat("(", 300000) + "1" + strings.Repeat(")", 300000), "t.tr:1:1012: expression nested too deeply (limit 1000)"},
	{"lists", "let x = " + strings.Repeat("[", 300000) + strings.Repeat("]", 300000), "t.tr:1:1012: expression nested too deeply (limit 1000)"},
	{"powers", "let x = 2" + strings.Repeat(" ** 2", 300000), "t.tr:1:10041: expression nested too deeply (limit 1000)"},
	{"blocks", strings.Repeat("{", 300000) + strings.Repeat("}", 300000), "t.tr:1:2009: statement nested too deeply (limit 1000)"},
	{"else if", "if a {}" + strings.Repeat(" else if a {}", 100000), "t.tr:1:26095: expression nested too deeply (limit 1000)"},
	{"calls in calls", "let x = " + strings.Repeat("f(", 300000) + strings.Repeat(")", 300000), "t.tr:1:2015: expression nested too deeply (limit 1000)"},
}

// TestDeepNesting checks that input nested past the limit is an error at
// the construct that went past it, under a Go stack far smaller than the
// default (so a parser without limits fails here rather than merely
// using a lot of stack).
func TestDeepNesting(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	for _, tt := range deepInputs {
		_, err := ParseFile("t.tr", []byte(tt.src))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %s", tt.name, err, tt.want)
		}
	}
}

// TestDepthLimitIsExact checks that the tree may be exactly ast.MaxDepth
// deep, for chains read in a loop and constructs read by recursion.
func TestDepthLimitIsExact(t *testing.T) {
	n := ast.MaxDepth - 1 // below the statement at depth 1
	for _, src := range []string{
		"let x = a" + strings.Repeat(" + a", n-1),
		"let x = a" + strings.Repeat(".b", n-1),
		"let x = " + strings.Repeat("-", n-1) + "1",
		"let x = " + strings.Repeat("(", n-1) + "1" + strings.Repeat(")", n-1),
		"let x = " + strings.Repeat("[", n) + strings.Repeat("]", n),
	} {
		f, err := ParseFile("t.tr", []byte(src))
		if err != nil {
			t.Fatalf("%.40s...: %v", src, err)
		}
		if ast.TooDeep(f.Stmts[0], ast.MaxDepth) != nil || ast.TooDeep(f.Stmts[0], ast.MaxDepth-1) == nil {
			t.Errorf("%.40s...: the tree is not exactly %d deep", src, ast.MaxDepth)
		}
		if _, err := ParseFile("t.tr", []byte(strings.Replace(src, "let x = ", "let x = -", 1))); err == nil {
			t.Errorf("%.40s...: one level more parses", src)
		}
	}
}

// TestLongList checks a list literal of 100001 elements (its tails are
// read by parseExprTails): every element, in order, at its position.
func TestLongList(t *testing.T) {
	src := "let x = [" + strings.Repeat("1, ", 100000) + "2,]"
	f, err := ParseFile("t.tr", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	l := f.Stmts[0].(*ast.LetStmt).Value.(*ast.ListExpr)
	if len(l.Elems) != 100001 {
		t.Fatalf("%d elements", len(l.Elems))
	}
	last := l.Elems[100000].(*ast.NumberLit)
	if last.Int != 2 || last.At.Col != 10+3*100000 {
		t.Errorf("last element %s at %v", last.Raw, last.At)
	}
}
