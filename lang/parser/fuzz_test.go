package parser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/pos"
)

// FuzzParse checks that no input makes the parser panic, that a failure is
// an ErrorList of positioned errors inside the input, and that a success
// gives a tree whose every node has a position. Seeds: the conformance
// scripts of spec/ and the inputs of this package's tests.
func FuzzParse(f *testing.F) {
	scripts, _ := filepath.Glob(filepath.Join("..", "..", "spec", "*.tr"))
	for _, path := range scripts {
		if src, err := os.ReadFile(path); err == nil {
			f.Add(src)
		}
	}
	for _, tt := range exprTests {
		f.Add([]byte("let v = " + tt.src))
	}
	for _, tt := range stmtTests {
		f.Add([]byte(tt.src))
	}
	for _, tt := range errorTests {
		if len(tt.src) < 200 {
			f.Add([]byte(tt.src))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// Lines end at \n, \r\n or a lone \r.
		lines := strings.Count(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n") +
			strings.Count(strings.ReplaceAll(string(src), "\r\n", "\n"), "\r") + 1
		file, err := ParseFile("f.tr", src)
		checkResult(t, "f.tr", lines, file, err)
		file, err = ParseREPL(src)
		checkResult(t, ReplFile, lines, file, err)
		Incomplete(err)
	})
}

func checkResult(t *testing.T, name string, lines int, f *ast.File, err error) {
	t.Helper()
	validPos := func(p ast.Pos) bool {
		return p.File == name && p.Line >= 1 && p.Line <= lines && p.Col >= 1
	}
	if err != nil {
		if f != nil {
			t.Fatalf("a file together with error %v", err)
		}
		var list pos.ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %T %v is not a non-empty ErrorList", err, err)
		}
		for _, e := range list {
			if !validPos(e.Pos) {
				t.Fatalf("error at invalid position %+v: %s", e.Pos, e.Msg)
			}
			if e.Msg == "" || strings.Contains(e.Msg, "internal") || strings.Contains(e.Msg, "unexpected token") {
				t.Fatalf("unconverted or internal error: %s", e)
			}
		}
		return
	}
	if f == nil {
		t.Fatal("nil file without an error")
	}
	for _, s := range f.Stmts {
		walk(s, func(n ast.Node) {
			if !validPos(n.Span()) {
				t.Fatalf("%T at invalid position %+v", n, n.Span())
			}
		})
	}
}
