package resolve_test

import (
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/parser"
	"github.com/tref-lang/tref/lang/resolve"
)

var universe = map[string]bool{"print": true, "range": true, "len": true, "sum": true, "relu": true, "cat": true, "tensor": true}

func resolveSrc(t *testing.T, src string, opts resolve.Options) (*ast.File, *resolve.Module, error) {
	t.Helper()
	f, err := parser.ParseFile("t.tr", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if opts.Universe == nil {
		opts.Universe = universe
	}
	m, err := resolve.File(f, opts)
	return f, m, err
}

func TestStaticErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"let count = 1\nprint(cuont)", `t.tr:2:7: undefined name "cuont"; did you mean "count"?`},
		{"prnt(1)", `t.tr:1:1: undefined name "prnt"; did you mean "print"?`},
		{"print(as_tensor(1))", `t.tr:1:7: undefined name "as_tensor"; did you mean "tensor"? (torch's as_tensor is tref's tensor)`},
		{"print(amax(1))", `t.tr:1:7: undefined name "amax"`},
		{"print(nansum(1))", `t.tr:1:7: undefined name "nansum"`},
		{"F.relu(1)", `t.tr:1:1: undefined name "F"; tref's builtins are global: F.relu(x) is relu(x)`},
		{"let x = 1\nlet x = 2", `t.tr:2:5: "x" is already declared in this block (at 1:5); use "x = ..." to rebind it`},
		{"y = 3", `t.tr:1:1: cannot assign to undeclared name "y"; declare it with "let y = ..."`},
		{"let yy = 1\nyz = 3", `t.tr:2:1: cannot assign to undeclared name "yz"; declare it with "let yz = ..."; did you mean "yy"?`},
		{"print = 3", `t.tr:1:1: cannot assign to builtin "print"; declare a variable with "let print = ..."`},
		{"break", "t.tr:1:1: break outside a loop"},
		{"while true { fn f() { continue } }", "t.tr:1:23: continue outside a loop"},
		{"return 1", "t.tr:1:1: return outside a function"},
		{"print(z)\nlet z = 1", `t.tr:1:7: "z" is used before its declaration (at 2:5)`},
		{"fn f() {\n  if true { f(z) }\n  let z = 1\n}", `t.tr:2:15: "z" is used before its declaration (at 3:7)`},
		{"fn f() {\n  { f(z) }\n  { let z = 1 }\n}", `t.tr:2:7: undefined name "z"`},
		{"let a = 1\nprint(b)", `t.tr:2:7: undefined name "b"`},
		{"print(null, nil)", "t.tr:1:7: undefined name \"null\"; tref writes none\nt.tr:1:13: undefined name \"nil\"; tref writes none"},
		{"fn f(a) { let a = 2 }", `t.tr:1:15: "a" is already declared in this block (at 1:6); use "a = ..." to rebind it`},
		{"for i in range(3) { let i = 0 }", `t.tr:1:25: "i" is already declared in this block (at 1:5); use "i = ..." to rebind it`},
		{"del print", `t.tr:1:5: cannot delete builtin "print"; declare a variable with "let print = ..."`},
		{"{ let q = 1 }\nprint(q)", `t.tr:2:7: undefined name "q"`},
	}
	for _, c := range cases {
		_, _, err := resolveSrc(t, c.src, resolve.Options{})
		if err == nil {
			t.Errorf("%q: no error, want %s", c.src, c.want)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, err, c.want)
		}
	}
}

func TestValidPrograms(t *testing.T) {
	srcs := []string{
		// functions see globals declared below them, and each other
		"fn a(n) { return b(n) }\nfn b(n) { return n + later }\nlet later = 1\nprint(a(1))",
		// shadowing in inner blocks and of builtins
		"let x = 1\nif true { let x = 2\nprint(x) }\nlet sum = 3\nprint(sum)",
		// recursion through the function's own name
		"fn f(n) { if n == 0 { return 0 } return f(n - 1) }",
		"fn outer() { fn inner(n) { if n == 0 { return 0 } return inner(n - 1) } return inner }",
		"test \"t\" { let y = 2\nassert y == 2 }",
	}
	for _, src := range srcs {
		if _, _, err := resolveSrc(t, src, resolve.Options{}); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

func TestBindingKinds(t *testing.T) {
	src := `let g = 1
fn outer(p) {
  let local = 2
  let captured = 3
  fn mid() {
    fn inner() { return captured + g }
    return inner
  }
  return local + p
}`
	f, _, err := resolveSrc(t, src, resolve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outer := f.Stmts[1].(*ast.FnStmt).Fn
	kinds := map[string]ast.BindingKind{}
	for _, b := range outer.Locals {
		kinds[b.Name] = b.Kind
	}
	want := map[string]ast.BindingKind{"p": ast.Local, "local": ast.Local, "captured": ast.Cell, "mid": ast.Local}
	for n, k := range want {
		if kinds[n] != k {
			t.Errorf("%s: kind %d, want %d", n, kinds[n], k)
		}
	}
	mid := outer.Body.Stmts[2].(*ast.FnStmt).Fn
	if len(mid.FreeVars) != 1 || mid.FreeVars[0].Name != "captured" {
		t.Errorf("mid captures %v, want [captured] (passed through to inner)", names(mid.FreeVars))
	}
	if g := f.Scope.Bindings[0]; g.Kind != ast.Global || g.Name != "g" {
		t.Errorf("g is %+v, want a global", g)
	}
}

func names(bs []*ast.Binding) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

// reads lists every identifier read of the tree in source order, with a
// '*' after the ones marked as last use, and '!' after declarations whose
// value is dead at once.
func reads(f *ast.File) string {
	type item struct {
		pos ast.Pos
		s   string
	}
	var items []item
	var expr func(e ast.Expr)
	var stmt func(s ast.Stmt)
	decl := func(id *ast.Ident) {
		if id != nil && id.LastUse {
			items = append(items, item{id.At, id.Name + "!"})
		}
	}
	block := func(b *ast.Block) {
		if b != nil {
			for _, s := range b.Stmts {
				stmt(s)
			}
		}
	}
	expr = func(e ast.Expr) {
		switch e := e.(type) {
		case *ast.Ident:
			if e.Builtin {
				return
			}
			s := e.Name
			if e.LastUse {
				s += "*"
			}
			items = append(items, item{e.At, s})
		case *ast.ListExpr:
			for _, x := range e.Elems {
				expr(x)
			}
		case *ast.RecordExpr:
			for _, x := range e.Fields {
				expr(x.Value)
			}
		case *ast.FnExpr:
			for _, p := range e.Params {
				expr(p.Default)
			}
			block(e.Body)
		case *ast.BinaryExpr:
			expr(e.X)
			expr(e.Y)
		case *ast.UnaryExpr:
			expr(e.X)
		case *ast.CallExpr:
			expr(e.Fn)
			for _, a := range e.Args {
				expr(a.Value)
			}
		case *ast.IndexExpr:
			expr(e.X)
			for _, x := range e.Indices {
				expr(x)
			}
		case *ast.SliceExpr:
			expr(e.Lo)
			expr(e.Hi)
			expr(e.Step)
		case *ast.FieldExpr:
			expr(e.X)
		case *ast.ParenExpr:
			expr(e.X)
		}
	}
	stmt = func(s ast.Stmt) {
		switch s := s.(type) {
		case *ast.LetStmt:
			expr(s.Value)
			decl(s.Name)
		case *ast.AssignStmt:
			expr(s.Value)
			decl(s.Target)
		case *ast.FnStmt:
			decl(s.Name)
			expr(s.Fn)
		case *ast.ReturnStmt:
			expr(s.Value)
		case *ast.IfStmt:
			expr(s.Cond)
			block(s.Then)
			if s.Else != nil {
				stmt(s.Else)
			}
		case *ast.ForStmt:
			expr(s.Iter)
			decl(s.Var)
			block(s.Body)
		case *ast.WhileStmt:
			expr(s.Cond)
			block(s.Body)
		case *ast.TestStmt:
			block(s.Body)
		case *ast.AssertStmt:
			expr(s.Cond)
			expr(s.Msg)
		case *ast.ExprStmt:
			expr(s.X)
		case *ast.Block:
			block(s)
		}
	}
	for _, s := range f.Stmts {
		stmt(s)
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i].pos, items[j].pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	var out []string
	for _, it := range items {
		out = append(out, it.s)
	}
	return strings.Join(out, " ")
}

func bindingNames(bs []*ast.Binding) string { return strings.Join(names(bs), ",") }

func TestLastUse(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"straight line", `fn f(a, b) {
  let c = a + b
  let d = c * a
  return d + c
}`, "a b* c a* d* c*"},
		{"loop-carried accumulator", `fn f(xs, w) {
  let acc = 0
  for x in xs {
    acc = acc + x * w
  }
  return acc
}`, "xs* acc* x* w acc*"},
		{"value used in the next iteration", `fn f(n) {
  let prev = 0
  let cur = 1
  while cur < n {
    let next = prev + cur
    prev = cur
    cur = next
  }
  return prev
}`, "cur n prev* cur cur* next* prev*"},
		{"captured variables are never dropped early", `fn f(x) {
  let y = x + 1
  print(y)
  let g = fn() => y
  return g
}`, "x* y y g*"},
		{"branches", `fn f(c, x) {
  if c { print(x) } else { print(1) }
  return 0
}`, "c* x*"},
		{"dead store", `fn f(x) {
  let unused = x * 2
  return 1
}`, "unused! x*"},
		{"break and continue", `fn f(xs, w) {
  for x in xs {
    if x > 3 { break }
    if x < 0 { continue }
    print(x * w)
  }
  return 0
}`, "xs* x x x* w"},
		{"unused loop variable", `fn f() {
  for i in range(3) { print(1) }
}`, "i!"},
		{"compound assignment keeps the target", `fn f(x) {
  let s = 0
  s += x
  s += s
  return s
}`, "x* s* s*"},
	}
	for _, c := range cases {
		f, _, err := resolveSrc(t, c.src, resolve.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := reads(f); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestDrops(t *testing.T) {
	src := `fn f(c, x, y, n) {
  if c { print(x) } else { print(y) }
  let i = 0
  while i < n { i += 1 }
  return 0
}`
	f, m, err := resolveSrc(t, src, resolve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := f.Stmts[0].(*ast.FnStmt).Fn.Body.Stmts
	ifs := body[0].(*ast.IfStmt)
	if got := bindingNames(m.Live.Then[ifs]); got != "y" {
		t.Errorf("then drops %q, want y", got)
	}
	if got := bindingNames(m.Live.Else[ifs]); got != "x" {
		t.Errorf("else drops %q, want x", got)
	}
	if got := bindingNames(m.Live.Exit[body[2]]); got != "n,i" {
		t.Errorf("loop exit drops %q, want n,i", got)
	}
	if got := reads(f); got != "c* x* y* i n" {
		t.Errorf("reads %s", got)
	}
}

func TestShortCircuitDrops(t *testing.T) {
	src := "fn f(a, b) { if a > 0 and b > 0 { return 1 } return 0 }"
	f, m, err := resolveSrc(t, src, resolve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cond := f.Stmts[0].(*ast.FnStmt).Fn.Body.Stmts[0].(*ast.IfStmt).Cond.(*ast.BinaryExpr)
	if got := bindingNames(m.Live.Short[cond]); got != "b" {
		t.Errorf("short-circuit drops %q, want b", got)
	}
}

func TestGlobals(t *testing.T) {
	src := `let w = 2
let x = 3
fn scale(v) { return v * w }
let y = scale(x)
print(y)
test "t" { print(x) }`
	f, _, err := resolveSrc(t, src, resolve.Options{TrackGlobals: true})
	if err != nil {
		t.Fatal(err)
	}
	// x is read by a test and w by a function: neither is dropped early;
	// scale and y are only used at the top level.
	if got := reads(f); got != "v* w scale* x y* x" {
		t.Errorf("reads %s", got)
	}
	f, _, err = resolveSrc(t, src, resolve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := reads(f); got != "v* w scale x y x" {
		t.Errorf("without TrackGlobals: reads %s", got)
	}
}

func TestREPLRedeclare(t *testing.T) {
	f1, m1, err := resolveSrc(t, "let a = 1\nfn g() { return a }", resolve.Options{REPL: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = f1
	f2, m2, err := resolveSrc(t, "let a = 2\nlet b = a", resolve.Options{REPL: true, Predeclared: m1.Globals})
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Globals) != 3 {
		t.Fatalf("globals %v, want a g b", names(m2.Globals))
	}
	if b := f2.Stmts[0].(*ast.LetStmt).Name.Binding; b != m1.Globals[0] {
		t.Errorf("re-let a made a new binding %+v", b)
	}
	if got := reads(f2); got != "a" {
		t.Errorf("REPL globals must never be dropped: %s", got)
	}
}

func ExampleSuggest() {
	fmt.Println(resolve.Suggest("lenght", []string{"len", "length", "print"}))
	// Output: length
}

// TestDeepTree checks that a tree deeper than the parser makes (built by
// hand: a chain of a million additions) is an error, not a Go stack
// overflow in the resolver or the phases after it.
func TestDeepTree(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	var x ast.Expr = &ast.NumberLit{At: ast.Pos{File: "d.tr", Line: 1, Col: 9}, Raw: "1", IsInt: true, Int: 1}
	for i := range 1000000 {
		x = &ast.BinaryExpr{At: ast.Pos{File: "d.tr", Line: 1, Col: 11 + 4*i}, Op: "+", X: x, Y: &ast.NumberLit{Raw: "1", IsInt: true, Int: 1}}
	}
	f := &ast.File{Path: "d.tr", Stmts: []ast.Stmt{&ast.LetStmt{At: ast.Pos{File: "d.tr", Line: 1, Col: 1}, Name: &ast.Ident{Name: "x"}, Value: x}}}
	_, err := resolve.File(f, resolve.Options{})
	if want := "d.tr:1:3996011: expression nested too deeply (limit 1000)"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
