package diag

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/pos"
)

func sources(files map[string]string) Sources {
	return func(name string) []byte {
		if s, ok := files[name]; ok {
			return []byte(s)
		}
		return nil
	}
}

func TestPrintCaretAndTraceback(t *testing.T) {
	p := &Printer{Sources: sources(map[string]string{
		"model.tr": "fn layer(x, w) {\n    return x @ w\n}\nlet y = layer(a, b)\n",
	})}
	got := p.Format([]Diagnostic{{
		Pos: pos.Pos{File: "model.tr", Line: 2, Col: 14},
		Msg: "matmul: shapes [2, 3] and [4, 5] do not match",
		Stack: []pos.Frame{
			{Fn: "layer", Pos: pos.Pos{File: "model.tr", Line: 2, Col: 14}},
			{Fn: "main", Pos: pos.Pos{File: "model.tr", Line: 4, Col: 14}},
		},
	}})
	want := "model.tr:2:14: matmul: shapes [2, 3] and [4, 5] do not match\n" +
		"        return x @ w\n" +
		"                 ^\n" +
		"  at layer (model.tr:2:14)\n" +
		"  at main (model.tr:4:14)\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestCaretKeepsTabs(t *testing.T) {
	p := &Printer{Sources: sources(map[string]string{"t.tr": "\t\tlet x = y\n"})}
	got := p.Format([]Diagnostic{{Pos: pos.Pos{File: "t.tr", Line: 1, Col: 11}, Msg: "undefined: y"}})
	want := "t.tr:1:11: undefined: y\n    \t\tlet x = y\n    \t\t        ^\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCaretCountsCharactersNotBytes(t *testing.T) {
	p := &Printer{Sources: sources(map[string]string{"u.tr": `print("héllo", z)`})}
	got := p.Format([]Diagnostic{{Pos: pos.Pos{File: "u.tr", Line: 1, Col: 16}, Msg: "undefined: z"}})
	lines := strings.Split(got, "\n")
	if caret := strings.Index(lines[2], "^"); caret != 4+15 {
		t.Errorf("caret at byte %d of %q, want under column 16", caret, lines[2])
	}
}

// Lines end at \n, \r\n or a lone \r: the quoted line is the right one
// without its ending.
func TestQuoteLineEndings(t *testing.T) {
	for _, src := range []string{"a\nlet x = y\nb", "a\r\nlet x = y\r\nb", "a\rlet x = y\rb"} {
		p := &Printer{Sources: sources(map[string]string{"t.tr": src})}
		got := p.Format([]Diagnostic{{Pos: pos.Pos{File: "t.tr", Line: 2, Col: 9}, Msg: "undefined: y"}})
		if want := "t.tr:2:9: undefined: y\n    let x = y\n            ^\n"; got != want {
			t.Errorf("%q: got %q, want %q", src, got, want)
		}
	}
}

func TestNoSourceNoQuote(t *testing.T) {
	p := &Printer{}
	got := p.Format([]Diagnostic{{Pos: pos.Pos{File: "gone.tr", Line: 3, Col: 1}, Msg: "boom"}})
	if got != "gone.tr:3:1: boom\n" {
		t.Errorf("got %q", got)
	}
	// A position past the end of the file quotes nothing either.
	p.Sources = sources(map[string]string{"gone.tr": "one line\n"})
	got = p.Format([]Diagnostic{{Pos: pos.Pos{File: "gone.tr", Line: 9, Col: 1}, Msg: "boom"}})
	if got != "gone.tr:9:1: boom\n" {
		t.Errorf("got %q", got)
	}
}

func TestMaxErrors(t *testing.T) {
	var ds []Diagnostic
	for i := 1; i <= 13; i++ {
		ds = append(ds, Diagnostic{Pos: pos.Pos{File: "f.tr", Line: i, Col: 1}, Msg: fmt.Sprint("e", i)})
	}
	got := (&Printer{}).Format(ds)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 11 || lines[9] != "f.tr:10:1: e10" || lines[10] != "and 3 more errors" {
		t.Errorf("got:\n%s", got)
	}
}

func TestColorOnlyWhenAsked(t *testing.T) {
	d := []Diagnostic{{Pos: pos.Pos{File: "c.tr", Line: 1, Col: 1}, Msg: "m"}}
	src := sources(map[string]string{"c.tr": "x\n"})
	plain := (&Printer{Sources: src}).Format(d)
	if strings.Contains(plain, "\x1b[") {
		t.Errorf("plain output has escapes: %q", plain)
	}
	colored := (&Printer{Sources: src, Color: true}).Format(d)
	if !strings.Contains(colored, "\x1b[") {
		t.Errorf("coloured output has no escapes: %q", colored)
	}
}

// opError is an error positioned as the runtime's refs.OpError is: at
// the site that submitted a failed op.
type opError struct{ at pos.Pos }

func (e *opError) Error() string     { return "matmul: out of memory" }
func (e *opError) Position() pos.Pos { return e.at }
func (e *opError) Message() string   { return e.Error() }

func TestDiagnosticsOfPositionedErrors(t *testing.T) {
	err := fmt.Errorf("forcing: %w", &opError{pos.Pos{File: "m.tr", Line: 3, Col: 5}})
	ds := Diagnostics(err)
	if len(ds) != 1 || ds[0].Pos != (pos.Pos{File: "m.tr", Line: 3, Col: 5}) || ds[0].Msg != "matmul: out of memory" {
		t.Fatalf("got %+v", ds)
	}
	// An error without a script position is searched through.
	err = fmt.Errorf("x: %w", &opError{pos.Pos{File: "<calibrate>"}})
	if ds := Diagnostics(err); len(ds) != 1 || ds[0].Pos.IsValid() {
		t.Errorf("a label is not a position: got %+v", ds)
	}
	if ds := Diagnostics(errors.New("plain")); len(ds) != 1 || ds[0].Pos.IsValid() || ds[0].Msg != "plain" {
		t.Errorf("plain error: got %+v", ds)
	}
	if Diagnostics(nil) != nil {
		t.Error("nil error gave diagnostics")
	}
}

func TestDiagnosticsOfStaticErrorList(t *testing.T) {
	list := pos.ErrorList{
		{Pos: pos.Pos{File: "a.tr", Line: 1, Col: 5}, Msg: "undefined: x"},
		{Pos: pos.Pos{File: "a.tr", Line: 3, Col: 2}, Msg: "break outside a loop"},
	}
	ds := Diagnostics(fmt.Errorf("checking: %w", list))
	if len(ds) != 2 || ds[0].Msg != "undefined: x" || ds[1].Pos.Line != 3 {
		t.Errorf("got %+v", ds)
	}
}

// A very long line is quoted as MaxQuotedLine characters around the
// caret, "..." where it was cut, the caret still under its character.
func TestLongLineClippedAroundCaret(t *testing.T) {
	long := "let x = [" + strings.Repeat("1, ", 1000) + "oops" + strings.Repeat(", 2", 1000) + "]"
	col := strings.Index(long, "oops") + 1
	p := &Printer{Sources: sources(map[string]string{"big.tr": long + "\n"})}
	got := p.Format([]Diagnostic{{Pos: pos.Pos{File: "big.tr", Line: 1, Col: col}, Msg: "undefined name \"oops\""}})
	lines := strings.Split(got, "\n")
	quoted, caret := strings.TrimPrefix(lines[1], "    "), strings.TrimPrefix(lines[2], "    ")
	if !strings.HasPrefix(quoted, "...") || !strings.HasSuffix(quoted, "...") {
		t.Errorf("quoted line not cut at both ends: %q", quoted)
	}
	if n := len([]rune(quoted)); n != MaxQuotedLine+6 {
		t.Errorf("quoted %d characters, want %d", n, MaxQuotedLine+6)
	}
	if i := strings.Index(caret, "^"); i < 0 || !strings.HasPrefix(quoted[i:], "oops") {
		t.Errorf("caret not under oops:\n%s\n%s", quoted, caret)
	}
	// Near the start, only the end is cut; short lines are whole.
	got = p.Format([]Diagnostic{{Pos: pos.Pos{File: "big.tr", Line: 1, Col: 5}, Msg: "m"}})
	lines = strings.Split(got, "\n")
	if q := lines[1]; !strings.HasPrefix(q, "    let x = [1, ") || !strings.HasSuffix(q, "...") || lines[2] != "        ^" {
		t.Errorf("start of line: %q / %q", q, lines[2])
	}
	// Near the end, only the start is cut.
	got = p.Format([]Diagnostic{{Pos: pos.Pos{File: "big.tr", Line: 1, Col: len(long)}, Msg: "m"}})
	lines = strings.Split(got, "\n")
	if q := lines[1]; !strings.HasPrefix(q, "    ...") || !strings.HasSuffix(q, ", 2]") || len(lines[2]) != len(q) {
		t.Errorf("end of line: %q / %q", q, lines[2])
	}
}
