package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// refScan is scan written with lexDef, the regexp lexer that defines the
// tokens: the hand-written scanner must agree with it on every input. It
// lexes line by line (no token spans a line) as lexDef is slow on long
// inputs.
func refScan(path string, src []byte) ([]lexer.Token, errorList) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	var (
		toks []lexer.Token
		errs errorList
		end  lexer.Position
	)
	for offset, line := 0, 1; offset <= len(src); line++ {
		text := src[offset:]
		next := len(src) + 1
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			text, next = text[:i], offset+i+1
		}
		lex, err := lexDef.LexString(path, string(text))
		if err != nil {
			panic(err)
		}
		for {
			t, err := lex.Next()
			if err != nil {
				panic(err) // the catch-all Bad rule matches anything
			}
			if t.EOF() {
				break
			}
			t.Pos.Line = line
			t.Pos.Offset += offset
			switch t.Type {
			case tokString:
				if _, err := unquote(t); err != nil && !isFString(t) {
					errs = append(errs, err)
				}
			case tokBadString:
				errs.add(posOf(t.Pos), "string literal not terminated")
			case tokNumber:
				if _, err := parseNumber(t); err != nil {
					errs = append(errs, err)
				}
			case tokBad:
				errs.add(posOf(t.Pos), badChar(t.Value))
			}
			if n := len(toks); n > 0 && t.Type == tokNumber && t.Value[0] == '.' && endsOperand(toks[n-1]) &&
				toks[n-1].Pos.Offset+len(toks[n-1].Value) == t.Pos.Offset {
				dot := lexer.Token{Type: tokOp, Value: ".", Pos: t.Pos}
				t.Value = t.Value[1:]
				t.Pos.Offset++
				t.Pos.Column++
				toks = append(toks, dot)
			}
			toks = append(toks, t)
		}
		end = lexer.Position{Filename: path, Offset: offset + len(text), Line: line, Column: 1 + utf8.RuneCount(text)}
		offset = next
	}
	return append(toks, lexer.EOFToken(end)), errs
}

// lexerCases are inputs at the edges of the token rules.
var lexerCases = []string{
	"", "\n", "\r\n", "\ufeffx", "# c\n#", "let x = 1 # c\r\nx",
	`"a" "" "\n\t\"\\" "\q" "é\x" "abc`, "\"a\\", "\"a\\\n\"", "\"\\é\"", "\"\xff\" \xff \xc3",
	"1 1_000 1__0 1_ 1. 1.5 1.5.3 .5 ._5 .5e3 1e 1e+ 1e-3 1E5x 1ex 1.e5 1.x 1else 0x1f 99999999999999999999",
	"a.1 a.1.2 x[0].5 (1).5 1..2 f().5",
	"let letx let_ x1 _ in inx in1 iné import imports nonex none",
	"== != <= >= // ** += -= *= /= => = ==> //= **= ! !x & | ' ~ ^ $ ` \\ ?",
	"- + * / % @ < > = ( ) [ ] { } , : ; .",
	"\x00 \x01 \x7f \v \f é 日本",
	"a\tb\t\tc", "x # é日\ny",
	`f"a{x}" f"" f"\q" ff"x" fx"y" f "z" elif"w" 1f"v" f"{"x"}" f"abc f"\`,
}

// scanInputs are the inputs the scanners are compared on: lexerCases,
// the parser tests' sources and the conformance scripts.
func scanInputs(t testing.TB) []string {
	in := append([]string(nil), lexerCases...)
	for _, tt := range exprTests {
		in = append(in, tt.src)
	}
	for _, tt := range stmtTests {
		in = append(in, tt.src)
	}
	for _, tt := range errorTests {
		in = append(in, tt.src)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "spec", "*.tr"))
	if len(files) == 0 {
		t.Fatal("no spec scripts")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, string(b))
	}
	return in
}

func TestScanMatchesLexDef(t *testing.T) {
	for _, src := range scanInputs(t) {
		compareScans(t, src)
	}
}

// FuzzScan checks the hand-written scanner against lexDef.
func FuzzScan(f *testing.F) {
	for _, src := range scanInputs(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		compareScans(t, src)
	})
}

func compareScans(t *testing.T, src string) {
	t.Helper()
	if strings.ContainsRune(src, '\r') {
		// lexDef counts lines at \n only; scan ends them at \r too
		// (TestLineEndings).
		return
	}
	got, gotErrs := scan("f.tr", []byte(src), 1)
	want, wantErrs := refScan("f.tr", []byte(src))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scan(%q):\n got %s\nwant %s", src, showTokens(got), showTokens(want))
	}
	if !reflect.DeepEqual(gotErrs, wantErrs) {
		t.Fatalf("scan(%q) errors:\n got %v\nwant %v", src, gotErrs, wantErrs)
	}
}

func showTokens(toks []lexer.Token) string {
	names := map[lexer.TokenType]string{}
	for name, typ := range lexDef.Symbols() {
		names[typ] = name
	}
	var b strings.Builder
	for _, t := range toks {
		fmt.Fprintf(&b, "%s%q@%d:%d(%d) ", names[t.Type], t.Value, t.Pos.Line, t.Pos.Column, t.Pos.Offset)
	}
	return b.String()
}
