package parser

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// fastOnly parses src with the fast parser alone: ok is false where parse
// would fall back to participle.
func fastOnly(path string, src []byte, repl bool) (f *ast.File, ok bool) {
	toks, errs := scan(path, src, 1)
	if len(errs) > 0 || checkNesting(toks) != nil {
		return nil, false
	}
	peek, err := lexer.Upgrade(&tokenLexer{toks: toks})
	if err != nil {
		return nil, false
	}
	g, ok := fastParse(peek, toks)
	if !ok {
		return nil, false
	}
	c := &converter{repl: repl, toks: toks}
	f = &ast.File{Path: path, Stmts: c.stmts(g.Stmts)}
	return f, len(c.errs) == 0
}

// slowParse parses with participle alone.
func slowParse(path string, src []byte, repl bool) (*ast.File, error) {
	useFastParser = false
	defer func() { useFastParser = true }()
	return parse(path, src, repl, 1)
}

// compareParsers checks that the fast parser accepts exactly the programs
// participle accepts and builds the same trees for them.
func compareParsers(t *testing.T, src string) {
	t.Helper()
	for _, repl := range []bool{false, true} {
		fast, ok := fastOnly("f.tr", []byte(src), repl)
		slow, err := slowParse("f.tr", []byte(src), repl)
		switch {
		case ok && err != nil:
			t.Fatalf("repl=%v %q: the fast parser accepts what participle rejects: %v", repl, src, err)
		case !ok && err == nil:
			t.Fatalf("repl=%v %q: the fast parser rejects a correct program", repl, src)
		case ok && !reflect.DeepEqual(fast, slow):
			t.Fatalf("repl=%v %q: trees differ:\nfast %s\nslow %s", repl, src, dumpFile(fast), dumpFile(slow))
		}
	}
}

func dumpFile(f *ast.File) string {
	var b strings.Builder
	for _, s := range f.Stmts {
		fmt.Fprintf(&b, "%s@%v; ", dump(s), s.Span())
	}
	return b.String()
}

// fastParseCases are correct and incorrect programs at the corners of the
// grammar.
var fastParseCases = []string{
	"", ";;", "{}", "{ { } }", "f()", "f(,)", "f(1,)", "f(1,,2)", "f(a=1, b=2,)", "f(a, b=2)", "f(1 = 2)",
	"x[1,]", "x[,]", "x[]", "x[:]", "x[::]", "x[1:2:3, :, ::-1, 4]", "x[1:2:3:4]", "x[a b]",
	"let r = {}", "let r = {a: 1, \"b c\": 2,}", "let r = {a: 1,, b: 2}", "let r = {1: 2}", "let r = {a}",
	"let l = []", "let l = [,]", "let l = [1,]", "let l = [1,,2]",
	"let f = fn() => 1", "let f = fn(a, b=2,) { return a }", "let f = fn(a,,b) {}", "let f = fn(a) 1",
	"fn f(a, b = 1) { return }", "fn(x) => x", "fn (x) {}", "(fn(x) => x)(1)",
	"if a { } else if b { } else { }", "if a { } else c", "if a {} else",
	"for i in range(3) { break; continue }", "while x < 3 { x += 1 }",
	"test \"t\" { assert 1, \"m\" }", "import \"a.tr\"", "import \"a.tr\" as b", "import \"\"", "del x",
	"x = 1", "x.y = 1", "x[0] = 1", "f() = 1", "1 + 2", "x == 1", "a.b.c(d).e[f].g",
	"let y = 1 2", "return", "return 1", "return\n-1", "print(1)\n(2)",
	"let x = not a and b or c", "let x = -2 ** -3 ** 4", "let x = a < b < c", "let x = a.1", "let x = 2.x",
	"let x = -", "let x = (1", "let x = )", "let", "let 1 = 2", "assert", "assert x,", "fn", "{", "}",
	"x.", "x.1", "x.if", "f(x)(y)[z].w", "a @ b.T", "let x = 1 // 2 % 3 * 4 / 5",
}

func TestFastParserMatchesParticiple(t *testing.T) {
	inputs := append(append([]string(nil), fastParseCases...), scanInputs(t)...)
	for _, tt := range exprTests {
		inputs = append(inputs, "let v = "+tt.src)
	}
	for _, src := range inputs {
		compareParsers(t, src)
	}
}

// FuzzFastParse checks the fast parser against participle on arbitrary
// input.
func FuzzFastParse(f *testing.F) {
	for _, src := range fastParseCases {
		f.Add(src)
	}
	for _, src := range scanInputs(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		compareParsers(t, src)
	})
}
