package parser

import (
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/ast"
)

// parseExprString parses src as the value of a let statement.
func parseExprString(t *testing.T, src string) ast.Expr {
	t.Helper()
	f, err := ParseFile("e.tr", []byte("let v = "+src))
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("parse %q: %d statements, want 1", src, len(f.Stmts))
	}
	return f.Stmts[0].(*ast.LetStmt).Value
}

// exprTests map an expression to its canonical tree.
var exprTests = []struct{ src, want string }{
	// Primaries.
	{"x", "x"},
	{"_a1", "_a1"},
	{"3", "3"},
	{"3.0", "3f"},
	{"1e-3", "0.001f"},
	{".5", "0.5f"},
	{"2.", "2f"},
	{"1_000_000", "1000000"},
	{"1_0.2_5e1_0", "1.025e+11f"},
	{"9223372036854775807", "9223372036854775807"},
	{`"a\n\t\"\\b"`, `"a\n\t\"\\b"`},
	{`""`, `""`},
	{`"héllo"`, `"héllo"`},
	{"true", "true"},
	{"false", "false"},
	{"none", "none"},
	{"[]", "[]"},
	{"[1]", "[1]"},
	{"[1, 2,]", "[1 2]"},
	{"[[1, 2], [3]]", "[[1 2] [3]]"},
	{"{}", "{}"},
	{`{w: 1, "b.c": 2,}`, "{w: 1 b.c: 2}"},
	{"{a: {b: 1}}", "{a: {b: 1}}"},
	{"(x)", "(paren x)"},
	{"((x))", "(paren (paren x))"},
	{"fn(x) => x * 2", "(fn lambda(x) => {return (x * 2)})"},
	{"fn() => 1", "(fn lambda() => {return 1})"},
	{"fn(a, b=1.0,) { return a }", "(fn lambda(a b=1f) {return a})"},
	{"fn(x) { let y = x; return y }", "(fn lambda(x) {let y = x; return y})"},
	{"fn(a, *r, k, j=1, **kw) => a", "(fn lambda(a *r kw:k kw:j=1 **kw) => {return a})"},
	{"fn(a=1, *, k) => a", "(fn lambda(a=1 kw:k) => {return a})"},
	{"f(k=1, *xs, **r)", "(call f k=1 *xs **r)"},
	{"f(x for x in xs)", "(call f (call (fn list comprehension() {let [comprehension] = []; for x in xs {[comprehension] = ([comprehension] + [x])}; return [comprehension]})))"},
	{"fn(x) => fn(y) => x + y", "(fn lambda(x) => {return (fn lambda(y) => {return (x + y)})})"},
	{"fn(r) => {a: r}", "(fn lambda(r) => {return {a: r}})"},

	// Level 1-2: or, and (left-associative, and binds tighter).
	{"a or b", "(a or b)"},
	{"a or b or c", "((a or b) or c)"},
	{"a and b and c", "((a and b) and c)"},
	{"a or b and c", "(a or (b and c))"},
	{"a and b or c", "((a and b) or c)"},
	// Level 3: not.
	{"not a", "(not a)"},
	{"not not a", "(not (not a))"},
	{"not a and b", "((not a) and b)"},
	{"a and not b", "(a and (not b))"},
	{"not a == b", "(not (a == b))"},
	{"not a or not b", "((not a) or (not b))"},
	// Level 4: comparisons, non-associative.
	{"a == b", "(a == b)"},
	{"a != b", "(a != b)"},
	{"a < b", "(a < b)"},
	{"a <= b", "(a <= b)"},
	{"a > b", "(a > b)"},
	{"a >= b", "(a >= b)"},
	{"a < b and b < c", "((a < b) and (b < c))"},
	{`f"x"`, `(fstring "x")`},
	{`f""`, `(fstring)`},
	{`f"a {x} b {y + 1:.2f}{z}"`, `(fstring "a " {x} " b " {(y + 1):.2f} {z})`},
	{`f"{{lit}} \t {r.k}"`, `(fstring "{lit} \t " {(. r k)})`},
	{`f"{x=} {f(a=1)=:>4}"`, `(fstring "x=" {x} " f(a=1)=" {(call f a=1):>4})`},
	{`f"{x:{w}.{p - 1}f} {y:>{d['w']}}"`, `(fstring {x:{w}.{(p - 1)}f} " " {y:>{(index d "w")}})`},
	{`f"{a != b} {a[1:2]} { {x: 1}.x } {fn(v) => v}"`, `(fstring {(a != b)} " " {(index a (slice 1 2 _))} " " {(. {x: 1} x)} " " {(fn lambda(v) => {return v})})`},
	{"a if c else b", "(a if c else b)"},
	{"a or b if c and d else e", "((a or b) if (c and d) else e)"},
	{"a if c else b if d else e", "(a if c else (b if d else e))"},
	{"fn(x) => x if x > 0 else -x", "(fn lambda(x) => {return (x if (x > 0) else (- x))})"},
	{"[x if x else 0 for x in xs if x]", "(call (fn list comprehension() {let [comprehension] = []; for x in xs {if x {[comprehension] = ([comprehension] + [(x if x else 0)])}}; return [comprehension]}))"},
	{"f(a if b else c, k=1 if d else 2)", "(call f (a if b else c) k=(1 if d else 2))"},
	{`{k: v for [k, v] in items(r) if v}`, `(call (fn record comprehension() {let [comprehension] = {}; for [for] in (call items r) {let [k v] = [for]; if v {[comprehension] = (set (index [comprehension] k) = v)}}; return [comprehension]}))`},
	{"[*a, b, *f(c)]", "[*a b *(call f c)]"},
	{"f(*a, b, **r, k=1)", "(call f *a b **r k=1)"},
	{"{**r, k: 1, **s}", "{: **r k: 1 : **s}"},
	{"a * b", "(a * b)"},
	{"a in b", "(a in b)"},
	{"a not in b + c", "(a not in (b + c))"},
	{"not a in b", "(not (a in b))"},
	{"a in b and c not in d", "((a in b) and (c not in d))"},
	{"[x for x in xs if x not in ys]", "(call (fn list comprehension() {let [comprehension] = []; for x in xs {if (x not in ys) {[comprehension] = ([comprehension] + [x])}}; return [comprehension]}))"},
	{"a + 1 < b * 2", "((a + 1) < (b * 2))"},
	{"(a < b) < c", "((paren (a < b)) < c)"},
	// Level 5: + -.
	{"a + b - c", "((a + b) - c)"},
	{"a - b - c", "((a - b) - c)"},
	{"a + b * c", "(a + (b * c))"},
	// Level 6: * / // % @.
	{"a * b / c // d % e @ f", "(((((a * b) / c) // d) % e) @ f)"},
	{"a @ b + c", "((a @ b) + c)"},
	{"a*b", "(a * b)"},
	// Level 7: unary minus.
	{"-a", "(- a)"},
	{"- -a", "(- (- a))"},
	{"-a * b", "((- a) * b)"},
	{"a * -b", "(a * (- b))"},
	{"a - -b", "(a - (- b))"},
	{"-1", "(- 1)"},
	// Level 8: ** right-associative, tighter than unary minus on its left.
	{"a ** b", "(a ** b)"},
	{"a ** b ** c", "(a ** (b ** c))"},
	{"-2 ** 2", "(- (2 ** 2))"},
	{"2 ** -1", "(2 ** (- 1))"},
	{"2 ** -1 ** 2", "(2 ** (- (1 ** 2)))"},
	{"a * b ** c", "(a * (b ** c))"},
	{"a ** b * c", "((a ** b) * c)"},
	{"x.T ** 2", "((. x T) ** 2)"},
	// Level 9: postfix.
	{"f()", "(call f)"},
	{"f(a)", "(call f a)"},
	{"f(a, b,)", "(call f a b)"},
	{"f(a, k=v, j=1 + 2)", "(call f a k=v j=(1 + 2))"},
	{"f(k=v)", "(call f k=v)"},
	{"f(a == b)", "(call f (a == b))"},
	{"f(a)(b)", "(call (call f a) b)"},
	{"x[i]", "(index x i)"},
	{"x[i, 1:3, :, -1, ::2, ::-1]", "(index x i (slice 1 3 _) (slice _ _ _) (- 1) (slice _ _ 2) (slice _ _ (- 1)))"},
	{"x[1:]", "(index x (slice 1 _ _))"},
	{"x[:2]", "(index x (slice _ 2 _))"},
	{"x[1:2:3]", "(index x (slice 1 2 3))"},
	{"x[..., 0]", "(index x ... 0)"},
	{"x[:, none, ...,]", "(index x (slice _ _ _) none ...)"},
	{"x[a+1:b*2]", "(index x (slice (a + 1) (b * 2) _))"},
	{"x[0][1]", "(index (index x 0) 1)"},
	{"r.name", "(. r name)"},
	{"r.a.b", "(. (. r a) b)"},
	{"x.sum(dim=1)", "(call (. x sum) dim=1)"},
	{"x.relu().sum()", "(call (. (call (. x relu)) sum))"},
	{"m[\"fc1.weight\"]", `(index m "fc1.weight")`},
	{"f(x)[0].y", "(. (index (call f x) 0) y)"},
	{"-x.y", "(- (. x y))"},
	{"-x[0] ** 2", "(- ((index x 0) ** 2))"},
	{"[1, 2][0]", "(index [1 2] 0)"},
	{"{a: 1}.a", "(. {a: 1} a)"},
	{`{0: a, -12: b, "0": c, 1_0: d}`, "{int 0: a int -12: b 0: c int 10: d}"},
	{"(a + b).c", "(. (paren (a + b)) c)"},
	{"\"s\".len()", `(call (. "s" len))`},
	{"fn(x) => x(1)", "(fn lambda(x) => {return (call x 1)})"},
	// Newlines are not significant.
	{"f(\n  a,\n  b\n)", "(call f a b)"},
	{"a +\n b", "(a + b)"},
	{"a # comment\n + b", "(a + b)"},
	{"x\n.sum()", "(call (. x sum))"},
	// Keywords need a word boundary.
	{"letter + iffy + note + android", "(((letter + iffy) + note) + android)"},
}

func TestExpressions(t *testing.T) {
	for _, tt := range exprTests {
		x := parseExprString(t, tt.src)
		if got := dump(x); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// stmtTests map a program to its statements' trees, joined by " | ".
var stmtTests = []struct{ src, want string }{
	{"let x = 1", "let x = 1"},
	{"x = 2", "x = 2"},
	{"r.k = 2", `r = (set (index r "k") = 2)`},
	{"r.k += 1", `r = (set (index r "k") += 1)`},
	{"let [v, i] = topk(x, 2)", "let [v i] = (call topk x 2)"},
	{"let [a,] = l", "let [a] = l"},
	{"[a, b] = [b, a]", "[a b] = [b a]"},
	{"f(); [a, b] = g()", "(call f) | [a b] = (call g)"},
	{"x += 1; x -= 2; x *= 3; x /= 4", "x += 1 | x -= 2 | x *= 3 | x /= 4"},
	{"x //= 2; x %= 3; x **= 2; x @= w", "x //= 2 | x %= 3 | x **= 2 | x @= w"},
	{"a, b = b, a", "[a b] = [b a]"},
	{"let a, b = f()", "let [a b] = (call f)"},
	{"let t = 1, 2", "let t = [1 2]"},
	{"return a, b", "return [a b]"},
	{"for i, x in xs {}", "for [for] in xs {let [i x] = [for]}"},
	{"for i, [a, b] in xs {}", "for [for] in xs {let [i [unpack 1]] = [for]; let [a b] = [unpack 1]}"},
	{"let [a, [b, [c]], [d]] = v", "let [a [unpack 1] [unpack 3]] = v | let [b [unpack 2]] = [unpack 1] | let [c] = [unpack 2] | let [d] = [unpack 3]"},
	{"l[0] **= 2", "l = (set (index l 0) **= 2)"},
	{"fn f(a, b, c=1.0) { return a }", "fn f (fn f(a b c=1f) {return a})"},
	{"fn f() {}", "fn f (fn f() {})"},
	{"fn f(a,) { return }", "fn f (fn f(a) {return})"},
	{"fn f() { return }\nf()", "fn f (fn f() {return}) | (call f)"},
	{"if a { f() }", "if a {(call f)}"},
	{"if a { f() } else { g() }", "if a {(call f)} else {(call g)}"},
	{"if a {} else if b {} else if c {} else {}", "if a {} else if b {} else if c {} else {}"},
	{"for i in range(10) { print(i) }", "for i in (call range 10) {(call print i)}"},
	{"for x in [1, 2] {}", "for x in [1 2] {}"},
	{"while i < 10 { i += 1 }", "while (i < 10) {i += 1}"},
	{"while true { break; continue }", "while true {break; continue}"},
	{`test "adds" { assert 1 + 1 == 2 }`, `test "adds" {assert ((1 + 1) == 2)}`},
	{`assert x, "msg"`, `assert x, "msg"`},
	{`import "lib/util.tr"`, `import "lib/util.tr" as util`},
	{`import "lib/util.tr" as u`, `import "lib/util.tr" as u`},
	{`import "model"`, `import "model" as model`},
	{`import "dir\\m.tr"`, `import "dir\\m.tr" as m`},
	{`import "../lib/x_y.tr"`, `import "../lib/x_y.tr" as x_y`},
	{`import "a/b-c.tr" as bc`, `import "a/b-c.tr" as bc`},
	{"del x", "del x"},
	{"print(1)", "(call print 1)"},
	{"x.backward()", "(call (. x backward))"},
	{"{ let x = 1 }", "{let x = 1}"},
	{"{}", "{}"},
	{";;let x = 1;;", "let x = 1"},
	{"", ""},
	{"# only a comment", ""},
	{"let a = 1 let b = 2", "let a = 1 | let b = 2"},
	{"let f = fn(x) { return x }\nf(1)", "let f = (fn lambda(x) {return x}) | (call f 1)"},
	{"let r = {w: 1}", "let r = {w: 1}"},
	{"return", "return"},
	{"return x", "return x"},
	// return takes the expression that follows, even on the next line.
	{"return\nf()", "return (call f)"},
	{"let x = a\n(b)", "let x = (call a b)"},
}

func TestStatements(t *testing.T) {
	for _, tt := range stmtTests {
		f, err := ParseFile("t.tr", []byte(tt.src))
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		var parts []string
		for _, s := range f.Stmts {
			parts = append(parts, dump(s))
		}
		if got := strings.Join(parts, " | "); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestREPLAcceptsExpressions(t *testing.T) {
	for _, src := range []string{"x", "1 + 2", "x.shape", "[1, 2]", "not x", "-x ** 2"} {
		if _, err := ParseREPL([]byte(src)); err != nil {
			t.Errorf("ParseREPL(%q): %v", src, err)
		}
		if _, err := ParseFile("f.tr", []byte(src)); err == nil {
			t.Errorf("ParseFile(%q) accepted an expression statement that is not a call", src)
		}
	}
	f, err := ParseREPL([]byte("x = 1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Stmts[0].(*ast.AssignStmt); !ok {
		t.Errorf("REPL x = 1 is %T, want an assignment", f.Stmts[0])
	}
	if f.Path != ReplFile || f.Stmts[0].Span().File != ReplFile {
		t.Errorf("REPL file %q, position %v; want %q", f.Path, f.Stmts[0].Span(), ReplFile)
	}
}

func TestNumberLiterals(t *testing.T) {
	tests := []struct {
		src   string
		isInt bool
		i     int64
		f     float64
	}{
		{"0", true, 0, 0},
		{"42", true, 42, 0},
		{"1_000_000", true, 1000000, 0},
		{"9223372036854775807", true, 9223372036854775807, 0},
		{"3.0", false, 0, 3},
		{"3.", false, 0, 3},
		{".5", false, 0, 0.5},
		{"1e-3", false, 0, 0.001},
		{"1E3", false, 0, 1000},
		{"2.5e+2", false, 0, 250},
		{"1_0e1_0", false, 0, 1e11},
		{"0.1", false, 0, 0.1},
	}
	for _, tt := range tests {
		x := parseExprString(t, tt.src)
		n, ok := x.(*ast.NumberLit)
		if !ok {
			t.Errorf("%q: %T, want *ast.NumberLit", tt.src, x)
			continue
		}
		if n.IsInt != tt.isInt || n.Int != tt.i || n.Float != tt.f || n.Raw != tt.src {
			t.Errorf("%q: got %+v, want IsInt=%v Int=%d Float=%g Raw=%q", tt.src, *n, tt.isInt, tt.i, tt.f, tt.src)
		}
	}
}

// TestConcurrentParse parses from several goroutines: the participle
// parsers are shared, so this is for -race.
func TestConcurrentParse(t *testing.T) {
	src := []byte("fn f(x, k=2) { return [x[1:], {a: x.sum(dim=k)}] }\nlet y = -f(3) ** 2\n")
	done := make(chan error)
	for range 4 {
		go func() {
			var err error
			for range 20 {
				if _, err = ParseFile("c.tr", src); err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestEmptyListsAreNotNil(t *testing.T) {
	f, err := ParseFile("n.tr", []byte("let v = [f(), {}, fn() {}]"))
	if err != nil {
		t.Fatal(err)
	}
	list := f.Stmts[0].(*ast.LetStmt).Value.(*ast.ListExpr)
	if call := list.Elems[0].(*ast.CallExpr); call.Args == nil {
		t.Error("call without arguments has nil Args")
	}
	if rec := list.Elems[1].(*ast.RecordExpr); rec.Fields == nil {
		t.Error("empty record has nil Fields")
	}
	if fn := list.Elems[2].(*ast.FnExpr); fn.Params == nil || fn.Body.Stmts == nil {
		t.Error("fn() {} has nil Params or Body.Stmts")
	}
	f, err = ParseFile("n.tr", []byte("let v = []"))
	if err != nil {
		t.Fatal(err)
	}
	if l := f.Stmts[0].(*ast.LetStmt).Value.(*ast.ListExpr); l.Elems == nil {
		t.Error("empty list has nil Elems")
	}
}

// An if with no else after its condition is read again by whoever owns
// it (a comprehension's filter, the next statement); conditions nested in
// such conditions are each tried once, so deep nesting parses (it took
// time exponential in the depth when every level tried its inner ifs
// again).
func TestNestedElselessIfs(t *testing.T) {
	filters, bodies := "1", "1"
	for range 40 {
		filters = "[v for v in [1] if " + filters + "]"
		bodies = "(fn() { let q = 1\n if " + bodies + " { return 1 } })()"
	}
	for _, src := range []string{"let x = " + filters, "let y = " + bodies} {
		if _, err := ParseFile("n.tr", []byte(src)); err != nil {
			t.Errorf("%.40s...: %v", src, err)
		}
	}
}
