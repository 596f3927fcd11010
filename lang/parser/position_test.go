package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/ast"
)

// TestPositions lists every node of a small program with its position, in
// walk order. Operators sit at their operator token: a binary or unary
// operator, the '(' of a call, the '[' of an index, the '.' of a field.
// Columns count characters, so "é" is one column.
func TestPositions(t *testing.T) {
	src := "let x = a + -b * c\n" +
		"fn f(p, q=2) {\n" +
		"\treturn p.sum(dim=q)[0, 1:]\n" +
		"}\n" +
		"import \"lib/m.tr\"\n" +
		"if x { del x } else if y {} else { print(\"é\", [1], {k: 2}, fn(z) => z) }\n" +
		"let s = f\"é{x + 1:>3} {y}\"\n"
	want := []string{
		"LetStmt 1:1",
		"Ident 1:5",
		"BinaryExpr 1:11",
		"Ident 1:9",
		"BinaryExpr 1:16",
		"UnaryExpr 1:13",
		"Ident 1:14",
		"Ident 1:18",
		"FnStmt 2:1",
		"Ident 2:4",
		"FnExpr 2:1",
		"Ident 2:6",
		"Ident 2:9",
		"NumberLit 2:11",
		"Block 2:14",
		"ReturnStmt 3:2",
		"IndexExpr 3:21",
		"CallExpr 3:14",
		"FieldExpr 3:10",
		"Ident 3:9",
		"Ident 3:19",
		"NumberLit 3:22",
		"SliceExpr 3:25",
		"NumberLit 3:25",
		"ImportStmt 5:1",
		"Ident 5:8",
		"IfStmt 6:1",
		"Ident 6:4",
		"Block 6:6",
		"DelStmt 6:8",
		"Ident 6:12",
		"IfStmt 6:21",
		"Ident 6:24",
		"Block 6:26",
		"Block 6:34",
		"ExprStmt 6:36",
		"CallExpr 6:41",
		"Ident 6:36",
		"StringLit 6:42",
		"ListExpr 6:47",
		"NumberLit 6:48",
		"RecordExpr 6:52",
		"NumberLit 6:56",
		"FnExpr 6:60",
		"Ident 6:63",
		"Block 6:69",
		"ReturnStmt 6:69",
		"Ident 6:69",
		"LetStmt 7:1",
		"Ident 7:5",
		"FStringExpr 7:9",
		"BinaryExpr 7:15",
		"Ident 7:13",
		"NumberLit 7:17",
		"Ident 7:24",
	}
	f, err := ParseFile("p.tr", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range f.Stmts {
		walk(s, func(n ast.Node) {
			p := n.Span()
			if p.File != "p.tr" {
				t.Errorf("%T at %v: file %q, want p.tr", n, p, p.File)
			}
			got = append(got, fmt.Sprintf("%s %d:%d", strings.TrimPrefix(fmt.Sprintf("%T", n), "*ast."), p.Line, p.Col))
		})
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("positions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestArgAndFieldPositions(t *testing.T) {
	f, err := ParseFile("a.tr", []byte("let r = {w: 1, \"b\": g(x, k=2)}"))
	if err != nil {
		t.Fatal(err)
	}
	rec := f.Stmts[0].(*ast.LetStmt).Value.(*ast.RecordExpr)
	if got := rec.Fields[0].At; got.Line != 1 || got.Col != 10 {
		t.Errorf("field w at %v, want 1:10", got)
	}
	if got := rec.Fields[1].At; got.Col != 16 {
		t.Errorf("field \"b\" at %v, want 1:16", got)
	}
	call := rec.Fields[1].Value.(*ast.CallExpr)
	if got := call.Args[0].At; got.Col != 23 {
		t.Errorf("positional argument at %v, want 1:23", got)
	}
	if a := call.Args[1]; a.Name != "k" || a.At.Col != 26 {
		t.Errorf("keyword argument %q at %v, want k at 1:26", a.Name, a.At)
	}
}

// TestLineEndings checks positions in files whose lines end in \n, \r\n
// and a lone \r (old Mac files), and that comments and strings end at
// any of them.
func TestLineEndings(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n", "\r"} {
		src := strings.Join([]string{"# comment", "let x = 1", "", "  let y = x # more", "let s = \"ab"}, nl) + nl + "f()"
		_, err := ParseFile("t.tr", []byte(src))
		if want := "t.tr:5:9: string literal not terminated"; err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", nl, err, want)
		}
		src = strings.Join([]string{"# comment", "let x = 1", "", "  let y = x # more", "let s = \"ab\"", "f(y)"}, nl)
		f, err := ParseFile("t.tr", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", nl, err)
		}
		var got []string
		for _, s := range f.Stmts {
			got = append(got, s.Span().String())
		}
		if want := "t.tr:2:1 t.tr:4:3 t.tr:5:1 t.tr:6:1"; strings.Join(got, " ") != want {
			t.Errorf("%q: statements at %s, want %s", nl, strings.Join(got, " "), want)
		}
	}
}
