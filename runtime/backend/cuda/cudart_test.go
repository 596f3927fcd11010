package cuda

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadMissing: without a CUDA runtime library Load names what it
// tried, in one line.
func TestLoadMissing(t *testing.T) {
	_, err := Load([]string{"libcudart-absent.so.99"})
	if err == nil || !strings.Contains(err.Error(), "libcudart-absent.so.99") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v", err)
	}
}

// TestLoadWrongLibrary: a library without the runtime's functions (libc)
// is refused naming the first missing one.
func TestLoadWrongLibrary(t *testing.T) {
	_, err := Load([]string{"libc.so.6"})
	if err == nil || !strings.Contains(err.Error(), "has no cudaSetDevice") {
		t.Fatalf("got %v", err)
	}
}

// TestNoPointersThroughWrappers: every Go pointer handed to C is
// converted to a uintptr in purego.SyscallN's own argument list, where
// go:uintptrescapes keeps what it points to on the heap and alive (see
// cudart.call). Passed through another function as a plain uintptr, a
// pointer to a local points into a stack that may move before C writes
// through it. Checked over this package and the torch plugin's.
func TestNoPointersThroughWrappers(t *testing.T) {
	for _, dir := range []string{".", "../torch"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range pointersThroughWrappers(f) {
				t.Errorf("%s: a Go pointer passed to %s as a uintptr: convert it in purego.SyscallN's arguments", fset.Position(bad.Pos()), exprText(bad.Fun))
			}
		}
	}
	// The check itself sees the pattern it forbids.
	src := "package p\nfunc f() { var x int; wrap(fn, uintptr(unsafe.Pointer(&x))); purego.SyscallN(fn, uintptr(unsafe.Pointer(&x))) }"
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if bad := pointersThroughWrappers(f); len(bad) != 1 || exprText(bad[0].Fun) != "wrap" {
		t.Fatalf("the check found %d calls in its own example, want wrap alone", len(bad))
	}
}

// pointersThroughWrappers lists f's calls other than purego.SyscallN that
// take a uintptr(unsafe.Pointer(...)) argument.
func pointersThroughWrappers(f *ast.File) []*ast.CallExpr {
	var bad []*ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || exprText(call.Fun) == "purego.SyscallN" {
			return true
		}
		for _, a := range call.Args {
			conv, ok := a.(*ast.CallExpr)
			if !ok || exprText(conv.Fun) != "uintptr" || len(conv.Args) != 1 {
				continue
			}
			if inner, ok := conv.Args[0].(*ast.CallExpr); ok && exprText(inner.Fun) == "unsafe.Pointer" {
				bad = append(bad, call)
				break
			}
		}
		return true
	})
	return bad
}

// exprText spells a function expression: an identifier or pkg.Name.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	}
	return ""
}
